package io.fulcrum.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.fulcrum.testing.Http;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetDescription;

/**
 * Changes of the resources in the journal ({@code /ui/events}): what each ELBv2 call made through the
 * real AWS SDK changed, with {@code reason: api}; a refused call records nothing.
 */
class JournalOfChangesApiTest {

  @TempDir
  Path data;

  private final Vertx client = TestVertx.create();
  private ApiGateway api;

  @BeforeEach
  void start() {
    api = ApiGateway.start(data);
  }

  @AfterEach
  void stop() {
    api.close();
    client.close();
  }

  /** The events after {@code after} whose type is not a health or routing one, as (type, subject, description). */
  private List<JsonObject> changes(long after) {
    try (Http http = new Http(client)) {
      return new JsonObject(http.get(api.gateway.controlPort(), "/ui/events?after=" + after).body())
          .getJsonArray("events").stream().map(JsonObject.class::cast)
          .filter(e -> "api".equals(e.getString("reason")) || "config".equals(e.getString("reason"))).toList();
    }
  }

  @Test
  void eachCallsChanges_areEvents_withWhereTheyCameFrom() {
    String web = api.elb.describeTargetGroups(b -> b.names("web")).targetGroups().get(0).targetGroupArn();
    String lb = api.elb.describeLoadBalancers(b -> b.names("lb")).loadBalancers().get(0).loadBalancerArn();

    String gpu = api.createIpGroup("gpu");
    api.elb.registerTargets(b -> b.targetGroupArn(web).targets(
        TargetDescription.builder().id("127.0.0.1").port(9001).availabilityZone("zone-a").build(),
        TargetDescription.builder().id("127.0.0.2").port(9002).availabilityZone("zone-b").build()));
    api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(web).attributes(
        a -> a.key("load_balancing.algorithm.type").value("least_outstanding_requests")));
    api.elb.modifyTargetGroup(b -> b.targetGroupArn(web).healthCheckIntervalSeconds(10));
    api.elb.createListener(b -> b.loadBalancerArn(lb).protocol("HTTP").port(api.listenerPort + 1)
        .defaultActions(a -> a.type("forward").targetGroupArn(gpu)));
    api.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb).attributes(
        a -> a.key("idle_timeout.timeout_seconds").value("120")));
    ApiGateway.assertAwsError(() -> api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(web).attributes(
        a -> a.key("slow_start.duration_seconds").value("10"))), "ValidationError",
        "slow_start.duration_seconds: '10' is not valid (expected 0 (off) or 30-900)");
    api.elb.deleteTargetGroup(b -> b.targetGroupArn(api.createIpGroup("brief")));

    List<JsonObject> events = changes(0);
    assertThat(events).allMatch(e -> e.getString("reason").equals("api"));
    assertThat(events).extracting(e -> e.getString("type"), e -> e.getString("targetGroup"),
        e -> e.getString("loadBalancer"), e -> e.getString("target"), e -> e.getString("description")).containsExactly(
        tuple("TargetGroupCreated", "gpu", null, null, "0 target(s)"),
        tuple("TargetRegistered", "web", null, "127.0.0.1:9001", null),
        tuple("TargetRegistered", "web", null, "127.0.0.2:9002", null),
        tuple("TargetGroupModified", "web", null, null, "load_balancing.algorithm.type round_robin \u2192"
            + " least_outstanding_requests"),
        tuple("TargetGroupModified", "web", null, null, "health check intervalSeconds 5 \u2192 10"),
        tuple("ListenerCreated", null, "lb", null, "HTTP:" + (api.listenerPort + 1) + ", 0 rule(s)"),
        tuple("LoadBalancerModified", null, "lb", null, "idle_timeout.timeout_seconds 60 \u2192 120"),
        tuple("TargetGroupCreated", "brief", null, null, "0 target(s)"),
        tuple("TargetGroupDeleted", "brief", null, null, null));
    assertThat(events.get(1).getString("zone")).isEqualTo("zone-a");
  }

  @Test
  void theJournal_outlivesARestart_andItsNumbersGoOn() {
    api.createIpGroup("before");
    List<JsonObject> first = changes(0);
    assertThat(first).extracting(e -> e.getString("type")).containsExactly("TargetGroupCreated");
    api.close();

    api = ApiGateway.start(data);
    api.createIpGroup("after");

    List<JsonObject> events = changes(0);
    assertThat(events).extracting(e -> e.getString("targetGroup")).containsExactly("before", "after");
    assertThat(events.get(0)).isEqualTo(first.get(0));
    assertThat(events.get(1).getLong("sequence")).isGreaterThan(first.get(0).getLong("sequence"));
  }
}
