package io.fulcrum.model;

import static io.fulcrum.model.LoadBalancerAttributes.CLIENT_KEEP_ALIVE;
import static io.fulcrum.model.LoadBalancerAttributes.CONNECT_TIMEOUT_MS;
import static io.fulcrum.model.LoadBalancerAttributes.IDLE_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Load balancer attributes: defaults and ranges (SPEC §11.4, ELBv2 LoadBalancerAttribute). */
class LoadBalancerAttributesTest {

  private static final String VE = Problem.VALIDATION_ERROR;

  record Result(LoadBalancerAttributes attributes, List<Problem> problems) {
  }

  private static Result resolve(LoadBalancerType type, LoadBalancerAttributes base, String... kv) {
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      given.put(kv[i], kv[i + 1]);
    }
    Problems problems = new Problems();
    return new Result(LoadBalancerAttributes.resolve(type, base, given, problems), problems.list());
  }

  private static Result alb(String... kv) {
    return resolve(LoadBalancerType.APPLICATION, null, kv);
  }

  private static LoadBalancerAttributes ok(Result r) {
    assertThat(r.problems()).isEmpty();
    assertThat(r.attributes()).isNotNull();
    return r.attributes();
  }

  private static void rejected(Result r, Problem... expected) {
    assertThat(r.problems()).containsExactly(expected);
    assertThat(r.attributes()).isNull();
  }

  @Test
  void alb_hasTheDefaultSet() {
    assertThat(LoadBalancerAttributes.defaults(LoadBalancerType.APPLICATION).asMap()).containsExactly(
        entry("deletion_protection.enabled", "false"),
        entry("idle_timeout.timeout_seconds", "60"),
        entry("routing.http2.enabled", "true"),
        entry("routing.http.drop_invalid_header_fields.enabled", "false"),
        entry("routing.http.xff_header_processing.mode", "append"),
        entry("routing.http.xff_client_port.enabled", "false"),
        entry("routing.http.preserve_host_header.enabled", "false"),
        entry("routing.http.x_amzn_tls_version_and_cipher_suite.enabled", "false"),
        entry("routing.http.desync_mitigation_mode", "defensive"),
        entry("client_keep_alive.seconds", "3600"),
        entry("waf.fail_open.enabled", "false"),
        entry("zonal_shift.config.enabled", "false"),
        entry("access_logs.s3.enabled", "false"),
        entry("access_logs.s3.bucket", ""),
        entry("access_logs.s3.prefix", ""),
        entry("connection_logs.s3.enabled", "false"),
        entry("connection_logs.s3.bucket", ""),
        entry("connection_logs.s3.prefix", ""),
        entry("health_check_logs.s3.enabled", "false"),
        entry("health_check_logs.s3.bucket", ""),
        entry("health_check_logs.s3.prefix", ""),
        entry("load_balancing.cross_zone.enabled", "true"),
        entry("fulcrum.target_connect_timeout_ms", "10000"));
  }

  @Test
  void connectionLogs_needABucket_checkedAsTheAccessLogsIs() {
    Problems problems = new Problems();
    LoadBalancerAttributes a = LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null,
        Map.of("connection_logs.s3.enabled", "true", "connection_logs.s3.bucket", "my-logs",
            "connection_logs.s3.prefix", "team", "waf.fail_open.enabled", "true"),
        problems);
    assertThat(problems.isEmpty()).isTrue();
    assertThat(a.connectionLogBucket()).isEqualTo("my-logs");
    assertThat(a.connectionLogPrefix()).isEqualTo("team");

    LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null, Map.of("connection_logs.s3.enabled", "true"),
        problems);
    LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null, Map.of("connection_logs.s3.bucket", "Bad_Bucket"),
        problems);
    assertThat(problems.list()).extracting(Object::toString).containsExactly(
        "connection_logs.s3.bucket: a bucket is required while connection_logs.s3.enabled is true",
        "connection_logs.s3.bucket: 'Bad_Bucket' is not valid (expected an S3 bucket name: 3-63 lowercase letters,"
            + " digits, dots and hyphens)");
    Problems none = new Problems();
    assertThat(LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null,
        Map.of("connection_logs.s3.bucket", "my-logs"), none).connectionLogBucket()).as("off").isNull();
  }

  @Test
  void healthCheckLogs_needABucket_checkedAsTheAccessLogsIs() {
    Problems ok = new Problems();
    LoadBalancerAttributes a = LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null,
        Map.of("health_check_logs.s3.enabled", "true", "health_check_logs.s3.bucket", "hc-logs",
            "health_check_logs.s3.prefix", "team/web"), ok);
    assertThat(ok.isEmpty()).isTrue();
    assertThat(a.healthCheckLogBucket()).isEqualTo("hc-logs");
    assertThat(a.healthCheckLogPrefix()).isEqualTo("team/web");
    assertThat(LoadBalancerAttributes.defaults(LoadBalancerType.APPLICATION).healthCheckLogBucket()).isNull();
    assertThat(LoadBalancerAttributes.defaults(LoadBalancerType.NETWORK).healthCheckLogBucket()).isNull();

    Problems problems = new Problems();
    LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null, Map.of("health_check_logs.s3.enabled", "true"),
        problems);
    LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null, Map.of("health_check_logs.s3.enabled", "true",
        "health_check_logs.s3.bucket", "../up"), problems);
    LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null, Map.of("health_check_logs.s3.prefix",
        "AWSLogs/x"), problems);
    assertThat(problems.list()).extracting(Object::toString).containsExactly(
        "health_check_logs.s3.bucket: a bucket is required while health_check_logs.s3.enabled is true",
        "health_check_logs.s3.bucket: '../up' is not valid (expected an S3 bucket name: 3-63 lowercase letters,"
            + " digits, dots and hyphens)",
        "health_check_logs.s3.prefix: 'AWSLogs/x' is not valid (expected a prefix that neither starts nor ends"
            + " with '/', without 'AWSLogs', '//', '\\' or spaces)");
  }

  @Test
  void accessLogs_needABucket_whoseNameAndPrefixStayInsideTheirDirectory() {
    Problems ok = new Problems();
    LoadBalancerAttributes a = LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null,
        Map.of("access_logs.s3.enabled", "true", "access_logs.s3.bucket", "my-logs.example", "access_logs.s3.prefix",
            "team/web-1"),
        ok);
    assertThat(ok.isEmpty()).isTrue();
    assertThat(a.accessLogBucket()).isEqualTo("my-logs.example");
    assertThat(a.accessLogPrefix()).isEqualTo("team/web-1");
    // Off: a bucket alone changes nothing.
    assertThat(LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null,
        Map.of("access_logs.s3.bucket", "my-logs"), ok).accessLogBucket()).isNull();
    assertThat(LoadBalancerAttributes.defaults(LoadBalancerType.NETWORK).accessLogBucket()).isNull();

    Map<Map<String, String>, String> refused = new java.util.LinkedHashMap<>();
    refused.put(Map.of("access_logs.s3.enabled", "true"),
        "access_logs.s3.bucket: a bucket is required while access_logs.s3.enabled is true");
    for (String bucket : List.of("ab", "My-Logs", "-logs", "logs-", "a..b", "../etc", "logs/x", "x".repeat(64))) {
      refused.put(Map.of("access_logs.s3.enabled", "true", "access_logs.s3.bucket", bucket),
          "access_logs.s3.bucket: '" + bucket + "' is not valid (expected an S3 bucket name: 3-63 lowercase letters,"
              + " digits, dots and hyphens)");
    }
    for (String prefix : List.of("/web", "web/", "a//b", "AWSLogs", "my AWSLogs", "a b", "a\\b", "tab\tx")) {
      refused.put(Map.of("access_logs.s3.bucket", "logs", "access_logs.s3.prefix", prefix),
          "access_logs.s3.prefix: '" + prefix + "' is not valid (expected a prefix that neither starts nor ends with"
              + " '/', without 'AWSLogs', '//', '\\' or spaces)");
    }
    for (String prefix : List.of("..", "a/../b", "./a", "a/.")) {
      refused.put(Map.of("access_logs.s3.bucket", "logs", "access_logs.s3.prefix", prefix),
          "access_logs.s3.prefix: '" + prefix + "' is not valid (expected a prefix without '.' or '..' segments)");
    }
    refused.forEach((given, message) -> {
      Problems problems = new Problems();
      assertThat(LoadBalancerAttributes.resolve(LoadBalancerType.APPLICATION, null, given, problems)).isNull();
      assertThat(problems.list()).extracting(Object::toString).as("%s", given).containsExactly(message);
    });
  }

  @Test
  void albDefaults_readThroughTheTypedAccessors() {
    LoadBalancerAttributes a = LoadBalancerAttributes.defaults(LoadBalancerType.APPLICATION);
    assertThat(a.idleTimeoutSeconds()).isEqualTo(60);
    assertThat(a.http2Enabled()).isTrue();
    assertThat(a.dropInvalidHeaders()).isFalse();
    assertThat(a.xffMode()).isEqualTo("append");
    assertThat(a.xffClientPort()).isFalse();
    assertThat(a.preserveHost()).isFalse();
    assertThat(a.clientKeepAliveSeconds()).isEqualTo(3600);
    assertThat(a.crossZone()).isTrue();
    assertThat(a.connectTimeoutMillis()).isEqualTo(10_000);
  }

  @Test
  void nlb_hasCrossZoneOffAndNoHttpKeys() {
    LoadBalancerAttributes a = LoadBalancerAttributes.defaults(LoadBalancerType.NETWORK);
    assertThat(a.asMap()).containsExactly(
        entry("deletion_protection.enabled", "false"),
        entry("access_logs.s3.enabled", "false"),
        entry("access_logs.s3.bucket", ""),
        entry("access_logs.s3.prefix", ""),
        entry("load_balancing.cross_zone.enabled", "false"),
        entry("dns_record.client_routing_policy", "any_availability_zone"),
        entry("fulcrum.target_connect_timeout_ms", "10000"));
    assertThat(a.crossZone()).isFalse();
    assertThat(a.idleTimeoutSeconds()).as("NLB's fixed TCP idle timeout").isEqualTo(350);
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "idle_timeout.timeout_seconds | 1",
      "idle_timeout.timeout_seconds | 4000",
      "client_keep_alive.seconds | 60",
      "client_keep_alive.seconds | 604800",
      "fulcrum.target_connect_timeout_ms | 1",
      "fulcrum.target_connect_timeout_ms | 10000",
      "routing.http.xff_header_processing.mode | preserve",
      "routing.http.xff_header_processing.mode | remove",
      "routing.http.desync_mitigation_mode | monitor",
      "routing.http.desync_mitigation_mode | strictest",
      "routing.http2.enabled | false",
      "deletion_protection.enabled | true"})
  void valueAtTheEdgeOfItsRange_isAccepted(String key, String value) {
    assertThat(ok(alb(key, value)).get(key)).isEqualTo(value);
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "idle_timeout.timeout_seconds | 0 | expected 1-4000",
      "idle_timeout.timeout_seconds | 4001 | expected 1-4000",
      "idle_timeout.timeout_seconds | 60s | expected an integer 1-4000",
      "client_keep_alive.seconds | 59 | expected 60-604800",
      "client_keep_alive.seconds | 604801 | expected 60-604800",
      "fulcrum.target_connect_timeout_ms | 0 | expected 1-10000",
      "fulcrum.target_connect_timeout_ms | 10001 | expected 1-10000",
      "routing.http.xff_header_processing.mode | drop | expected one of: append, preserve, remove",
      "routing.http.desync_mitigation_mode | strict | expected one of: monitor, defensive, strictest",
      "routing.http2.enabled | 1 | expected: true or false",
      "load_balancing.cross_zone.enabled | false | expected one of: true"})
  void invalidValue_isAValidationErrorAtItsKey(String key, String value, String expected) {
    rejected(alb(key, value), new Problem(key, VE, "'" + value + "' is not valid (" + expected + ")"));
  }

  @Test
  void unknownKey_andAKeyOfTheOtherType_areNotRecognized() {
    rejected(alb("idle_timeout.seconds", "60", "dns_record.client_routing_policy", "any_availability_zone"),
        new Problem("idle_timeout.seconds", VE, "Load balancer attribute key 'idle_timeout.seconds' is not recognized"),
        new Problem("dns_record.client_routing_policy", VE,
            "Load balancer attribute key 'dns_record.client_routing_policy' is not recognized"));
    rejected(resolve(LoadBalancerType.NETWORK, null, IDLE_TIMEOUT, "60"), new Problem(IDLE_TIMEOUT, VE,
        "Load balancer attribute key 'idle_timeout.timeout_seconds' is not recognized"));
  }

  @Test
  void resolveOverABase_keepsThePreviousValues() {
    LoadBalancerAttributes base = ok(alb(IDLE_TIMEOUT, "120", CONNECT_TIMEOUT_MS, "500"));
    LoadBalancerAttributes next = ok(resolve(LoadBalancerType.APPLICATION, base, CLIENT_KEEP_ALIVE, "600"));
    assertThat(next.idleTimeoutSeconds()).isEqualTo(120);
    assertThat(next.connectTimeoutMillis()).isEqualTo(500);
    assertThat(next.clientKeepAliveSeconds()).isEqualTo(600);
    assertThat(ok(resolve(LoadBalancerType.APPLICATION, next))).isEqualTo(next).hasSameHashCodeAs(next);
  }
}
