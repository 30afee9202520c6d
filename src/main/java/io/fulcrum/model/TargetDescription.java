package io.fulcrum.model;

/**
 * A target as a user names it when registering (ELBv2 {@code TargetDescription}); {@code port}
 * and {@code zone} may be {@code null}.
 */
public record TargetDescription(String id, Integer port, String zone) {
}
