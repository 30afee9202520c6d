package io.fulcrum.api;

import io.fulcrum.model.Certificate;
import io.fulcrum.model.TrustStore;
import java.util.List;

import io.fulcrum.bus.HealthReport;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.model.AnomalyDetection;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Resources;
import io.fulcrum.registry.RegistryVerticle;
import io.vertx.core.Future;
import java.util.Map;
import java.util.function.Function;

/**
 * What the API's operations read and change. Reads see the registry's current resources; a change
 * goes through {@link #mutate}, which completes once the change is persisted and every listener
 * routes by it, so the next request sees it.
 */
public interface ApiContext {

  Environment environment();

  /** The domain of load balancer DNS names: {@code <name>.<region>.<domain>}. */
  default String dnsDomain() {
    return Arns.DEFAULT_DNS_DOMAIN;
  }

  /**
   * The certificates HTTPS listeners may use, by ARN: the self-signed one first, then those of the
   * config file (there is no ACM to import into).
   */
  default List<Certificate> certificates() {
    return List.of(Certificate.selfSigned(environment().arns().selfSignedCertificate()));
  }

  /**
   * The trust stores listeners may verify clients with, by ARN: those of the config file (there is
   * no S3 to read bundles from), as of its last reload.
   */
  default List<TrustStore> trustStores() {
    return List.copyOf(environment().trustStores().values());
  }

  /** The current resources (an immutable value). */
  Resources resources();

  /**
   * Applies a change, validated as a whole, persisted when the API owns the resources, and
   * applied by every listener before the future completes. Fails, changing nothing, with an
   * {@link io.fulcrum.model.InvalidModelException} carrying AWS error codes.
   */
  Future<Resources> mutate(Function<Resources, Resources> change);

  /** The health checker's report on a target group (states, reasons, ports probed, history). */
  Future<HealthReport> health(String groupArn);

  /** Draining targets of a group and when their delay ends (epoch millis), by target key. */
  Future<Map<String, Long>> draining(String groupArn);

  /** Anomaly detection results of a group's targets, by key. */
  Future<Map<String, AnomalyDetection>> anomalies(String groupArn);

  /** DNS failover state of every load balancer's zones. */
  ZoneStatus zones();

  /** Epoch millis (a virtual clock in tests). */
  long now();

  /** The registry, for operations that need more than the above. */
  RegistryVerticle registry();
}
