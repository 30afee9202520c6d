package io.fulcrum.api;

import static io.fulcrum.api.ApiGateway.assertAwsError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.RawHttp;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.waiters.WaiterOverrideConfiguration;
import software.amazon.awssdk.core.waiters.WaiterResponse;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeTargetHealthRequest;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeTargetHealthResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetDescription;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetHealthDescription;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.waiters.ElasticLoadBalancingV2Waiter;

/**
 * DescribeTargetHealth against real targets, health checks and deregistration delays on virtual
 * time; and the SDK's waiters {@code waitUntilTargetInService} / {@code waitUntilTargetDeregistered}
 * completing while time moves.
 */
class TargetHealthApiTest {

  @TempDir
  Path data;

  private final Vertx backends = TestVertx.create();
  private ApiGateway api;
  private Backend good;
  private Backend bad;
  private String web;

  @BeforeEach
  void start() {
    api = ApiGateway.onVirtualTime(data, "");
    good = Backend.start(backends, "good");
    bad = Backend.start(backends, "bad", "127.0.0.1", req -> req.response().setStatusCode(503).end());
    web = api.arn("web");
  }

  @AfterEach
  void stop() {
    api.close();
    backends.close();
  }

  private static TargetDescription target(String id, int port) {
    return TargetDescription.builder().id(id).port(port).build();
  }

  private List<TargetHealthDescription> health(Supplier<DescribeTargetHealthResponse> call) {
    return call.get().targetHealthDescriptions();
  }

  @Test
  void reportsWhatTheHealthCheckerSees_portsReasonsAndOverride() {
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", good.port()),
        target("127.0.0.1", bad.port())));

    List<TargetHealthDescription> first = health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web)));
    assertThat(first).allSatisfy(d -> {
      assertThat(d.targetHealth().stateAsString()).isEqualTo("initial");
      assertThat(d.targetHealth().reasonAsString()).isIn("Elb.RegistrationInProgress", "Elb.InitialHealthChecking");
    });

    api.advance(Duration.ofSeconds(6));

    List<TargetHealthDescription> now = health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web)));
    assertThat(now).hasSize(2);
    TargetHealthDescription ok = now.get(0);
    assertThat(ok.target().id()).isEqualTo("127.0.0.1");
    assertThat(ok.target().port()).isEqualTo(good.port());
    assertThat(ok.target().availabilityZone()).isNull();
    assertThat(ok.healthCheckPort()).isEqualTo(Integer.toString(good.port()));
    assertThat(ok.targetHealth().stateAsString()).isEqualTo("healthy");
    assertThat(ok.targetHealth().reason()).isNull();
    assertThat(ok.targetHealth().description()).isNull();
    assertThat(ok.anomalyDetection()).isNull();
    assertThat(ok.administrativeOverride().stateAsString()).isEqualTo("no_override");
    assertThat(ok.administrativeOverride().reasonAsString()).isEqualTo("AdministrativeOverride.NoOverride");
    assertThat(ok.administrativeOverride().description()).isEqualTo("No override is currently active on target");
    TargetHealthDescription failing = now.get(1);
    assertThat(failing.targetHealth().stateAsString()).isEqualTo("unhealthy");
    assertThat(failing.targetHealth().reasonAsString()).isEqualTo("Target.ResponseCodeMismatch");
    assertThat(failing.targetHealth().description()).isEqualTo("Health checks failed with these codes: [503]");
  }

  @Test
  void includeAnomalyDetection_addsResultAndMitigation() {
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", good.port())));

    for (String include : List.of("AnomalyDetection", "All")) {
      TargetHealthDescription d = health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web)
          .includeWithStrings(include))).get(0);
      assertThat(d.anomalyDetection().resultAsString()).isEqualTo("normal");
      assertThat(d.anomalyDetection().mitigationInEffectAsString()).isEqualTo("no");
    }
    assertAwsError(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web).includeWithStrings("Everything")),
        "ValidationError", "1 validation error detected: Value 'Everything' at 'include.1.member' failed to satisfy"
            + " constraint: Member must satisfy enum value set: [AnomalyDetection, All]");
  }

  @Test
  void targetsFilter_unknownTargetIsUnusedNotRegistered_withoutHealthCheckPort() {
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", good.port())));
    api.advance(Duration.ofSeconds(1));

    List<TargetHealthDescription> d = health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web)
        .targets(target("10.9.9.9", 8080), target("127.0.0.1", good.port()),
            TargetDescription.builder().id("10.9.9.8").availabilityZone("all").build())));

    assertThat(d).hasSize(3);
    assertThat(d.get(0).target().id()).isEqualTo("10.9.9.9");
    assertThat(d.get(0).targetHealth().stateAsString()).isEqualTo("unused");
    assertThat(d.get(0).targetHealth().reasonAsString()).isEqualTo("Target.NotRegistered");
    assertThat(d.get(0).targetHealth().description()).isEqualTo("Target is not registered to the target group");
    assertThat(d.get(0).healthCheckPort()).isNull();
    assertThat(d.get(1).targetHealth().stateAsString()).isEqualTo("healthy");
    assertThat(d.get(2).target().port()).isEqualTo(80);
    assertThat(d.get(2).target().availabilityZone()).isEqualTo("all");
  }

  @Test
  void groupNoRuleUses_reportsItsTargetsNotInUse() {
    String spare = api.createIpGroup("spare");
    api.elb.registerTargets(b -> b.targetGroupArn(spare).targets(target("127.0.0.1", good.port())));
    api.advance(Duration.ofSeconds(6));

    TargetHealthDescription d = health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(spare))).get(0);

    assertThat(d.targetHealth().stateAsString()).isEqualTo("unused");
    assertThat(d.targetHealth().reasonAsString()).isEqualTo("Target.NotInUse");
    assertThat(d.targetHealth().description())
        .isEqualTo("Target group is not configured to receive traffic from the load balancer");
    assertThat(d.healthCheckPort()).as("SPEC §2.3: returned for targets in use only").isNull();
    assertThat(good.hits()).isZero();
  }

  /**
   * SPEC §8.2: a target at a load balancer's own listening socket is {@code unused} /
   * {@code Target.IpUnusable}, never checked nor sent a request (it would come back in, round and
   * round); the group's other targets serve as usual.
   */
  @Test
  void aTargetAtTheLoadBalancersOwnSocket_isIpUnusable_andGetsNoRequest() {
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", api.listenerPort),
        target("127.0.0.2", api.listenerPort)));
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", api.listenerPort,
        "GET / HTTP/1.1\r\nHost: lb\r\nConnection: close\r\n\r\n"))).as("nothing else to go to").isEqualTo(503);

    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", good.port())));
    api.advance(Duration.ofSeconds(6));
    api.advance(Duration.ofSeconds(6));
    List<TargetHealthDescription> d = health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web)));
    assertThat(d).filteredOn(t -> t.target().port() == api.listenerPort).hasSize(2).allSatisfy(t -> {
      assertThat(t.targetHealth().stateAsString()).isEqualTo("unused");
      assertThat(t.targetHealth().reasonAsString()).isEqualTo("Target.IpUnusable");
      assertThat(t.targetHealth().description())
          .isEqualTo("The IP address cannot be used as a target, as it is in use by a load balancer");
      assertThat(t.healthCheckPort()).isNull();
    });
    assertThat(d).filteredOn(t -> t.target().port() == good.port()).singleElement()
        .satisfies(t -> assertThat(t.targetHealth().stateAsString()).isEqualTo("healthy"));
    int checked = good.hits(); // its health checks; time stands still from here
    for (int i = 0; i < 6; i++) {
      assertThat(RawHttp.exchange("127.0.0.1", api.listenerPort, "GET / HTTP/1.1\r\nHost: lb\r\nConnection: close\r\n\r\n"))
          .startsWith("HTTP/1.1 200").endsWith("good");
    }
    assertThat(good.hits()).as("each request once: none came back in").isEqualTo(checked + 6);
  }

  @Test
  void deregisteredTarget_drainsForTheDelay_thenIsNotRegistered() {
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(TargetDescription.builder().id("127.0.0.1")
        .port(good.port()).availabilityZone("all").build()));
    api.advance(Duration.ofSeconds(1));
    api.elb.deregisterTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", good.port())));

    TargetHealthDescription draining = health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web))).get(0);
    assertThat(draining.targetHealth().stateAsString()).isEqualTo("draining");
    assertThat(draining.targetHealth().reasonAsString()).isEqualTo("Target.DeregistrationInProgress");
    assertThat(draining.targetHealth().description()).isEqualTo("Target deregistration is in progress");
    assertThat(draining.healthCheckPort()).isEqualTo(Integer.toString(good.port()));
    assertThat(draining.target().availabilityZone()).isEqualTo("all");

    api.advance(Duration.ofSeconds(29));
    assertThat(health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web))).get(0).targetHealth()
        .stateAsString()).isEqualTo("draining");
    api.advance(Duration.ofSeconds(1));

    assertThat(health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web)))).isEmpty();
    assertThat(health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web)
        .targets(target("127.0.0.1", good.port())))).get(0).targetHealth().reasonAsString())
        .isEqualTo("Target.NotRegistered");
  }

  @Test
  void healthCheckPortOverride_isProbedAndReported() {
    api.elb.modifyTargetGroup(b -> b.targetGroupArn(web).healthCheckPort(Integer.toString(good.port())));
    // Traffic would go to the bad target's port; checks go to the good one's.
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", bad.port())));
    api.advance(Duration.ofSeconds(1));

    TargetHealthDescription d = health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web))).get(0);

    assertThat(d.target().port()).isEqualTo(bad.port());
    assertThat(d.healthCheckPort()).isEqualTo(Integer.toString(good.port()));
    assertThat(d.targetHealth().stateAsString()).isEqualTo("healthy");
  }

  @Test
  void unknownGroupOrInstance_areTargetGroupNotFoundAndInvalidTarget() {
    String vms = api.elb.createTargetGroup(b -> b.name("vms").protocol("HTTP").port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.INSTANCE)).targetGroups().get(0).targetGroupArn();

    assertAwsError(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(web + "0")), "TargetGroupNotFound",
        "One or more target groups not found");
    assertAwsError(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(vms).targets(t -> t.id("i-00000000"))),
        "InvalidTarget", "The specified target does not exist or is not in the same VPC as the target group."
            + " ('i-00000000' is not in the instance inventory)");
    assertThat(health(() -> api.elb.describeTargetHealth(b -> b.targetGroupArn(vms)
        .targets(t -> t.id("i-0123456789abcdef0")))).get(0).targetHealth().reasonAsString())
        .isEqualTo("Target.NotRegistered");
  }

  // ---- the SDK's waiters ----

  private static WaiterOverrideConfiguration fastPolls() {
    return WaiterOverrideConfiguration.builder().maxAttempts(1000)
        .backoffStrategyV2(BackoffStrategy.fixedDelay(Duration.ofMillis(20))).waitTimeout(Duration.ofSeconds(60))
        .build();
  }

  /**
   * Runs a waiter on another thread; once its first poll has been answered (not yet satisfied),
   * moves virtual time on a second at a time until it completes.
   */
  private WaiterResponse<DescribeTargetHealthResponse> whileTimeMoves(
      Supplier<WaiterResponse<DescribeTargetHealthResponse>> waiter) throws Exception {
    int before = api.healthCalls.get();
    CompletableFuture<WaiterResponse<DescribeTargetHealthResponse>> done = CompletableFuture.supplyAsync(waiter);
    await().atMost(Duration.ofSeconds(30)).until(() -> api.healthCalls.get() > before || done.isDone());
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
      if (!done.isDone()) {
        api.advance(Duration.ofSeconds(1));
      }
      return done.isDone();
    });
    return done.get();
  }

  @Test
  void waitUntilTargetInService_completesWhenTheRealTargetsPassTheirChecks() throws Exception {
    DescribeTargetHealthRequest request = DescribeTargetHealthRequest.builder().targetGroupArn(web)
        .targets(target("127.0.0.1", good.port())).build();
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", good.port())));

    try (ElasticLoadBalancingV2Waiter waiter = api.elb.waiter()) {
      WaiterResponse<DescribeTargetHealthResponse> r = whileTimeMoves(
          () -> waiter.waitUntilTargetInService(request, fastPolls()));

      assertThat(r.matched().response()).isPresent();
      assertThat(r.attemptsExecuted()).isGreaterThan(1);
      assertThat(r.matched().response().get().targetHealthDescriptions().get(0).targetHealth().stateAsString())
          .isEqualTo("healthy");
    }
    assertThat(good.hits()).isPositive();
  }

  @Test
  void waitUntilTargetDeregistered_completesWhenTheDeregistrationDelayEnds() throws Exception {
    DescribeTargetHealthRequest request = DescribeTargetHealthRequest.builder().targetGroupArn(web)
        .targets(target("127.0.0.1", good.port())).build();
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", good.port())));
    api.advance(Duration.ofSeconds(1));
    api.elb.deregisterTargets(b -> b.targetGroupArn(web).targets(target("127.0.0.1", good.port())));

    try (ElasticLoadBalancingV2Waiter waiter = api.elb.waiter()) {
      WaiterResponse<DescribeTargetHealthResponse> r = whileTimeMoves(
          () -> waiter.waitUntilTargetDeregistered(request, fastPolls()));

      assertThat(r.attemptsExecuted()).isGreaterThan(1);
      assertThat(r.matched().response().orElseThrow().targetHealthDescriptions().get(0).targetHealth().reasonAsString())
          .isEqualTo("Target.NotRegistered");
    }
  }
}
