package io.fulcrum.bus;

/**
 * A target optimizer control channel opened, or went down (published on
 * {@link Addresses#OPTIMIZER_CHANNELS} for the journal). A channel that keeps failing to open is
 * reported down once, when it first fails.
 *
 * @param groupArn the target group
 * @param target   the target, {@code id:port}
 * @param open     whether the channel is open now
 * @param detail   what the agent said (open) or why it went down
 * @param time     when (the control plane's clock, epoch millis)
 */
public record AgentChannelChange(String groupArn, String target, boolean open, String detail, long time) {
}
