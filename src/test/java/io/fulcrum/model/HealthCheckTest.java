package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Health check defaults per kind (SPEC §1.2), ranges and cross-field rules (§1.3), matchers (§1.4). */
class HealthCheckTest {

  private static final String IC = Problem.INVALID_CONFIGURATION;
  private static final String VE = Problem.VALIDATION_ERROR;

  /** A mutable builder of {@link HealthCheck.Input}; every field starts as "not given". */
  static final class In {
    Boolean enabled;
    String protocol;
    String port;
    String path;
    Integer interval;
    Integer timeout;
    Integer healthy;
    Integer unhealthy;
    String httpCode;
    String grpcCode;

    In enabled(boolean v) {
      enabled = v;
      return this;
    }

    In protocol(String v) {
      protocol = v;
      return this;
    }

    In port(String v) {
      port = v;
      return this;
    }

    In path(String v) {
      path = v;
      return this;
    }

    In interval(int v) {
      interval = v;
      return this;
    }

    In timeout(int v) {
      timeout = v;
      return this;
    }

    In healthy(int v) {
      healthy = v;
      return this;
    }

    In unhealthy(int v) {
      unhealthy = v;
      return this;
    }

    In httpCode(String v) {
      httpCode = v;
      return this;
    }

    In grpcCode(String v) {
      grpcCode = v;
      return this;
    }

    HealthCheck.Input build() {
      return new HealthCheck.Input(enabled, protocol, port, path, interval, timeout, healthy, unhealthy, httpCode,
          grpcCode);
    }
  }

  private static In in() {
    return new In();
  }

  /** The outcome of one resolve: the settings (or null) and every problem recorded. */
  record Result(HealthCheck check, List<Problem> problems) {
  }

  private static Result resolve(In in, TargetType type, Protocol protocol, ProtocolVersion version) {
    Problems problems = new Problems();
    HealthCheck hc = HealthCheck.resolve(in.build(), type, protocol, version, problems);
    return new Result(hc, problems.list());
  }

  private static Result alb(In in) {
    return resolve(in, TargetType.IP, Protocol.HTTP, ProtocolVersion.HTTP1);
  }

  private static Result nlb(In in) {
    return resolve(in, TargetType.IP, Protocol.TCP, null);
  }

  private static Result albTarget(In in) {
    return resolve(in, TargetType.ALB, Protocol.TCP, null);
  }

  private static HealthCheck ok(Result r) {
    assertThat(r.problems()).isEmpty();
    assertThat(r.check()).isNotNull();
    return r.check();
  }

  private static void rejected(Result r, Problem... expected) {
    assertThat(r.problems()).containsExactly(expected);
    assertThat(r.check()).isNull();
  }

  private static CodeMatcher matcher(String text, int min, int max) {
    return CodeMatcher.parse(text, min, max, new Problems());
  }

  @Nested
  class Defaults {

    @Test
    void albIpHttp1_hasTheAlbDefaults() {
      HealthCheck hc = ok(alb(in()));
      assertThat(hc).isEqualTo(new HealthCheck(true, Protocol.HTTP, "traffic-port", "/", 30, 5, 5, 2,
          matcher("200", 200, 499), false));
      assertThat(hc.matcher().text()).isEqualTo("200");
    }

    @Test
    void albInstanceHttps_checksOverHttpByDefault_withTheAlbDefaults() {
      HealthCheck hc = ok(resolve(in(), TargetType.INSTANCE, Protocol.HTTPS, ProtocolVersion.HTTP1));
      assertThat(hc).isEqualTo(new HealthCheck(true, Protocol.HTTP, "traffic-port", "/", 30, 5, 5, 2,
          matcher("200", 200, 499), false));
    }

    @Test
    void albHttp2_usesTheHttpDefaults() {
      HealthCheck hc = ok(resolve(in(), TargetType.IP, Protocol.HTTPS, ProtocolVersion.HTTP2));
      assertThat(hc.path()).isEqualTo("/");
      assertThat(hc.matcher().text()).isEqualTo("200");
      assertThat(hc.grpc()).isFalse();
    }

    @Test
    void albGrpc_defaultsToTheAwsAlbHealthcheckPathAndGrpcCode12() {
      HealthCheck hc = ok(resolve(in(), TargetType.IP, Protocol.HTTPS, ProtocolVersion.GRPC));
      assertThat(hc).isEqualTo(new HealthCheck(true, Protocol.HTTP, "traffic-port", "/AWS.ALB/healthcheck", 30, 5,
          5, 2, matcher("12", 0, 99), true));
      assertThat(hc.matcher().text()).isEqualTo("12");
      assertThat(hc.matcher().matches(12)).isTrue();
      assertThat(hc.matcher().matches(0)).isFalse();
    }

    @Test
    void lambda_isDisabledWithInterval35Timeout30AndUnhealthyThreshold5() {
      HealthCheck hc = ok(resolve(in(), TargetType.LAMBDA, null, null));
      assertThat(hc.enabled()).isFalse();
      assertThat(hc.intervalSeconds()).isEqualTo(35);
      assertThat(hc.timeoutSeconds()).isEqualTo(30);
      assertThat(hc.healthyThreshold()).isEqualTo(5);
      assertThat(hc.unhealthyThreshold()).isEqualTo(5);
      assertThat(hc.path()).isEqualTo("/");
      assertThat(hc.matcher().text()).isEqualTo("200");
    }

    @Test
    void lambda_canEnableChecks() {
      assertThat(ok(resolve(in().enabled(true), TargetType.LAMBDA, null, null)).enabled()).isTrue();
    }

    @Test
    void nlbTcp_checksOverTcpWithTimeout10AndNoPathOrMatcher() {
      HealthCheck hc = ok(nlb(in()));
      assertThat(hc).isEqualTo(new HealthCheck(true, Protocol.TCP, "traffic-port", null, 30, 10, 5, 2, null, false));
    }

    @Test
    void nlb_httpCheck_hasTimeout6AndMatcher200to399() {
      HealthCheck hc = ok(nlb(in().protocol("HTTP")));
      assertThat(hc).isEqualTo(new HealthCheck(true, Protocol.HTTP, "traffic-port", "/", 30, 6, 5, 2,
          matcher("200-399", 200, 599), false));
      assertThat(hc.matcher().text()).isEqualTo("200-399");
    }

    @Test
    void nlb_httpsCheck_hasTimeout10AndMatcher200to399() {
      HealthCheck hc = ok(nlb(in().protocol("HTTPS")));
      assertThat(hc.protocol()).isEqualTo(Protocol.HTTPS);
      assertThat(hc.timeoutSeconds()).isEqualTo(10);
      assertThat(hc.matcher().text()).isEqualTo("200-399");
    }

    @ParameterizedTest
    @CsvSource({"UDP", "TLS", "TCP_UDP"})
    void nlbGroupsOfEveryProtocol_checkOverTcpByDefault(Protocol protocol) {
      HealthCheck hc = ok(resolve(in(), TargetType.IP, protocol, null));
      assertThat(hc.protocol()).isEqualTo(Protocol.TCP);
      assertThat(hc.timeoutSeconds()).isEqualTo(10);
    }

    @Test
    void geneve_checksTcpOnPort80EveryTenSecondsWithTimeout5() {
      HealthCheck hc = ok(resolve(in(), TargetType.IP, Protocol.GENEVE, null));
      assertThat(hc).isEqualTo(new HealthCheck(true, Protocol.TCP, "80", null, 10, 5, 5, 2, null, false));
    }

    @Test
    void geneve_httpCheck_requiresTheMatcher200to399() {
      assertThat(ok(resolve(in().protocol("HTTP"), TargetType.IP, Protocol.GENEVE, null)).matcher().text())
          .isEqualTo("200-399");
      rejected(resolve(in().protocol("HTTP").httpCode("200"), TargetType.IP, Protocol.GENEVE, null),
          new Problem("matcher.http-code", VE, "GENEVE target groups require the matcher 200-399"));
    }
  }

  @Nested
  class Ranges {

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "interval-seconds, 5",
        "interval-seconds, 300",
        "timeout-seconds, 2",
        "timeout-seconds, 120",
        "healthy-threshold-count, 2",
        "healthy-threshold-count, 10",
        "unhealthy-threshold-count, 2",
        "unhealthy-threshold-count, 10"})
    void valueAtTheEdgeOfItsRange_isAccepted(String key, int value) {
      HealthCheck hc = ok(alb(withValue(key, value)));
      int actual = switch (key) {
        case "interval-seconds" -> hc.intervalSeconds();
        case "timeout-seconds" -> hc.timeoutSeconds();
        case "healthy-threshold-count" -> hc.healthyThreshold();
        default -> hc.unhealthyThreshold();
      };
      assertThat(actual).isEqualTo(value);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "interval-seconds, 4, 4 is below the minimum 5",
        "interval-seconds, 301, 301 is above the maximum 300",
        "timeout-seconds, 1, 1 is below the minimum 2",
        "timeout-seconds, 121, 121 is above the maximum 120",
        "healthy-threshold-count, 1, 1 is below the minimum 2",
        "healthy-threshold-count, 11, 11 is above the maximum 10",
        "unhealthy-threshold-count, 1, 1 is below the minimum 2",
        "unhealthy-threshold-count, 11, 11 is above the maximum 10"})
    void valueOneBeyondItsRange_isRejectedNamingValueAndBound(String key, int value, String message) {
      rejected(alb(withValue(key, value)), new Problem(key, VE, message));
    }

    /** Sets one value, with the other of interval/timeout chosen so the pair itself is valid. */
    private In withValue(String key, int value) {
      return switch (key) {
        case "interval-seconds" -> in().interval(value).timeout(2);
        case "timeout-seconds" -> in().timeout(value).interval(300);
        case "healthy-threshold-count" -> in().healthy(value);
        default -> in().unhealthy(value);
      };
    }

    @ParameterizedTest
    @CsvSource({"traffic-port, 8081, 8081", "1, 8081, 1", "65535, 8081, 65535", "8080, 80, 8080"})
    void port_isTrafficPortOrANumber(String port, int trafficPort, int probed) {
      HealthCheck hc = ok(alb(in().port(port)));
      assertThat(hc.port()).isEqualTo(port);
      assertThat(hc.portFor(trafficPort)).isEqualTo(probed);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0|0 is below the minimum 1",
        "65536|65536 is above the maximum 65535",
        "http|'http' is not a port (expected: traffic-port or 1-65535)",
        "Traffic-Port|'Traffic-Port' is not a port (expected: traffic-port or 1-65535)"})
    void port_outsideTheRange_isRejected(String port, String message) {
      rejected(alb(in().port(port)), new Problem("port", VE, message));
    }

    @Test
    void lambda_rejectsAHealthCheckPort() {
      rejected(resolve(in().port("80"), TargetType.LAMBDA, null, null), new Problem("port", VE,
          "a health check port cannot be specified for target groups with target type 'lambda'"));
    }

    @Test
    void everyOutOfRangeValue_isReportedAtOnce() {
      Result r = alb(in().interval(301).timeout(121).healthy(11).unhealthy(1).port("0"));
      rejected(r,
          new Problem("port", VE, "0 is below the minimum 1"),
          new Problem("interval-seconds", VE, "301 is above the maximum 300"),
          new Problem("timeout-seconds", VE, "121 is above the maximum 120"),
          new Problem("healthy-threshold-count", VE, "11 is above the maximum 10"),
          new Problem("unhealthy-threshold-count", VE, "1 is below the minimum 2"));
    }
  }

  @Nested
  class TimeoutAgainstInterval {

    @Test
    void healthCheck_rejectsTimeoutEqualToInterval_forHttpGroups() {
      rejected(alb(in().interval(5).timeout(5)),
          new Problem("timeout-seconds", IC, "Health check timeout '5' must be smaller than the interval '5'"));
    }

    @Test
    void healthCheck_rejectsTimeoutEqualToInterval_forHttpsGroups() {
      rejected(resolve(in().interval(10).timeout(10), TargetType.INSTANCE, Protocol.HTTPS, ProtocolVersion.HTTP1),
          new Problem("timeout-seconds", IC, "Health check timeout '10' must be smaller than the interval '10'"));
    }

    @Test
    void healthCheck_rejectsTimeoutAboveInterval_forHttpGroups() {
      rejected(alb(in().interval(5).timeout(6)),
          new Problem("timeout-seconds", IC, "Health check timeout '6' must be smaller than the interval '5'"));
    }

    @Test
    void healthCheck_acceptsTimeoutOneBelowInterval_forHttpGroups() {
      HealthCheck hc = ok(alb(in().interval(5).timeout(4)));
      assertThat(hc.intervalSeconds()).isEqualTo(5);
      assertThat(hc.timeoutSeconds()).isEqualTo(4);
    }

    @Test
    void healthCheck_blamesTheDefaultTimeout_whenOnlyTheIntervalIsLowered() {
      rejected(alb(in().interval(5)),
          new Problem("timeout-seconds", IC, "Health check timeout '5' must be smaller than the interval '5'"));
    }

    @Test
    void healthCheck_acceptsTimeoutEqualToInterval_forTcpGroups() {
      HealthCheck hc = ok(nlb(in().interval(10).timeout(10)));
      assertThat(hc.timeoutSeconds()).isEqualTo(10);
    }

    @Test
    void healthCheck_acceptsTimeoutEqualToInterval_forTcpGroupsCheckedOverHttp() {
      assertThat(ok(nlb(in().protocol("HTTP").interval(6).timeout(6))).timeoutSeconds()).isEqualTo(6);
    }

    @Test
    void healthCheck_rejectsTimeoutAboveInterval_forTcpGroups_withTheOrEqualWording() {
      rejected(nlb(in().interval(10).timeout(11)), new Problem("timeout-seconds", IC,
          "Health check timeout '11' must be smaller than or equal to the interval '10'"));
    }

    @Test
    void healthCheck_doesNotCompareAgainstAnIntervalThatWasRejected() {
      // interval 4 is out of range, so the default interval 30 stands and timeout 5 fits it.
      rejected(alb(in().interval(4)), new Problem("interval-seconds", VE, "4 is below the minimum 5"));
    }
  }

  @Nested
  class ProtocolAndEnabled {

    @ParameterizedTest
    @CsvSource({"IP, ip", "INSTANCE, instance"})
    void healthCheck_cannotBeDisabled_forIpAndInstanceGroups(TargetType type, String wire) {
      rejected(resolve(in().enabled(false), type, Protocol.HTTP, ProtocolVersion.HTTP1), new Problem("enabled", IC,
          "health checks cannot be disabled for target groups with target type '" + wire + "'"));
    }

    @Test
    void healthCheck_cannotBeDisabled_forNlbGroups() {
      rejected(nlb(in().enabled(false)), new Problem("enabled", IC,
          "health checks cannot be disabled for target groups with target type 'ip'"));
    }

    @Test
    void enabledTrue_isAccepted_forIpGroups() {
      assertThat(ok(alb(in().enabled(true))).enabled()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"HTTP", "HTTPS"})
    void healthCheck_rejectsTcpChecks_forHttpFamilyGroups(Protocol group) {
      rejected(resolve(in().protocol("TCP"), TargetType.IP, group, ProtocolVersion.HTTP1), new Problem("protocol", IC,
          "TCP health checks are not supported for target groups with the " + group.wire()
              + " protocol (expected: HTTP or HTTPS)"));
    }

    @Test
    void albGroup_mayCheckOverHttps() {
      HealthCheck hc = ok(alb(in().protocol("HTTPS")));
      assertThat(hc.protocol()).isEqualTo(Protocol.HTTPS);
      assertThat(hc.timeoutSeconds()).isEqualTo(5);
    }

    @ParameterizedTest
    @CsvSource({"TLS", "UDP", "TCP_UDP", "GENEVE", "QUIC", "TCP_QUIC"})
    void healthCheckProtocolsOtherThanHttpHttpsTcp_areRejected(String protocol) {
      rejected(nlb(in().protocol(protocol)), new Problem("protocol", VE,
          "health checks over " + protocol + " are not supported (expected: HTTP, HTTPS or TCP)"));
    }

    @Test
    void healthCheckProtocol_mustBeSpelledAsAwsSpellsIt() {
      rejected(alb(in().protocol("http")), new Problem("protocol", VE,
          "'http' is not one of: HTTP, HTTPS, TCP, TLS, UDP, TCP_UDP, GENEVE, QUIC, TCP_QUIC"));
    }

    @Test
    void lambda_rejectsAnHttpsCheckProtocol() {
      rejected(resolve(in().protocol("HTTPS"), TargetType.LAMBDA, null, null), new Problem("protocol", IC,
          "lambda target groups are checked by invoking the function; the protocol cannot be set"));
    }
  }

  @Nested
  class Paths {

    @ParameterizedTest
    @CsvSource({"/health", "/health?verbose=1", "/a/b/c.html"})
    void httpPath_isAccepted(String path) {
      assertThat(ok(alb(in().path(path))).path()).isEqualTo(path);
    }

    @Test
    void httpPath_ofExactly1024Characters_isAccepted() {
      String path = "/" + "a".repeat(1023);
      assertThat(ok(alb(in().path(path))).path()).isEqualTo(path);
    }

    @Test
    void httpPath_of1025Characters_isRejected() {
      rejected(alb(in().path("/" + "a".repeat(1024))),
          new Problem("path", VE, "the path must be 1-1024 characters long"));
    }

    @Test
    void emptyPath_isRejected() {
      rejected(alb(in().path("")), new Problem("path", VE, "the path must be 1-1024 characters long"));
    }

    @Test
    void pathWithoutLeadingSlash_isRejected() {
      rejected(alb(in().path("health")), new Problem("path", VE, "'health' must start with '/'"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/he alth", "/health\t", "/x\u007f", "/a\nb"})
    void pathWithWhitespaceOrControlCharacters_isRejected(String path) {
      rejected(alb(in().path(path)),
          new Problem("path", VE, "'" + path + "' contains whitespace or control characters"));
    }

    @Test
    void grpcPath_mustNameAMethod() {
      assertThat(ok(resolve(in().path("/grpc.health.v1.Health/Check"), TargetType.IP, Protocol.HTTPS,
          ProtocolVersion.GRPC)).path()).isEqualTo("/grpc.health.v1.Health/Check");
      rejected(resolve(in().path("/health"), TargetType.IP, Protocol.HTTPS, ProtocolVersion.GRPC),
          new Problem("path", VE, "'/health' is not a gRPC method path (expected: /package.service/method)"));
    }

    @Test
    void tcpCheck_rejectsAPath() {
      rejected(nlb(in().path("/health")),
          new Problem("path", IC, "a health check path cannot be set for TCP health checks"));
    }
  }

  @Nested
  class Matchers {

    @Test
    void albMatcher_acceptsCodesUpTo499_andRejects500() {
      assertThat(ok(alb(in().httpCode("200-499"))).matcher().matches(499)).isTrue();
      rejected(alb(in().httpCode("200-500")), new Problem("matcher.http-code", VE,
          "'200-500' has a code outside 200-499 (expected codes 200-499 as a code, a list or a range,"
              + " e.g. \"200\", \"200,201\", \"200-499\")"));
    }

    @Test
    void nlbHttpMatcher_acceptsCodesUpTo599_andRejects600() {
      assertThat(ok(nlb(in().protocol("HTTP").httpCode("200-599"))).matcher().matches(599)).isTrue();
      rejected(nlb(in().protocol("HTTP").httpCode("600")), new Problem("matcher.http-code", VE,
          "'600' has a code outside 200-599 (expected codes 200-599 as a code, a list or a range,"
              + " e.g. \"200\", \"200,201\", \"200-599\")"));
    }

    @Test
    void grpcMatcher_accepts0to99_andRejects100() {
      HealthCheck hc = ok(resolve(in().grpcCode("0-99"), TargetType.IP, Protocol.HTTPS, ProtocolVersion.GRPC));
      assertThat(hc.grpc()).isTrue();
      assertThat(hc.matcher().matches(0)).isTrue();
      rejected(resolve(in().grpcCode("100"), TargetType.IP, Protocol.HTTPS, ProtocolVersion.GRPC),
          new Problem("matcher.grpc-code", VE, "'100' has a code outside 0-99 (expected codes 0-99 as a code,"
              + " a list or a range, e.g. \"0\", \"0,1\", \"0-99\")"));
    }

    @Test
    void grpcGroup_rejectsAnHttpCodeMatcher() {
      rejected(resolve(in().httpCode("200"), TargetType.IP, Protocol.HTTPS, ProtocolVersion.GRPC),
          new Problem("matcher.http-code", IC,
              "target groups with protocol version GRPC use a grpc-code matcher, not http-code"));
    }

    @Test
    void http1Group_rejectsAGrpcCodeMatcher() {
      rejected(alb(in().grpcCode("0")),
          new Problem("matcher.grpc-code", IC, "a grpc-code matcher needs protocol version GRPC"));
    }

    @Test
    void tcpCheck_rejectsAnHttpCodeMatcher() {
      rejected(nlb(in().httpCode("200")),
          new Problem("matcher.http-code", IC, "a matcher cannot be set for TCP health checks"));
    }

    @Test
    void mixedMatcher_isAcceptedAndKeptAsWritten() {
      HealthCheck hc = ok(alb(in().httpCode("200-299,302")));
      assertThat(hc.matcher().text()).isEqualTo("200-299,302");
      assertThat(hc.matcher().matches(302)).isTrue();
      assertThat(hc.matcher().matches(301)).isFalse();
    }
  }

  @Test
  void toInput_reproducesTheSameSettings() {
    HealthCheck http = ok(alb(in().protocol("HTTPS").port("8443").path("/ready").interval(10).timeout(3).healthy(3)
        .unhealthy(4).httpCode("200-299,302")));
    assertThat(ok(alb(toBuilder(http.toInput())))).isEqualTo(http);

    HealthCheck grpc = ok(resolve(in().grpcCode("0,12"), TargetType.IP, Protocol.HTTPS, ProtocolVersion.GRPC));
    assertThat(grpc.toInput().grpcCode()).isEqualTo("0,12");
    assertThat(grpc.toInput().httpCode()).isNull();
    assertThat(ok(resolve(toBuilder(grpc.toInput()), TargetType.IP, Protocol.HTTPS, ProtocolVersion.GRPC)))
        .isEqualTo(grpc);

    HealthCheck tcp = ok(nlb(in()));
    assertThat(tcp.toInput().httpCode()).isNull();
    assertThat(ok(nlb(toBuilder(tcp.toInput())))).isEqualTo(tcp);
  }

  private static In toBuilder(HealthCheck.Input i) {
    In b = in();
    b.enabled = i.enabled();
    b.protocol = i.protocol();
    b.port = i.port();
    b.path = i.path();
    b.interval = i.intervalSeconds();
    b.timeout = i.timeoutSeconds();
    b.healthy = i.healthyThreshold();
    b.unhealthy = i.unhealthyThreshold();
    b.httpCode = i.httpCode();
    b.grpcCode = i.grpcCode();
    return b;
  }

  /** Target groups of type alb: checked over HTTP or HTTPS through the ALB, some settings fixed (SPEC §1.2). */
  @Nested
  class AlbTargetType {

    private static final String FIXED = "target groups of type alb keep the default ";

    @Test
    void defaults_areNlbsForAnHttpCheck() {
      assertThat(ok(albTarget(in()))).isEqualTo(new HealthCheck(true, Protocol.HTTP, "traffic-port", "/", 30, 6, 5, 2,
          matcher("200-399", 200, 599), false));
      assertThat(ok(albTarget(in().protocol("HTTPS"))).timeoutSeconds()).isEqualTo(10);
    }

    @Test
    void pathPortIntervalAndHealthyThreshold_canBeSet() {
      assertThat(ok(albTarget(in().path("/ping").port("8080").interval(10).healthy(3))))
          .isEqualTo(new HealthCheck(true, Protocol.HTTP, "8080", "/ping", 10, 6, 3, 2, matcher("200-399", 200, 599),
              false));
    }

    @Test
    void theirDefaultsGivenAgain_areAccepted() {
      assertThat(ok(albTarget(in().timeout(6).unhealthy(2).httpCode("200-399")))).isEqualTo(ok(albTarget(in())));
      assertThat(ok(albTarget(in().protocol("HTTPS").timeout(10))).timeoutSeconds()).isEqualTo(10);
    }

    @Test
    void tcpChecks_timeoutUnhealthyThresholdAndCodes_areRefused() {
      rejected(albTarget(in().protocol("TCP")), new Problem("protocol", IC, "target groups of type alb are checked over"
          + " HTTP or HTTPS (the check goes through the application load balancer to its targets)"));
      rejected(albTarget(in().timeout(5)), new Problem("timeout-seconds", IC, FIXED + "timeout (6 s for HTTP checks)"));
      rejected(albTarget(in().protocol("HTTPS").timeout(6)), new Problem("timeout-seconds", IC,
          FIXED + "timeout (10 s for HTTPS checks)"));
      rejected(albTarget(in().unhealthy(3)), new Problem("unhealthy-threshold-count", IC, FIXED
          + "unhealthy threshold (2)"));
      rejected(albTarget(in().httpCode("200")), new Problem("matcher.http-code", IC, FIXED + "success codes (200-399)"));
    }
  }
}
