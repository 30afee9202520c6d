package io.fulcrum.config;

import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static io.fulcrum.config.Configs.problems;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.FunctionDefinition;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The function registry ({@code functions:}) and lambda target groups in the config file: what is
 * read, and each rule of SPEC §1.2, §3.2 and §6 with the message at its key.
 */
class ConfigParserLambdaTest {

  private static final String TG = "target-groups[0].";

  /** A registry with {@code echo} and a lambda group {@code fn} whose lines are given, used by a listener. */
  private static String lambdaGroup(String groupLines) {
    return """
        functions:
          echo: {handler: io.fulcrum.demo.EchoEventFunction}
        target-groups:
          - name: fn
            target-type: lambda
        """ + Configs.indent(groupLines, "    ") + """
        load-balancers:
          - name: demo
            listeners:
              - {protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: fn}]}
        """;
  }

  private static String functions(String lines) {
    return "functions:\n" + Configs.indent(lines, "  ");
  }

  @Test
  void lambdaGroup_isReadWithTheLambdaDefaults() {
    FulcrumConfig config = parse(lambdaGroup("targets: [{id: echo}]\n"));
    TargetGroup g = config.resources().targetGroupByName("fn").orElseThrow();

    assertThat(g.targetType()).isEqualTo(TargetType.LAMBDA);
    assertThat(g.protocol()).isNull();
    assertThat(g.port()).isNull();
    assertThat(g.protocolVersion()).isNull();
    assertThat(g.targets()).containsExactly(new Target("echo", 0, "all", null, false));
    HealthCheck hc = g.healthCheck();
    assertThat(hc.enabled()).isFalse();
    assertThat(hc.intervalSeconds()).isEqualTo(35);
    assertThat(hc.timeoutSeconds()).isEqualTo(30);
    assertThat(hc.healthyThreshold()).isEqualTo(5);
    assertThat(hc.unhealthyThreshold()).isEqualTo(5);
    assertThat(hc.path()).isEqualTo("/");
    assertThat(hc.matcher().text()).isEqualTo("200");
    assertThat(g.attributes().asMap()).containsExactly(Map.entry("stickiness.enabled", "false"),
        Map.entry("stickiness.type", "lb_cookie"), Map.entry("stickiness.lb_cookie.duration_seconds", "86400"),
        Map.entry("lambda.multi_value_headers.enabled", "false"));
  }

  @Test
  void lambdaGroup_takesHealthChecksAndMultiValueHeaders() {
    TargetGroup g = parse(lambdaGroup("""
        health-check: {enabled: true, interval-seconds: 10, timeout-seconds: 5, path: /ping, matcher: {http-code: "200-299"}}
        attributes: {lambda.multi_value_headers.enabled: true}
        targets: [{id: echo, zone: all}]
        """)).resources().targetGroupByName("fn").orElseThrow();

    assertThat(g.healthCheck().enabled()).isTrue();
    assertThat(g.healthCheck().path()).isEqualTo("/ping");
    assertThat(g.attributes().multiValueHeaders()).isTrue();
    assertThat(g.targets().get(0).zoneGiven()).isTrue();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "protocol: HTTP | protocol: Protocol cannot be specified for target groups with target type 'lambda'",
      "port: 80 | port: Port cannot be specified for target groups with target type 'lambda'",
      "vpc-id: vpc-1234 | vpc-id: VPC ID cannot be specified for target groups with target type 'lambda'",
      "protocol-version: HTTP2 | protocol-version: Protocol version cannot be specified for target groups with target"
          + " type 'lambda' (HTTP2 and GRPC protocol versions do not support Lambda functions)",
      "protocol-version: GRPC | protocol-version: Protocol version cannot be specified for target groups with target"
          + " type 'lambda' (HTTP2 and GRPC protocol versions do not support Lambda functions)",
      "ip-address-type: ipv6 | ip-address-type: Lambda functions cannot be registered with a target group of IP address"
          + " type ipv6",
      "'health-check: {port: \"80\"}' | health-check.port: a health check port cannot be specified for target groups"
          + " with target type 'lambda'",
      "'attributes: {deregistration_delay.timeout_seconds: \"30\"}' | attributes.deregistration_delay.timeout_seconds:"
          + " A target group with target type 'lambda' does not support the attribute deregistration_delay.timeout_seconds",
      "'attributes: {target_group_health.dns_failover.minimum_healthy_targets.count: \"1\"}' | attributes."
          + "target_group_health.dns_failover.minimum_healthy_targets.count: Target group health settings are not"
          + " supported for target groups with target type 'lambda'",
      "'attributes: {load_balancing.algorithm.type: round_robin}' | attributes.load_balancing.algorithm.type: Target"
          + " group attribute key 'load_balancing.algorithm.type' is not recognized",
      "'attributes: {load_balancing.cross_zone.enabled: \"false\"}' | attributes.load_balancing.cross_zone.enabled:"
          + " Target group attribute key 'load_balancing.cross_zone.enabled' is not recognized"})
  void settingThatLambdaGroupsDoNotHave_isRejectedAtItsKey(String line, String message) {
    assertThat(messages(lambdaGroup(line + "\ntargets: [{id: echo}]\n"))).containsExactly(TG + message);
  }

  @Test
  void lambdaGroupHealthThresholdsAndRemovedDelay_areInvalidConfiguration() {
    assertThat(problems(lambdaGroup("""
        attributes: {deregistration_delay.timeout_seconds: "0", target_group_health.unhealthy_state_routing.minimum_healthy_targets.count: "1"}
        """))).extracting(Problem::code).containsOnly(Problem.INVALID_CONFIGURATION);
  }

  @Test
  void lambdaGroup_hasOneFunction() {
    String yaml = lambdaGroup("targets: [{id: echo}, {id: other}]\n").replace("""
          echo: {handler: io.fulcrum.demo.EchoEventFunction}
        """, """
          echo: {handler: io.fulcrum.demo.EchoEventFunction}
          other: {handler: io.fulcrum.demo.EchoEventFunction}
        """);
    assertThat(problems(yaml)).extracting(Problem::toString)
        .containsExactly(TG + "targets: a lambda target group has one function; 2 are registered");
    assertThat(problems(yaml).get(0).code()).isEqualTo("TooManyTargets");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{id: nothing} | targets[0].id: The specified target does not exist ('nothing' is not in the function registry;"
          + " expected one of: echo)",
      "{id: 'arn:aws:lambda:eu-west-1:000000000000:function:echo'} | targets[0].id: The Lambda function"
          + " 'arn:aws:lambda:eu-west-1:000000000000:function:echo' must be in the same account and Region as the target"
          + " group (000000000000, us-east-1)",
      "{id: 'not a name'} | targets[0].id: 'not a name' is not a function name or ARN (expected e.g. my-function or"
          + " arn:aws:lambda:us-east-1:000000000000:function:my-function)",
      "{id: echo, port: 80} | targets[0].port: a port cannot be specified for lambda targets",
      "{id: echo, zone: zone-a} | targets[0].zone: the Availability Zone of a lambda target can only be 'all'"})
  void lambdaTarget_mustNameAFunctionOfTheRegistry(String target, String message) {
    assertThat(messages(lambdaGroup("targets: [" + target + "]\n"))).containsExactly(TG + message);
  }

  @Test
  void lambdaTarget_mayBeTheFunctionsArn_withAQualifier() {
    TargetGroup g = parse(lambdaGroup("targets: [{id: 'arn:aws:lambda:us-east-1:000000000000:function:echo:live'}]\n"))
        .resources().targetGroupByName("fn").orElseThrow();

    assertThat(g.targets().get(0).id()).isEqualTo("arn:aws:lambda:us-east-1:000000000000:function:echo:live");
    assertThat(FunctionDefinition.nameOf(g.targets().get(0).id())).isEqualTo("echo");
    assertThat(FunctionDefinition.qualifierOf(g.targets().get(0).id())).isEqualTo("live");
  }

  @Test
  void registry_readsInProcessAndRemoteFunctions_withLambdasDefaults(@TempDir Path dir) throws IOException {
    Path jar = Files.write(dir.resolve("orders.jar"), new byte[] {0x50, 0x4b, 5, 6});
    FulcrumConfig config = parse(functions("""
        echo: {handler: io.fulcrum.demo.EchoEventFunction}
        orders: {handler: "com.example.Orders::handleRequest", jar: "%s", timeout-seconds: 10, memory-size: 512, reserved-concurrency: 4}
        remote: {endpoint: "http://127.0.0.1:9001/", function-name: function, timeout-seconds: 2}
        bare: {endpoint: "https://lambda.local"}
        """.formatted(jar)));

    assertThat(config.environment().functions()).containsOnly(
        Map.entry("echo", new FunctionDefinition.InProcess("echo", "io.fulcrum.demo.EchoEventFunction", null, 3, 128, 0)),
        Map.entry("orders", new FunctionDefinition.InProcess("orders", "com.example.Orders::handleRequest",
            jar.toString(), 10, 512, 4)),
        Map.entry("remote", new FunctionDefinition.Remote("remote", "http://127.0.0.1:9001", "function", 2)),
        Map.entry("bare", new FunctionDefinition.Remote("bare", "https://lambda.local", "bare", 3)));
    assertThat(((FunctionDefinition.InProcess) config.environment().functions().get("orders")).handlerClass())
        .isEqualTo("com.example.Orders");
  }

  @Test
  void remoteFunction_withSigning_keepsItsCredentials_butNeverPrintsTheSecret() {
    FulcrumConfig config = parse(functions("""
        aws: {endpoint: "https://lambda.eu-west-3.amazonaws.com", function-name: orders,
              signing: {region: eu-west-3, access-key-id: AKIAEXAMPLE, secret-access-key: "s3cr3t/key",
                        session-token: TOKENVALUE}}
        """));

    FunctionDefinition.Remote aws = (FunctionDefinition.Remote) config.environment().functions().get("aws");
    assertThat(aws.signing())
        .isEqualTo(new FunctionDefinition.Signing("eu-west-3", "AKIAEXAMPLE", "s3cr3t/key", "TOKENVALUE"));
    assertThat(aws.toString()).contains("eu-west-3", "AKIAEXAMPLE").doesNotContain("s3cr3t", "TOKENVALUE");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "'bad name!': {handler: a.B} | functions.bad name!: 'bad name!' is not a function name (expected 1-64 letters,"
          + " digits, hyphens and underscores)",
      "f: {handler: a.B, endpoint: 'http://x'} | functions.f: a function has either a handler (in-process) or an"
          + " endpoint (the Lambda Invoke API), not both",
      "f: {timeout-seconds: 3} | functions.f: a function needs a handler (a Java class, e.g. com.example.Handler) or"
          + " an endpoint (the Lambda Invoke API, e.g. http://127.0.0.1:9001)",
      "f: {handler: 'com.example.Handler::run'} | functions.f.handler: 'com.example.Handler::run' is not a class name"
          + " (expected e.g. com.example.Handler or com.example.Handler::handleRequest)",
      "f: {handler: a.B, jar: /no/such.jar} | functions.f.jar: '/no/such.jar' is not a file (expected the path of a"
          + " jar holding the handler)",
      "f: {handler: a.B, timeout-seconds: 901} | functions.f.timeout-seconds: 901 is above the maximum 900",
      "f: {handler: a.B, timeout-seconds: 0} | functions.f.timeout-seconds: 0 is below the minimum 1",
      "f: {handler: a.B, memory-size: 64} | functions.f.memory-size: 64 is below the minimum 128",
      "f: {endpoint: 'ftp://x'} | functions.f.endpoint: 'ftp://x' is not an http or https base URL (expected e.g."
          + " http://127.0.0.1:9001)",
      "f: {endpoint: 'http://x', jar: a.jar} | functions.f.jar: unknown key (expected one of: handler, endpoint,"
          + " timeout-seconds, function-name, signing)",
      "f: {endpoint: 'http://x', signing: {access-key-id: A, secret-access-key: S}} | functions.f.signing.region:"
          + " missing (expected the region of the credential scope, e.g. us-east-1)",
      "f: {endpoint: 'http://x', signing: {region: Europe, access-key-id: A, secret-access-key: S}}"
          + " | functions.f.signing.region: 'Europe' is not a region (expected the region of the credential scope,"
          + " e.g. us-east-1)",
      "f: {endpoint: 'http://x', signing: {region: us-east-1, secret-access-key: S}}"
          + " | functions.f.signing.access-key-id: missing (expected the access key id to sign invocations with)",
      "f: {endpoint: 'http://x', signing: {region: us-east-1, access-key-id: A}}"
          + " | functions.f.signing.secret-access-key: missing (expected the secret access key to sign invocations"
          + " with)",
      "f: {endpoint: 'http://x', signing: {region: us-east-1, access-key-id: A, secret-access-key: S, role: r}}"
          + " | functions.f.signing.role: unknown key (expected one of: region, access-key-id, secret-access-key,"
          + " session-token)",
      "f: {endpoint: 'http://x', function-name: 'a/b'} | functions.f.function-name: 'a/b' is not a function name"
          + " (expected 1-64 letters, digits, hyphens and underscores)"})
  void badFunction_isRejectedAtItsKey(String entry, String message) {
    assertThat(messages(functions(entry + "\n"))).containsExactly(message);
  }
}
