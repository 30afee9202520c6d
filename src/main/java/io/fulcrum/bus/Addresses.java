package io.fulcrum.bus;

/** Every event-bus address Fulcrum uses, in one place. */
public final class Addresses {

  /** Published by the registry: a new {@link DataPlaneSnapshot} for every listener verticle. */
  public static final String SNAPSHOT = "fulcrum.snapshot";

  /** Request/reply: asks the registry for the current {@link DataPlaneSnapshot}. */
  public static final String SNAPSHOT_CURRENT = "fulcrum.snapshot.current";

  private Addresses() {
  }
}
