package io.fulcrum.model;

import static io.fulcrum.model.AttributeSpec.bool;
import static io.fulcrum.model.AttributeSpec.oneOf;
import static io.fulcrum.model.AttributeSpec.range;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A load balancer's attributes (ELBv2 {@code LoadBalancerAttribute}), complete with defaults, with
 * typed accessors for what the data plane reads. Immutable.
 */
public final class LoadBalancerAttributes {

  public static final String DELETION_PROTECTION = "deletion_protection.enabled";
  public static final String IDLE_TIMEOUT = "idle_timeout.timeout_seconds";
  public static final String HTTP2_ENABLED = "routing.http2.enabled";
  public static final String DROP_INVALID_HEADERS = "routing.http.drop_invalid_header_fields.enabled";
  public static final String XFF_MODE = "routing.http.xff_header_processing.mode";
  public static final String XFF_CLIENT_PORT = "routing.http.xff_client_port.enabled";
  public static final String PRESERVE_HOST = "routing.http.preserve_host_header.enabled";
  public static final String TLS_HEADERS = "routing.http.x_amzn_tls_version_and_cipher_suite.enabled";
  public static final String DESYNC_MODE = "routing.http.desync_mitigation_mode";
  public static final String CLIENT_KEEP_ALIVE = "client_keep_alive.seconds";
  public static final String CROSS_ZONE = "load_balancing.cross_zone.enabled";
  public static final String DNS_CLIENT_ROUTING = "dns_record.client_routing_policy";
  public static final String WAF_FAIL_OPEN = "waf.fail_open.enabled";
  public static final String ZONAL_SHIFT = "zonal_shift.config.enabled";
  public static final String ACCESS_LOGS = "access_logs.s3.enabled";
  public static final String ACCESS_LOGS_BUCKET = "access_logs.s3.bucket";
  public static final String ACCESS_LOGS_PREFIX = "access_logs.s3.prefix";
  public static final String HEALTH_CHECK_LOGS = "health_check_logs.s3.enabled";
  public static final String HEALTH_CHECK_LOGS_BUCKET = "health_check_logs.s3.bucket";
  public static final String HEALTH_CHECK_LOGS_PREFIX = "health_check_logs.s3.prefix";
  /** ALB's connection log: {@code .s3.enabled} (off only), {@code .bucket} and {@code .prefix}. */
  public static final String CONNECTION_LOGS = "connection_logs.s3.enabled";
  public static final String CONNECTION_LOGS_BUCKET = "connection_logs.s3.bucket";
  public static final String CONNECTION_LOGS_PREFIX = "connection_logs.s3.prefix";
  /** Fulcrum's own: the connect timeout toward targets; ALB's is a fixed 10 s. */
  public static final String CONNECT_TIMEOUT_MS = "fulcrum.target_connect_timeout_ms";

  public static final int DEFAULT_IDLE_TIMEOUT = 60;
  public static final int DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

  static List<AttributeSpec> specs(LoadBalancerType type) {
    List<AttributeSpec> s = new ArrayList<>();
    s.add(bool(DELETION_PROTECTION, false));
    if (type == LoadBalancerType.APPLICATION) {
      s.add(range(IDLE_TIMEOUT, DEFAULT_IDLE_TIMEOUT, 1, 4000));
      s.add(bool(HTTP2_ENABLED, true));
      s.add(bool(DROP_INVALID_HEADERS, false));
      s.add(oneOf(XFF_MODE, "append", List.of("append", "preserve", "remove")));
      s.add(bool(XFF_CLIENT_PORT, false));
      s.add(bool(PRESERVE_HOST, false));
      s.add(bool(TLS_HEADERS, false));
      s.add(oneOf(DESYNC_MODE, "defensive", List.of("monitor", "defensive", "strictest")));
      s.add(range(CLIENT_KEEP_ALIVE, 3600, 60, 604800));
      // Accepted as ALB has them, so that tools sending the whole set (Terraform, CloudFormation) work:
      // with no WAF and no zonal shift they change nothing. Access, connection and health check logs are
      // written to a local directory named after the bucket.
      s.add(bool(WAF_FAIL_OPEN, false));
      s.add(bool(ZONAL_SHIFT, false));
      s.add(bool(ACCESS_LOGS, false));
      s.add(new AttributeSpec(ACCESS_LOGS_BUCKET, "", LoadBalancerAttributes::checkBucket));
      s.add(new AttributeSpec(ACCESS_LOGS_PREFIX, "", LoadBalancerAttributes::checkPrefix));
      s.add(bool(CONNECTION_LOGS, false));
      s.add(new AttributeSpec(CONNECTION_LOGS_BUCKET, "", LoadBalancerAttributes::checkBucket));
      s.add(new AttributeSpec(CONNECTION_LOGS_PREFIX, "", LoadBalancerAttributes::checkPrefix));
      s.add(bool(HEALTH_CHECK_LOGS, false));
      s.add(new AttributeSpec(HEALTH_CHECK_LOGS_BUCKET, "", LoadBalancerAttributes::checkBucket));
      s.add(new AttributeSpec(HEALTH_CHECK_LOGS_PREFIX, "", LoadBalancerAttributes::checkPrefix));
      // An ALB always balances across zones at the load balancer level; target groups may turn it off.
      s.add(oneOf(CROSS_ZONE, "true", List.of("true")));
      s.add(range(CONNECT_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, 1, DEFAULT_CONNECT_TIMEOUT_MS));
    } else {
      // A network load balancer's access log records its TLS listeners' connections.
      s.add(bool(ACCESS_LOGS, false));
      s.add(new AttributeSpec(ACCESS_LOGS_BUCKET, "", LoadBalancerAttributes::checkBucket));
      s.add(new AttributeSpec(ACCESS_LOGS_PREFIX, "", LoadBalancerAttributes::checkPrefix));
      s.add(bool(CROSS_ZONE, false));
      s.add(oneOf(DNS_CLIENT_ROUTING, "any_availability_zone",
          List.of("availability_zone_affinity", "partial_availability_zone_affinity", "any_availability_zone")));
      s.add(range(CONNECT_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, 1, DEFAULT_CONNECT_TIMEOUT_MS));
    }
    return s;
  }

  /** A log to S3 that Fulcrum does not write: {@code false} only, and a refusal that says why. */
  /**
   * An S3 bucket name (3-63 lowercase letters, digits, dots and hyphens, starting and ending with a
   * letter or digit, no two dots in a row), or empty; it names a directory, so nothing else can pass.
   */
  static String checkBucket(String v) {
    if (v.isEmpty()) {
      return null;
    }
    boolean valid = v.length() >= 3 && v.length() <= 63 && v.matches("[a-z0-9][a-z0-9.-]*[a-z0-9]") && !v.contains("..");
    return valid ? null : "expected an S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens";
  }

  /**
   * A key prefix as ALB takes it: not starting or ending with {@code /}, without {@code AWSLogs};
   * and, since it names directories here, printable ASCII without {@code \} or {@code .}/{@code ..}
   * segments.
   */
  static String checkPrefix(String v) {
    if (v.isEmpty()) {
      return null;
    }
    if (v.length() > 512 || v.startsWith("/") || v.endsWith("/") || v.contains("//") || v.contains("AWSLogs")
        || !v.matches("[\\x21-\\x7e&&[^\\\\]]+")) {
      return "expected a prefix that neither starts nor ends with '/', without 'AWSLogs', '//', '\\' or spaces";
    }
    for (String segment : v.split("/")) {
      if (segment.equals(".") || segment.equals("..")) {
        return "expected a prefix without '.' or '..' segments";
      }
    }
    return null;
  }
  private final Attributes all;

  private LoadBalancerAttributes(Attributes all) {
    this.all = all;
  }

  public static LoadBalancerAttributes defaults(LoadBalancerType type) {
    return resolve(type, null, Map.of(), new Problems());
  }

  /** @return the attributes, or {@code null} when a problem was recorded */
  public static LoadBalancerAttributes resolve(LoadBalancerType type, LoadBalancerAttributes base,
      Map<String, String> given, Problems problems) {
    int before = problems.size();
    Attributes a = Attributes.resolve(specs(type), base == null ? null : base.all, given, "Load balancer", problems);
    if (problems.size() == before && a.getBoolean(ACCESS_LOGS) && a.get(ACCESS_LOGS_BUCKET).isEmpty()) {
      problems.at(ACCESS_LOGS_BUCKET).add("a bucket is required while " + ACCESS_LOGS + " is true");
    }
    if (problems.size() == before && type == LoadBalancerType.APPLICATION && a.getBoolean(CONNECTION_LOGS)
        && a.get(CONNECTION_LOGS_BUCKET).isEmpty()) {
      problems.at(CONNECTION_LOGS_BUCKET).add("a bucket is required while " + CONNECTION_LOGS + " is true");
    }
    if (problems.size() == before && type == LoadBalancerType.APPLICATION && a.getBoolean(HEALTH_CHECK_LOGS)
        && a.get(HEALTH_CHECK_LOGS_BUCKET).isEmpty()) {
      problems.at(HEALTH_CHECK_LOGS_BUCKET).add("a bucket is required while " + HEALTH_CHECK_LOGS + " is true");
    }
    return problems.size() > before ? null : new LoadBalancerAttributes(a);
  }

  public Map<String, String> asMap() {
    return all.asMap();
  }

  public String get(String key) {
    return all.get(key);
  }

  public int idleTimeoutSeconds() {
    String v = all.get(IDLE_TIMEOUT);
    return v == null ? 350 : Integer.parseInt(v);
  }

  public int connectTimeoutMillis() {
    return all.getInt(CONNECT_TIMEOUT_MS);
  }

  /** {@code append}, {@code preserve} or {@code remove}. */
  public String xffMode() {
    String v = all.get(XFF_MODE);
    return v == null ? "append" : v;
  }

  public boolean xffClientPort() {
    return all.getBoolean(XFF_CLIENT_PORT);
  }

  public boolean preserveHost() {
    return all.getBoolean(PRESERVE_HOST);
  }

  public boolean dropInvalidHeaders() {
    return all.getBoolean(DROP_INVALID_HEADERS);
  }

  /** {@code routing.http.desync_mitigation_mode}: {@code monitor}, {@code defensive} or {@code strictest}. */
  public String desyncMode() {
    String v = all.get(DESYNC_MODE);
    return v == null ? "defensive" : v;
  }

  /** {@code routing.http.x_amzn_tls_version_and_cipher_suite.enabled}. */
  public boolean tlsHeaders() {
    return all.getBoolean(TLS_HEADERS);
  }

  public boolean http2Enabled() {
    String v = all.get(HTTP2_ENABLED);
    return v == null || Boolean.parseBoolean(v);
  }

  public int clientKeepAliveSeconds() {
    String v = all.get(CLIENT_KEEP_ALIVE);
    return v == null ? 3600 : Integer.parseInt(v);
  }

  /** The access log's bucket (a directory under the data dir's {@code s3/}), or null while the log is off. */
  public String accessLogBucket() {
    return "true".equals(all.get(ACCESS_LOGS)) ? all.get(ACCESS_LOGS_BUCKET) : null;
  }

  /** The health check log's bucket (a directory under the data dir's {@code s3/}), or null while the log is off. */
  public String healthCheckLogBucket() {
    return "true".equals(all.get(HEALTH_CHECK_LOGS)) ? all.get(HEALTH_CHECK_LOGS_BUCKET) : null;
  }

  /** The health check log's key prefix, {@code ""} for none. */
  public String healthCheckLogPrefix() {
    String v = all.get(HEALTH_CHECK_LOGS_PREFIX);
    return v == null ? "" : v;
  }

  /** The connection log's bucket (a directory under the data dir's {@code s3/}), or null while the log is off. */
  public String connectionLogBucket() {
    return "true".equals(all.get(CONNECTION_LOGS)) ? all.get(CONNECTION_LOGS_BUCKET) : null;
  }

  /** The connection log's key prefix, {@code ""} for none. */
  public String connectionLogPrefix() {
    String v = all.get(CONNECTION_LOGS_PREFIX);
    return v == null ? "" : v;
  }

  /** The access log's key prefix, {@code ""} for none. */
  public String accessLogPrefix() {
    String v = all.get(ACCESS_LOGS_PREFIX);
    return v == null ? "" : v;
  }

  public boolean crossZone() {
    return all.getBoolean(CROSS_ZONE);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LoadBalancerAttributes a && a.all.equals(all);
  }

  @Override
  public int hashCode() {
    return all.hashCode();
  }

  @Override
  public String toString() {
    return all.toString();
  }
}
