package io.fulcrum.bus;

/** Every event-bus address Fulcrum uses, in one place. */
public final class Addresses {

  /** Published by the registry: a new {@link DataPlaneSnapshot} for every listener verticle. */
  public static final String SNAPSHOT = "fulcrum.snapshot";

  /** Request/reply: asks the registry for the current {@link DataPlaneSnapshot}. */
  public static final String SNAPSHOT_CURRENT = "fulcrum.snapshot.current";

  /** Published by the registry: the {@link Registrations} the health checker watches. */
  public static final String REGISTRATIONS = "fulcrum.registrations";

  /** Request/reply: asks the registry for the current {@link Registrations}. */
  public static final String REGISTRATIONS_CURRENT = "fulcrum.registrations.current";

  /** Published by the health checker: a {@link GroupHealth} after every change in a group. */
  public static final String HEALTH = "fulcrum.health";

  /** Request/reply: the health checker's report on one group (body: the group ARN). */
  public static final String HEALTH_REPORT = "fulcrum.health.report";

  /** Published by the registry: the {@link ZoneStatus} after every change that can move it. */
  public static final String ZONES = "fulcrum.zones";

  /** Request/reply: asks the registry for the current {@link ZoneStatus}. */
  public static final String ZONES_CURRENT = "fulcrum.zones.current";

  /** Published by the key ring owner: the stickiness {@code KeyRing} after every change of the key file. */
  public static final String STICKINESS_KEYS = "fulcrum.stickiness.keys";

  /** Request/reply: asks for the current stickiness {@code KeyRing}. */
  public static final String STICKINESS_KEYS_CURRENT = "fulcrum.stickiness.keys.current";

  /**
   * Publish: a target group's ARN, when an agent granted credits to one of its targets and the
   * group lets requests wait for them (target optimizer); listeners retry their waiting requests.
   */
  public static final String OPTIMIZER_CREDITS = "fulcrum.optimizer.credits";

  /** Publish: an {@link AgentChannelChange}, for the journal. */
  public static final String OPTIMIZER_CHANNELS = "fulcrum.optimizer.channels";

  /** Request/reply: a {@link FunctionRequest} for the function invoker, answered with a {@link FunctionReply}. */
  public static final String FUNCTION_INVOKE = "fulcrum.function.invoke";

  /**
   * Published (local only) by the listener verticles: an {@link ExchangeOutcome} when an exchange
   * ends, only while someone has subscribed through {@link ExchangeOutcomes#subscribe} (consumers
   * register there, not with a plain {@code localConsumer}).
   */
  public static final String EXCHANGES = "fulcrum.exchanges";

  private Addresses() {
  }
}
