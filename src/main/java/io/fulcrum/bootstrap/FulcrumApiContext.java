package io.fulcrum.bootstrap;

import io.fulcrum.api.ApiContext;
import io.fulcrum.bus.HealthReport;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.model.AnomalyDetection;
import io.fulcrum.model.Certificate;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Resources;
import io.fulcrum.registry.RegistryVerticle;
import io.fulcrum.time.Timers;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The API's view of a running Fulcrum: the registry, the health checker and the listeners. */
final class FulcrumApiContext implements ApiContext {

  private final Fulcrum fulcrum;
  private final Timers timers;

  FulcrumApiContext(Fulcrum fulcrum, Timers timers) {
    this.fulcrum = fulcrum;
    this.timers = timers;
  }

  @Override
  public Environment environment() {
    return registry().environment();
  }

  @Override
  public String dnsDomain() {
    return fulcrum.config().dns().domain();
  }

  @Override
  public List<Certificate> certificates() {
    return fulcrum.config().certificates();
  }

  @Override
  public Resources resources() {
    return registry().resources();
  }

  @Override
  public Future<Resources> mutate(Function<Resources, Resources> change) {
    return fulcrum.mutate(change)
        .compose(r -> fulcrum.awaitApplied(r.version()).map(v -> r.resources()));
  }

  @Override
  public Future<HealthReport> health(String groupArn) {
    return fulcrum.health(groupArn);
  }

  @Override
  public Future<Map<String, Long>> draining(String groupArn) {
    return registry().draining(groupArn);
  }

  @Override
  public Future<Map<String, AnomalyDetection>> anomalies(String groupArn) {
    return registry().anomalies(groupArn);
  }

  @Override
  public ZoneStatus zones() {
    return registry().zones();
  }

  @Override
  public long now() {
    return timers.now();
  }

  @Override
  public RegistryVerticle registry() {
    return fulcrum.registry();
  }
}
