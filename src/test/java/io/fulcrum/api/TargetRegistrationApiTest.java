package io.fulcrum.api;

import static io.fulcrum.api.ApiGateway.assertAwsError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetDescription;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetHealthDescription;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * RegisterTargets and DeregisterTargets through the real AWS SDK: AWS's IP, instance and zone
 * rules, re-registration, port overrides, quotas, IP targets still draining, and 50 concurrent
 * registrations that all land.
 */
class TargetRegistrationApiTest {

  @TempDir
  Path data;

  private ApiGateway api;
  private String arn;

  @BeforeEach
  void start() {
    api = ApiGateway.start(data);
    arn = api.createIpGroup("ips");
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private static TargetDescription target(String id, Integer port) {
    return TargetDescription.builder().id(id).port(port).build();
  }

  private List<String> registered(String groupArn) {
    return api.elb.describeTargetHealth(b -> b.targetGroupArn(groupArn)).targetHealthDescriptions().stream()
        .filter(d -> !d.targetHealth().stateAsString().equals("draining"))
        .map(d -> d.target().id() + ":" + d.target().port()).toList();
  }

  private void refused(String groupArn, String code, String message, TargetDescription... targets) {
    List<String> before = registered(groupArn);
    assertAwsError(() -> api.elb.registerTargets(b -> b.targetGroupArn(groupArn).targets(targets)), code, message);
    assertThat(registered(groupArn)).isEqualTo(before);
  }

  @Test
  void privateAndVpcAddresses_register_withPortOverrides() {
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", null), target("172.16.3.4", 8080),
        target("192.168.1.1", null), target("100.64.0.1", null), target("127.0.0.1", 9001), target("127.0.0.1", 9002)));

    assertThat(registered(arn)).containsExactly("10.0.0.5:80", "172.16.3.4:8080", "192.168.1.1:80", "100.64.0.1:80",
        "127.0.0.1:9001", "127.0.0.1:9002");
    assertThat(api.gateway.fulcrum().registry().resources().targetGroup(arn).orElseThrow().targets()).hasSize(6);
  }

  @Test
  void publicAddresses_areInvalidTarget_andNothingOfTheBatchIsRegistered() {
    refused(arn, "InvalidTarget", "The IP address '8.8.8.8' is publicly routable and cannot be registered (expected:"
        + " 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 or one of the VPC CIDRs 127.0.0.0/8, ::1/128)",
        target("10.0.0.5", null), target("8.8.8.8", null));
    assertThat(registered(arn)).isEmpty();
  }

  @Test
  void ipTargets_mustBeAddresses_inTheZonesOfTheDeployment() {
    refused(arn, "ValidationError", "'web-1' is not an IP address (target type ip)", target("web-1", null));
    refused(arn, "ValidationError", "'us-east-1a' is not a zone of this deployment (expected: all or one of zone-a,"
        + " zone-b)", TargetDescription.builder().id("10.0.0.1").availabilityZone("us-east-1a").build());
    refused(arn, "ValidationError", "1 validation error detected: Value '0' at 'targets.2.member.port' failed to"
        + " satisfy constraint: Member must have value greater than or equal to 1", target("10.0.0.1", 80),
        target("10.0.0.2", 0));

    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(
        TargetDescription.builder().id("10.0.0.1").availabilityZone("zone-b").build()));
    assertThat(api.elb.describeTargetHealth(b -> b.targetGroupArn(arn)).targetHealthDescriptions().get(0).target()
        .availabilityZone()).isEqualTo("zone-b");
  }

  @Test
  void instanceTargets_mustBeRunningInstancesOfTheInventory() {
    String instances = api.elb.createTargetGroup(b -> b.name("vms").protocol("HTTP").port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.INSTANCE)).targetGroups().get(0).targetGroupArn();

    refused(instances, "ValidationError", "Instance ID '10.0.0.1' is not valid", target("10.0.0.1", null));
    refused(instances, "InvalidTarget", "The specified target does not exist or is not in the same VPC as the target"
        + " group. ('i-00000000000000000' is not in the instance inventory)", target("i-00000000000000000", null));
    refused(instances, "InvalidTarget", "The following targets are not in a running state and cannot be registered:"
        + " 'i-0fedcba9876543210'", target("i-0fedcba9876543210", null));
    refused(instances, "ValidationError", "an Availability Zone cannot be specified for instance targets; it comes from"
        + " the instance", TargetDescription.builder().id("i-0123456789abcdef0").availabilityZone("zone-a").build());

    api.elb.registerTargets(b -> b.targetGroupArn(instances).targets(target("i-0123456789abcdef0", 8080)));
    assertThat(registered(instances)).containsExactly("i-0123456789abcdef0:8080");
  }

  @Test
  void registeringARegisteredTargetAgain_isHarmless() {
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", null)));
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", null), target("10.0.0.5", 80)));

    assertThat(registered(arn)).containsExactly("10.0.0.5:80");
  }

  /** Registered again without a zone, a target keeps the one it has; with another zone, it moves there. */
  @Test
  void registeringARegisteredTargetAgain_keepsItsZone_unlessAnotherIsGiven() {
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(
        TargetDescription.builder().id("10.0.0.6").port(80).availabilityZone("zone-b").build()));
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.6", 80)));
    assertThat(zoneOf(arn, "10.0.0.6")).isEqualTo("zone-b");

    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(
        TargetDescription.builder().id("10.0.0.6").port(80).availabilityZone("zone-a").build()));
    assertThat(zoneOf(arn, "10.0.0.6")).isEqualTo("zone-a");
  }

  private String zoneOf(String group, String id) {
    return api.elb.describeTargetHealth(b -> b.targetGroupArn(group)).targetHealthDescriptions().stream()
        .filter(d -> d.target().id().equals(id)).findFirst().orElseThrow().target().availabilityZone();
  }

  @Test
  void deregister_namesAPortOverrideWithItsPort_andUnknownTargetsSucceed() {
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", 8080), target("10.0.0.6", null)));

    api.elb.deregisterTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", null), target("10.9.9.9", null)));
    assertThat(registered(arn)).containsExactly("10.0.0.5:8080", "10.0.0.6:80");

    api.elb.deregisterTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", 8080), target("10.0.0.6", null)));
    assertThat(registered(arn)).isEmpty();
  }

  @Test
  void ipTargetStillDraining_cannotBeRegisteredAgain() {
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", null)));
    api.elb.deregisterTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", null)));

    // The control plane's timers stand still here: the 300 s delay never ends.
    assertAwsError(() -> api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(target("10.0.0.5", null))),
        "InvalidTarget", "the IP target 10.0.0.5:80 cannot be registered again until its deregistration delay ends"
            + " (in 300 s)");
    assertThat(api.elb.describeTargetHealth(b -> b.targetGroupArn(arn)).targetHealthDescriptions())
        .extracting(d -> d.target().id(), d -> d.targetHealth().stateAsString()).containsExactly(tuple("10.0.0.5",
            "draining"));
  }

  @Test
  void moreThan1000TargetsInAGroup_isTooManyTargets() {
    List<TargetDescription> many = new ArrayList<>();
    for (int i = 0; i < 1001; i++) {
      many.add(target("10.1." + (i / 250) + "." + (i % 250 + 1), null));
    }

    refused(arn, "TooManyTargets", "You've reached the limit on the number of targets per target group: 'ips' would"
        + " have 1001 targets (at most 1000)", many.toArray(TargetDescription[]::new));
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(many.subList(0, 1000)));
    assertThat(registered(arn)).hasSize(1000);
  }

  @Test
  void lambdaGroup_takesOneRegisteredFunction() {
    api.close();
    api = ApiGateway.start(data, "api", """
        functions:
          one: {handler: io.fulcrum.demo.EchoEventFunction}
          two: {handler: io.fulcrum.demo.EchoEventFunction}
        """);
    String fn = api.elb.createTargetGroup(b -> b.name("fn").targetType(TargetTypeEnum.LAMBDA)).targetGroups().get(0)
        .targetGroupArn();
    String function = "arn:aws:lambda:us-east-1:000000000000:function:";

    assertAwsError(() -> api.elb.registerTargets(b -> b.targetGroupArn(fn).targets(t -> t.id(function + "three"))),
        "InvalidTarget", "The specified target does not exist ('three' is not in the function registry; expected one of: one,"
            + " two)");
    api.elb.registerTargets(b -> b.targetGroupArn(fn).targets(t -> t.id(function + "one")));
    assertAwsError(() -> api.elb.registerTargets(b -> b.targetGroupArn(fn).targets(t -> t.id(function + "two"))),
        "TooManyTargets", "You've reached the limit on the number of targets per target group: 'fn' would have 2"
            + " targets (at most 1)");
  }

  @Test
  void unknownGroup_isTargetGroupNotFound_andTargetsAreRequired() {
    assertAwsError(() -> api.elb.registerTargets(b -> b.targetGroupArn(arn + "0").targets(target("10.0.0.1", null))),
        "TargetGroupNotFound", "One or more target groups not found");
    assertAwsError(() -> api.elb.deregisterTargets(b -> b.targetGroupArn(arn + "0").targets(target("10.0.0.1", null))),
        "TargetGroupNotFound", "One or more target groups not found");
    assertAwsError(() -> api.elb.registerTargets(b -> b.targetGroupArn(arn)), "ValidationError",
        "1 validation error detected: Value null at 'targets' failed to satisfy constraint: Member must not be null");
  }

  @Test
  void fiftyConcurrentRegistrations_allLand_noneLostOrDuplicated() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(50);
    try {
      List<CompletableFuture<Void>> calls = IntStream.rangeClosed(1, 50)
          .mapToObj(i -> CompletableFuture.runAsync(() -> api.elb.registerTargets(b -> b.targetGroupArn(arn)
              .targets(target("10.2.0." + i, null))), pool))
          .toList();
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get();
    } finally {
      pool.shutdownNow();
    }

    List<TargetHealthDescription> all = api.elb.describeTargetHealth(b -> b.targetGroupArn(arn))
        .targetHealthDescriptions();
    assertThat(all).extracting(d -> d.target().id()).doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(IntStream.rangeClosed(1, 50).mapToObj(i -> "10.2.0." + i).toList());
    // Persisted as acknowledged: the state file holds all 50 too.
    assertThat(java.nio.file.Files.readString(data.resolve("state.json"))).contains("\"10.2.0.50\"", "\"10.2.0.1\"");
  }
}
