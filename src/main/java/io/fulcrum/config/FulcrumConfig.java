package io.fulcrum.config;

import io.fulcrum.model.Certificate;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Resources;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * The whole validated configuration of a Fulcrum process: the deployment, its resources and the
 * process settings. Immutable.
 *
 * @param environment     region, account, nodes, VPC CIDRs, instance inventory
 * @param resources       load balancers and target groups
 * @param source          who owns the resources ({@code config} or {@code api})
 * @param control         where the control plane listens
 * @param dns             the DNS responder for load balancer names
 * @param credentials     the access key the ELBv2 API accepts, or null (then it accepts none)
 * @param dataDir         persisted state and generated certificates
 * @param reload          hot reload of the config file
 * @param shutdownTimeoutSeconds how long in-flight requests may finish after SIGTERM
 * @param randomSeed      a seed for every random choice (reproducible tests), if set
 * @param demoTargets     embedded demo backends to start
 * @param certificates    the certificates the API's HTTPS listeners may use, by ARN: the self-signed
 *                        one first, then the file's
 * @param jwks            how jwt-validation actions reach their JWKS endpoints
 * @param oidc            how authenticate-oidc actions reach identity providers
 * @param cluster         the processes this one shares the API's resources with
 */
public record FulcrumConfig(
    Environment environment,
    Resources resources,
    ResourceSource source,
    Control control,
    Dns dns,
    Credentials credentials,
    Path dataDir,
    Reload reload,
    int shutdownTimeoutSeconds,
    OptionalLong randomSeed,
    List<DemoTarget> demoTargets,
    List<Certificate> certificates,
    Jwks jwks,
    Oidc oidc,
    Cluster cluster) {

  public static final int DEFAULT_SHUTDOWN_TIMEOUT = 30;
  public static final int DEFAULT_CONTROL_PORT = 9090;
  public static final long DEFAULT_SCAN_PERIOD_MS = 2000;
  public static final long MIN_SCAN_PERIOD_MS = 50;

  public FulcrumConfig {
    demoTargets = List.copyOf(demoTargets);
    certificates = List.copyOf(certificates);
  }

  /** Who owns the load balancers and target groups. */
  public enum ResourceSource {
    /** This file; the API may read them but not change them. */
    CONFIG,
    /** The ELBv2 API; this file seeds an empty store. */
    API
  }

  /** The control plane's bind address and port (0 picks a free port). */
  public record Control(String address, int port) {
  }

  /**
   * The DNS responder: answers A/AAAA queries for each load balancer's DNS name with the addresses
   * of the nodes whose zones pass DNS failover (TTL 60 s).
   *
   * @param enabled whether it runs
   * @param address the UDP bind address (default: the control plane's)
   * @param port    the UDP port (0 picks a free port)
   * @param domain  load balancer names are {@code <name>.<region>.<domain>}
   */
  public record Dns(boolean enabled, String address, int port, String domain) {
    public static final int DEFAULT_PORT = 8053;
    public static final int TTL_SECONDS = 60;
  }

  /**
   * The access key pair that ELBv2 API requests must be signed with (SigV4). Environment:
   * {@code FULCRUM_ACCESS_KEY_ID}, {@code FULCRUM_SECRET_ACCESS_KEY}.
   */
  public record Credentials(String accessKeyId, String secretAccessKey) {
    @Override
    public String toString() {
      return "Credentials[" + accessKeyId + ", secret hidden]";
    }
  }

  /** Whether and how often the config file is re-read. */
  public record Reload(boolean enabled, long scanPeriodMillis) {
  }

  /**
   * How jwt-validation actions fetch their JWKS documents.
   *
   * @param caCertificates a PEM file of the CAs the endpoints' certificates must chain to, instead of
   *                       the JDK's; null for the JDK's
   */
  public record Jwks(String caCertificates) {
    public static final Jwks DEFAULT = new Jwks(null);
  }

  /**
   * How authenticate-oidc actions reach their identity providers' token and user info endpoints.
   *
   * @param caCertificates a PEM file of the CAs the endpoints' certificates must chain to, instead of
   *                       the JDK's; null for the JDK's
   */
  public record Oidc(String caCertificates) {
    public static final Oidc DEFAULT = new Oidc(null);
  }

  /**
   * The Fulcrum processes that share the resources the API owns (Vert.x clustering with the
   * Hazelcast cluster manager): a change made through any one's API is applied by all, and a
   * process that joins takes the cluster's resources.
   *
   * @param enabled whether this process joins a cluster
   * @param name    the cluster's name: processes join only a cluster of their name
   * @param host    the address this process listens on for its cluster members and announces
   * @param port    the member port (Hazelcast's)
   * @param eventBusPort the clustered event bus's port on {@code host}; 0 takes a free one
   * @param members {@code host:port} of other members to join (TCP, no multicast)
   */
  public record Cluster(boolean enabled, String name, String host, int port, int eventBusPort, List<String> members) {
    public static final int DEFAULT_PORT = 5701;
    public static final Cluster DISABLED = new Cluster(false, "fulcrum", "127.0.0.1", DEFAULT_PORT, 0, List.of());

    public Cluster {
      members = List.copyOf(members);
    }
  }

  /** An embedded demo backend: answers with its id and zone, and has a {@code /health} path. */
  public record DemoTarget(String id, String address, int port, String zone) {
  }
}
