package io.fulcrum.config;

import static io.fulcrum.config.Configs.MINIMAL;
import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static io.fulcrum.config.Configs.problems;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Cidr;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Node;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The whole document: the demo file, defaults, the deployment keys, unknown keys and wrong types. */
class ConfigParserTest {

  private static final String TOP_LEVEL_KEYS = "region, account, nodes, vpc-cidrs, instances, functions, trust-stores, control, dns, credentials, resources,"
      + " data-dir, reload, shutdown, random-seed, cluster, jwks, oidc, demo, target-groups, load-balancers, certificates";

  @Test
  void demoFile_parsesWithNoProblems() throws IOException {
    FulcrumConfig config = parse(Files.readString(Path.of("conf", "fulcrum.yaml")));
    assertThat(config.environment().nodes()).containsExactly(new Node("zone-a", "127.0.0.1"),
        new Node("zone-b", "127.0.0.2"));
    assertThat(config.resources().targetGroups()).extracting(TargetGroup::name)
        .containsExactly("web", "api", "api-canary", "lambda");
    TargetGroup web = config.resources().targetGroups().get(0);
    assertThat(web.targets()).hasSize(8);
    assertThat(web.targets().get(4)).isEqualTo(new Target("127.0.0.2", 9201, "zone-b", "127.0.0.2", true));
    assertThat(web.healthCheck().intervalSeconds()).isEqualTo(5);
    assertThat(web.healthCheck().matcher().text()).isEqualTo("200-399");
    assertThat(web.attributes().deregistrationDelaySeconds()).isEqualTo(30);
    LoadBalancer demo = config.resources().loadBalancers().get(0);
    assertThat(demo.zones()).containsExactly("zone-a", "zone-b");
    assertThat(demo.listeners()).extracting(l -> l.protocol().wire() + " " + l.port())
        .containsExactly("HTTP 8080", "HTTPS 8443");
    assertThat(demo.listeners().get(1).certificates()).extracting(c -> c.selfSigned()).containsExactly(true);
    assertThat(config.source()).isEqualTo(FulcrumConfig.ResourceSource.API);
    assertThat(config.credentials().accessKeyId()).isEqualTo("AKIAFULCRUMDEMO00001");
    assertThat(demo.listeners().get(0).rules()).extracting(r -> r.priority()).containsExactly(10, 20, 30, 40);
    assertThat(config.environment().functions()).containsOnlyKeys("echo-event");
    assertThat(demo.listeners().get(0).h2c()).as("8080 takes cleartext HTTP/2 too").isTrue();
    assertThat(demo.listeners().get(1).sslPolicy()).isEqualTo("ELBSecurityPolicy-TLS13-1-2-2021-06");
    assertThat(config.demoTargets()).hasSize(8);
    assertThat(config.control()).isEqualTo(new FulcrumConfig.Control("127.0.0.1", 9090));
  }

  @Test
  void emptyDocument_givesTheDefaults() {
    FulcrumConfig config = parse("");
    assertThat(config.environment().region()).isEqualTo("us-east-1");
    assertThat(config.environment().account()).isEqualTo("000000000000");
    assertThat(config.environment().nodes()).containsExactly(new Node("zone-a", "127.0.0.1"));
    assertThat(config.environment().vpcCidrs()).containsExactly(Cidr.parse("127.0.0.0/8"), Cidr.parse("::1/128"));
    assertThat(config.environment().instances()).isEmpty();
    assertThat(config.control()).isEqualTo(new FulcrumConfig.Control("127.0.0.1", 9090));
    assertThat(config.source()).isEqualTo(FulcrumConfig.ResourceSource.CONFIG);
    assertThat(config.dataDir()).isEqualTo(Path.of("data"));
    assertThat(config.reload()).isEqualTo(new FulcrumConfig.Reload(true, 2000));
    assertThat(config.shutdownTimeoutSeconds()).isEqualTo(30);
    assertThat(config.randomSeed()).isEmpty();
    assertThat(config.demoTargets()).isEmpty();
    assertThat(config.resources().loadBalancers()).isEmpty();
    assertThat(config.resources().targetGroups()).isEmpty();
  }

  @Test
  void processSettings_areRead() {
    FulcrumConfig config = parse("""
        control: {address: 0.0.0.0, port: 0}
        data-dir: /var/lib/fulcrum
        reload: {enabled: false, scan-period-ms: 50}
        shutdown: {timeout-seconds: 0}
        random-seed: 42
        resources: {source: config}
        """);
    assertThat(config.control()).isEqualTo(new FulcrumConfig.Control("0.0.0.0", 0));
    assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/fulcrum"));
    assertThat(config.reload()).isEqualTo(new FulcrumConfig.Reload(false, 50));
    assertThat(config.shutdownTimeoutSeconds()).isZero();
    assertThat(config.randomSeed()).hasValue(42);
  }

  @Test
  void processSettings_outsideTheirRanges_areRejected() {
    assertThat(messages("""
        control: {address: localhost, port: 65536}
        reload: {scan-period-ms: 49}
        shutdown: {timeout-seconds: 3601}
        resources: {source: file}
        """)).containsExactly(
            "control.address: 'localhost' is not an IP address",
            "control.port: 65536 is above the maximum 65535",
            "resources.source: 'file' is not one of: config, api",
            "reload.scan-period-ms: 49 is below the minimum 50",
            "shutdown.timeout-seconds: 3601 is above the maximum 3600");
  }

  @Test
  void apiResourceSource_isAccepted() {
    assertThat(parse("resources: {source: api}").source()).isEqualTo(FulcrumConfig.ResourceSource.API);
  }

  @ParameterizedTest
  @ValueSource(strings = {"us-east-1", "eu-central-1", "us-gov-west-1", "ap-southeast-2", "cn-north-1"})
  void regionName_isAccepted(String region) {
    assertThat(parse("region: " + region).environment().region()).isEqualTo(region);
  }

  @ParameterizedTest
  @ValueSource(strings = {"US-EAST-1", "useast1", "us-east", "us-east-1a", "'us east 1'"})
  void badRegion_isRejected(String region) {
    String text = region.replace("'", "");
    assertThat(messages("region: " + region))
        .containsExactly("region: '" + text + "' is not a region name (expected e.g. us-east-1)");
  }

  @ParameterizedTest(name = "account: {0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "'\"000000000010\"' | 000000000010",
      "123456789012 | 123456789012",
      "000000000000 | 000000000000",
      "000000000010 | 000000000010",
      "012345670123 | 012345670123",
      "012345678901 | 012345678901",
      "000000000007 | 000000000007"})
  void accountId_keepsItsLeadingZeros_quotedOrNot(String yamlValue, String account) {
    assertThat(parse("account: " + yamlValue).environment().account()).isEqualTo(account);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "'\"12345678901a\"' | 12345678901a",
      "1234567890123 | 1234567890123",
      "'\"00000000001\"' | 00000000001",
      "'\"\"' | ''",
      "-1 | -1"})
  void badAccount_isRejected(String yamlValue, String shown) {
    assertThat(messages("account: " + yamlValue))
        .containsExactly("account: '" + shown + "' is not an account id (expected 12 digits)");
  }

  @Test
  void nodes_areReadInOrder_andGiveTheZones() {
    FulcrumConfig config = parse("""
        nodes:
          - {zone: zone-b, address: 127.0.0.2}
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-a, address: "::1"}
        """);
    assertThat(config.environment().zones()).containsExactly("zone-b", "zone-a");
  }

  @Test
  void badNodes_areRejectedEachAtItsPath() {
    assertThat(messages("""
        nodes:
          - {zone: zone-a, address: 127.0.0.300}
          - {zone: Zone_B, address: localhost}
          - {zone: all, address: 127.0.0.1}
          - {address: 127.0.0.1}
          - {zone: zone-c}
        """)).containsExactly(
            "nodes[0].address: '127.0.0.300' is not an IP address",
            "nodes[1].zone: 'Zone_B' is not a zone name (expected lower-case letters, digits and hyphens, not 'all')",
            "nodes[1].address: 'localhost' is not an IP address",
            "nodes[2].zone: 'all' is not a zone name (expected lower-case letters, digits and hyphens, not 'all')",
            "nodes[3].zone: a zone is required (e.g. zone-a)",
            "nodes[3].address: '127.0.0.1' is used by another node",
            "nodes[4].address: an address is required (e.g. 127.0.0.1)");
  }

  @Test
  void emptyNodeList_isRejected() {
    assertThat(messages("nodes: []"))
        .containsExactly("nodes: at least one node is required (expected e.g. [{zone: zone-a, address: 127.0.0.1}])");
  }

  @Test
  void vpcCidrs_replaceTheDefaults_andBadOnesAreRejected() {
    assertThat(parse("vpc-cidrs: [10.0.0.0/16, '2001:db8::/32']").environment().vpcCidrs())
        .containsExactly(Cidr.parse("10.0.0.0/16"), Cidr.parse("2001:db8::/32"));
    assertThat(messages("vpc-cidrs: [10.0.0.0/16, 10.0.0.0/33, ten]")).containsExactly(
        "vpc-cidrs[1]: '10.0.0.0/33' has an invalid prefix length (expected 0-32)",
        "vpc-cidrs[2]: 'ten' is not a CIDR block (expected e.g. 10.0.0.0/8 or 2001:db8::/32)");
  }

  @Test
  void demoTargets_areCheckedForIdPortAndClashes() {
    assertThat(messages("""
        demo:
          targets:
            - {id: a, port: 9101}
            - {id: b, port: 9101}
            - {port: 9102, address: host}
            - {id: c}
            - {id: d, port: 0}
          target: []
        """)).containsExactly(
            "demo.targets[1].port: 127.0.0.1:9101 is used by another demo target",
            "demo.targets[2].id: an id is required (the demo target answers with it)",
            "demo.targets[2].address: 'host' is not an IP address",
            "demo.targets[3].port: a port is required",
            "demo.targets[4].port: 0 is below the minimum 1",
            "demo.target: unknown key (expected one of: targets)");
  }

  @Test
  void unknownTopLevelKey_isReportedWithTheKeysThatWereExpected() {
    assertThat(messages("regoin: us-east-1\n")).containsExactly("regoin: unknown key (expected one of: "
        + TOP_LEVEL_KEYS + ")");
  }

  @Test
  void unknownKeys_areReportedAtEveryDepth() {
    assertThat(messages("""
        control: {address: 127.0.0.1, prot: 9090}
        nodes: [{zone: zone-a, address: 127.0.0.1, adress: 127.0.0.1}]
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            helth-check: {}
            health-check:
              intervl-seconds: 10
              matcher: {httpcode: "200"}
            targets: [{id: 10.0.0.1, zone: all, weight: 1}]
        load-balancers:
          - name: demo
            listeners:
              - protocol: HTTP
                port: 8080
                default-actions: [{type: forward, target-group: web}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, value: ["/a"], values: ["/a"]}]
                    actions: [{type: fixed-response, status-code: 200, body: x}]
        """)).containsExactly(
            "nodes[0].adress: unknown key (expected one of: zone, address)",
            "control.prot: unknown key (expected one of: address, port)",
            "target-groups[0].health-check.matcher.httpcode: unknown key (expected one of: http-code, grpc-code)",
            "target-groups[0].health-check.intervl-seconds: unknown key (expected one of: matcher, enabled,"
                + " protocol, port, path, interval-seconds, timeout-seconds, healthy-threshold-count,"
                + " unhealthy-threshold-count)",
            "target-groups[0].targets[0].weight: unknown key (expected one of: id, port, zone)",
            "target-groups[0].helth-check: unknown key (expected one of: name, target-type, protocol, port,"
                + " protocol-version, ip-address-type, target-control-port, health-check, attributes, targets)",
            "load-balancers[0].listeners[0].rules[0].conditions[0].value: unknown key (expected one of: field,"
                + " regex-values, values)",
            "load-balancers[0].listeners[0].rules[0].actions[0].body: unknown key (expected one of: type,"
                + " status-code, content-type, message-body)");
  }

  @Test
  void wrongTypes_areReportedWithWhatWasFound() {
    assertThat(messages("""
        region: [us-east-1]
        control: {port: abc}
        reload: {enabled: maybe}
        vpc-cidrs: 10.0.0.0/8
        shutdown: 30
        random-seed: seed
        """)).containsExactly(
            "region: expected a string, found a list",
            "vpc-cidrs: expected a list, found '10.0.0.0/8'",
            "control.port: expected an integer, found 'abc'",
            "reload.enabled: expected true or false, found 'maybe'",
            "shutdown: expected an object (key: value lines), found 30",
            "random-seed: expected an integer, found 'seed'");
  }

  @Test
  void wrongTypes_insideLists_areReportedAtTheElement() {
    assertThat(messages("""
        nodes: [zone-a]
        target-groups: [web]
        load-balancers:
          - name: demo
            zones: [[zone-a]]
            listeners: {protocol: HTTP}
        """)).containsExactly(
            "nodes[0]: expected an object, found 'zone-a'",
            "nodes: at least one node is required (expected e.g. [{zone: zone-a, address: 127.0.0.1}])",
            "target-groups[0]: expected an object, found 'web'",
            "load-balancers[0].zones[0]: expected a string, found a list",
            "load-balancers[0].zones: at least one zone is required",
            "load-balancers[0].listeners: expected a list, found an object");
  }

  @Test
  void configWithSeveralProblems_reportsAllOfThem() {
    List<Problem> problems = problems("""
        region: mars-1
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.1}
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {interval-seconds: 301, timeout-seconds: 1}
            attributes: {slow_start.duration_seconds: 10}
            targets: [{id: 8.8.8.8}]
          - name: web
            protocol: HTTP
        load-balancers:
          - name: demo
            listeners:
              - protocol: HTTP
                port: 8080
                default-actions: [{type: forward, target-group: nope}]
        """);
    assertThat(problems).containsExactly(
        new Problem("region", "ValidationError", "'mars-1' is not a region name (expected e.g. us-east-1)"),
        new Problem("nodes[1].address", "ValidationError", "'127.0.0.1' is used by another node"),
        new Problem("target-groups[0].health-check.interval-seconds", "ValidationError",
            "301 is above the maximum 300"),
        new Problem("target-groups[0].health-check.timeout-seconds", "ValidationError", "1 is below the minimum 2"),
        new Problem("target-groups[0].attributes.slow_start.duration_seconds", "ValidationError",
            "'10' is not valid (expected 0 (off) or 30-900)"),
        new Problem("target-groups[0].targets[0].id", "InvalidTarget", "The IP address '8.8.8.8' is publicly"
            + " routable and cannot be registered (expected: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16,"
            + " 100.64.0.0/10 or one of the VPC CIDRs 127.0.0.0/8, ::1/128)"),
        new Problem("target-groups[1].name", "ValidationError", "a target group named 'web' is already defined"),
        new Problem("target-groups[1].port", "ValidationError", "A port must be specified"),
        new Problem("load-balancers[0].listeners[0].default-actions[0].target-group", "TargetGroupNotFound",
            "Target group 'nope' not found (not defined in target-groups)"));
  }

  @Test
  void minimalConfig_parses() {
    FulcrumConfig config = parse(MINIMAL);
    assertThat(config.resources().targetGroups()).hasSize(1);
    assertThat(config.resources().loadBalancers().get(0).dnsName()).isEqualTo("demo.us-east-1.elb.localhost");
    assertThat(config.resources().targetGroups().get(0).arn())
        .matches("arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/web/[0-9a-f]{16}");
  }

  @Test
  void arns_areStableAcrossParses_andFollowRegionAndAccount() {
    String a = parse(MINIMAL).resources().targetGroups().get(0).arn();
    assertThat(parse(MINIMAL).resources().targetGroups().get(0).arn()).isEqualTo(a);
    String other = parse("region: eu-west-1\naccount: \"123456789012\"\n" + MINIMAL)
        .resources().targetGroups().get(0).arn();
    assertThat(other).startsWith("arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web/");
  }
}
