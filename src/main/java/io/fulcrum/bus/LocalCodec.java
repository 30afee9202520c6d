package io.fulcrum.bus;

import io.fulcrum.sticky.KeyRing;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Passes an immutable message between verticles of one process without copying or serialising
 * it. Messages sent with it never leave the process.
 */
public final class LocalCodec<T> implements MessageCodec<T, T> {

  private final Class<T> type;

  private LocalCodec(Class<T> type) {
    this.type = type;
  }

  /** Registers the codec of every message type of {@link Addresses} as the default for its class. */
  public static void registerAll(Vertx vertx) {
    register(vertx, DataPlaneSnapshot.class);
    register(vertx, Registrations.class);
    register(vertx, GroupHealth.class);
    register(vertx, HealthReport.class);
    register(vertx, ZoneStatus.class);
    register(vertx, KeyRing.class);
    register(vertx, FunctionRequest.class);
    register(vertx, FunctionReply.class);
    register(vertx, ExchangeOutcome.class);
    register(vertx, AgentChannelChange.class);
  }

  private static <T> void register(Vertx vertx, Class<T> type) {
    vertx.eventBus().registerDefaultCodec(type, new LocalCodec<>(type));
  }

  @Override
  public void encodeToWire(Buffer buffer, T t) {
    throw new UnsupportedOperationException(type.getSimpleName() + " is a local message");
  }

  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    throw new UnsupportedOperationException(type.getSimpleName() + " is a local message");
  }

  @Override
  public T transform(T t) {
    return t;
  }

  @Override
  public String name() {
    return "fulcrum-local-" + type.getName();
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
