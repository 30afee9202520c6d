package io.fulcrum.api;

import static io.fulcrum.api.ApiGateway.assertAwsError;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;

/**
 * With {@code resources.source: config} the file owns the resources: every mutating call fails
 * with {@code OperationNotPermitted} and changes nothing, while the describe calls answer.
 */
class ConfigOwnedResourcesApiTest {

  @TempDir
  Path data;

  private ApiGateway api;
  private String web;

  @BeforeEach
  void start() {
    api = ApiGateway.start(data, "config", "");
    web = api.arn("web");
  }

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void everyMutatingCall_isOperationNotPermitted_andChangesNothing() {
    List<TargetGroup> groups = api.allGroups();
    Map<String, String> attributes = new java.util.LinkedHashMap<>();
    api.elb.describeTargetGroupAttributes(b -> b.targetGroupArn(web)).attributes()
        .forEach(a -> attributes.put(a.key(), a.value()));
    var resources = api.gateway.fulcrum().registry().resources();

    List<ThrowingCallable> calls = List.of(
        () -> api.elb.createTargetGroup(b -> b.name("new").protocol("HTTP").port(80).vpcId(ApiGateway.VPC)),
        () -> api.elb.modifyTargetGroup(b -> b.targetGroupArn(web).healthCheckPath("/other")),
        () -> api.elb.deleteTargetGroup(b -> b.targetGroupArn(web)),
        () -> api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(web)
            .attributes(a -> a.key("stickiness.enabled").value("true"))),
        () -> api.elb.registerTargets(b -> b.targetGroupArn(web).targets(t -> t.id("10.0.0.1"))),
        () -> api.elb.deregisterTargets(b -> b.targetGroupArn(web).targets(t -> t.id("10.0.0.1"))),
        () -> api.elb.addTags(b -> b.resourceArns(web).tags(t -> t.key("k").value("v"))),
        () -> api.elb.removeTags(b -> b.resourceArns(web).tagKeys("k")));
    for (ThrowingCallable call : calls) {
      assertAwsError(call, "OperationNotPermitted", 400)
          .hasMessageContaining("resources are owned by the config file (resources.source: config)");
    }

    assertThat(api.allGroups()).isEqualTo(groups);
    Map<String, String> after = new java.util.LinkedHashMap<>();
    api.elb.describeTargetGroupAttributes(b -> b.targetGroupArn(web)).attributes()
        .forEach(a -> after.put(a.key(), a.value()));
    assertThat(after).isEqualTo(attributes);
    assertThat(api.gateway.fulcrum().registry().resources()).isSameAs(resources);
    assertThat(data.resolve("state.json")).doesNotExist();
  }

  @Test
  void describeCalls_answer() {
    assertThat(api.elb.describeTargetHealth(b -> b.targetGroupArn(web)).targetHealthDescriptions()).isEmpty();
    assertThat(api.elb.describeTags(b -> b.resourceArns(web)).tagDescriptions().get(0).tags()).isEmpty();
    assertThat(api.group("web").loadBalancerArns()).hasSize(1);
  }
}
