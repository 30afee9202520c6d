package io.fulcrum.api;

import static io.fulcrum.api.ApiGateway.assertAwsError;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeTargetGroupsResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/** DescribeTargetGroups (filters, paging), ModifyTargetGroup and DeleteTargetGroup through the real AWS SDK. */
class TargetGroupApiTest {

  @TempDir
  Path data;

  private ApiGateway api;

  @BeforeEach
  void start() {
    api = ApiGateway.start(data);
  }

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void describe_listsEveryGroupByName_withTheLoadBalancerThatUsesIt() {
    api.createIpGroup("zeta");
    api.createIpGroup("alpha");

    List<TargetGroup> all = api.elb.describeTargetGroups(b -> { }).targetGroups();

    assertThat(all).extracting(TargetGroup::targetGroupName).containsExactly("alpha", "web", "zeta");
    TargetGroup web = all.get(1);
    assertThat(web.targetGroupArn()).isEqualTo(
        "arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/web/" + web.targetGroupArn().substring(
            web.targetGroupArn().length() - 16));
    assertThat(web.loadBalancerArns()).singleElement().asString()
        .matches("arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/lb/[0-9a-f]{16}");
    assertThat(web.healthCheckIntervalSeconds()).isEqualTo(5);
    assertThat(all.get(0).loadBalancerArns()).isEmpty();
  }

  @Test
  void describe_byNamesArnsOrLoadBalancer() {
    String alpha = api.createIpGroup("alpha");
    String beta = api.createIpGroup("beta");
    String lb = api.group("web").loadBalancerArns().get(0);

    assertThat(api.elb.describeTargetGroups(b -> b.names("beta", "alpha")).targetGroups())
        .extracting(TargetGroup::targetGroupArn).containsExactly(alpha, beta);
    assertThat(api.elb.describeTargetGroups(b -> b.targetGroupArns(beta)).targetGroups())
        .extracting(TargetGroup::targetGroupName).containsExactly("beta");
    assertThat(api.elb.describeTargetGroups(b -> b.loadBalancerArn(lb)).targetGroups())
        .extracting(TargetGroup::targetGroupName).containsExactly("web");
  }

  @Test
  void describe_refusesUnknownNamesArnsAndLoadBalancers_andMoreThanOneFilter() {
    String alpha = api.createIpGroup("alpha");
    String lb = api.group("web").loadBalancerArns().get(0);

    assertAwsError(() -> api.elb.describeTargetGroups(b -> b.names("alpha", "nope")), "TargetGroupNotFound",
        "One or more target groups not found");
    assertAwsError(() -> api.elb.describeTargetGroups(b -> b.targetGroupArns(alpha + "0")), "TargetGroupNotFound",
        "One or more target groups not found");
    assertAwsError(() -> api.elb.describeTargetGroups(b -> b.loadBalancerArn(lb.replace("/lb/", "/other/"))),
        "LoadBalancerNotFound", "The specified load balancer does not exist.");
    assertAwsError(() -> api.elb.describeTargetGroups(b -> b.names("alpha").targetGroupArns(alpha)), "ValidationError",
        "Target group names, target group ARNs, and a load balancer ARN cannot be specified at the same time");
    assertAwsError(() -> api.elb.describeTargetGroups(b -> b.names("alpha").loadBalancerArn(lb)), "ValidationError",
        "Target group names, target group ARNs, and a load balancer ARN cannot be specified at the same time");
  }

  @Test
  void describe_pagesWithOpaqueMarkers_nextMarkerOnlyWhileMoreRemain() {
    for (String n : List.of("g1", "g2", "g3", "g4", "g5")) {
      api.createIpGroup(n);
    }
    List<String> names = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    String marker = null;
    do {
      String m = marker;
      DescribeTargetGroupsResponse page = api.elb.describeTargetGroups(b -> b.pageSize(2).marker(m));
      page.targetGroups().forEach(g -> names.add(g.targetGroupName()));
      sizes.add(page.targetGroups().size());
      marker = page.nextMarker();
      if (marker != null) {
        assertThat(marker).doesNotContain("g").doesNotContain(":");
      }
    } while (marker != null);

    assertThat(sizes).containsExactly(2, 2, 2);
    assertThat(names).containsExactly("g1", "g2", "g3", "g4", "g5", "web");
    assertThat(api.elb.describeTargetGroups(b -> b.pageSize(6)).nextMarker()).isNull();
    // The SDK's own paginator follows NextMarker to the end.
    assertThat(api.elb.describeTargetGroupsPaginator(b -> b.pageSize(4)).targetGroups().stream()
        .map(TargetGroup::targetGroupName)).containsExactly("g1", "g2", "g3", "g4", "g5", "web");
  }

  @Test
  void describe_pageStartsAfterTheMarker_evenWhenAGroupBeforeItWasDeleted() {
    for (String n : List.of("g1", "g2", "g3", "g4")) {
      api.createIpGroup(n);
    }
    DescribeTargetGroupsResponse first = api.elb.describeTargetGroups(b -> b.pageSize(2));
    api.elb.deleteTargetGroup(b -> b.targetGroupArn(first.targetGroups().get(0).targetGroupArn()));

    assertThat(api.elb.describeTargetGroups(b -> b.pageSize(2).marker(first.nextMarker())).targetGroups())
        .extracting(TargetGroup::targetGroupName).containsExactly("g3", "g4");
  }

  @Test
  void describe_refusesPageSizesOutside1To400_andMarkersItDidNotGive() {
    assertAwsError(() -> api.elb.describeTargetGroups(b -> b.pageSize(0)), "ValidationError",
        "1 validation error detected: Value '0' at 'pageSize' failed to satisfy constraint: Member must have value"
            + " greater than or equal to 1");
    assertAwsError(() -> api.elb.describeTargetGroups(b -> b.pageSize(401)), "ValidationError",
        "1 validation error detected: Value '401' at 'pageSize' failed to satisfy constraint: Member must have value"
            + " less than or equal to 400");
    assertAwsError(() -> api.elb.describeTargetGroups(b -> b.marker("not-a-marker!")), "ValidationError",
        "The marker 'not-a-marker!' is not valid (use the NextMarker of a previous response)");
  }

  @Test
  void modify_changesHealthCheckFields_keepsTheRest() {
    String arn = api.createIpGroup("mod");

    TargetGroup g = api.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).healthCheckIntervalSeconds(10)
        .healthCheckPath("/ping").healthCheckPort("8081").matcher(m -> m.httpCode("200-204"))
        .healthyThresholdCount(3)).targetGroups().get(0);

    assertThat(g.healthCheckIntervalSeconds()).isEqualTo(10);
    assertThat(g.healthCheckPath()).isEqualTo("/ping");
    assertThat(g.healthCheckPort()).isEqualTo("8081");
    assertThat(g.matcher().httpCode()).isEqualTo("200-204");
    assertThat(g.healthyThresholdCount()).isEqualTo(3);
    assertThat(g.healthCheckTimeoutSeconds()).isEqualTo(5);
    assertThat(g.unhealthyThresholdCount()).isEqualTo(2);
    assertThat(g.port()).isEqualTo(80);
    assertThat(api.group("mod")).isEqualTo(g);

    TargetGroup back = api.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).healthCheckPort("traffic-port"))
        .targetGroups().get(0);
    assertThat(back.healthCheckPort()).isEqualTo("traffic-port");
    assertThat(back.healthCheckPath()).isEqualTo("/ping");
  }

  @Test
  void modify_refusesWhatTheModelRefuses_andChangesNothing() {
    String arn = api.createIpGroup("mod");
    TargetGroup before = api.group("mod");

    assertAwsError(() -> api.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).healthCheckTimeoutSeconds(30)),
        "InvalidConfigurationRequest", "Health check timeout '30' must be smaller than the interval '30'");
    assertAwsError(() -> api.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).healthCheckIntervalSeconds(4)),
        "ValidationError", "1 validation error detected: Value '4' at 'healthCheckIntervalSeconds' failed to satisfy"
            + " constraint: Member must have value greater than or equal to 5");
    assertAwsError(() -> api.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).matcher(m -> m.grpcCode("0"))),
        "InvalidConfigurationRequest", "a grpc-code matcher needs protocol version GRPC");
    assertAwsError(() -> api.elb.modifyTargetGroup(b -> b.targetGroupArn(arn + "0").healthCheckPath("/x")),
        "TargetGroupNotFound", "One or more target groups not found");

    assertThat(api.group("mod")).isEqualTo(before);
  }

  @Test
  void modify_lambdaGroup_canTurnHealthChecksOn() {
    String arn = api.elb.createTargetGroup(b -> b.name("fn").targetType(TargetTypeEnum.LAMBDA)).targetGroups().get(0)
        .targetGroupArn();

    TargetGroup g = api.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).healthCheckEnabled(true)
        .healthCheckIntervalSeconds(60)).targetGroups().get(0);

    assertThat(g.healthCheckEnabled()).isTrue();
    assertThat(g.healthCheckIntervalSeconds()).isEqualTo(60);
    assertThat(g.healthCheckPort()).isNull();
  }

  @Test
  void delete_removesTheGroupAndItsTags_deletingAgainSucceeds() {
    String arn = api.elb.createTargetGroup(b -> b.name("gone").protocol("HTTP").port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.IP).tags(t -> t.key("k").value("v"))).targetGroups().get(0).targetGroupArn();

    api.elb.deleteTargetGroup(b -> b.targetGroupArn(arn));

    assertThat(api.allGroups()).extracting(TargetGroup::targetGroupName).containsExactly("web");
    assertAwsError(() -> api.elb.describeTags(b -> b.resourceArns(arn)), "TargetGroupNotFound",
        "One or more target groups not found");
    api.elb.deleteTargetGroup(b -> b.targetGroupArn(arn));
    assertThat(api.gateway.fulcrum().registry().resources().tags()).doesNotContainKey(arn);
  }

  /** A group that is gone is deleted again without a word; what is no target group ARN at all is refused. */
  @Test
  void delete_ofWhatIsNoTargetGroupArn_isValidationError() {
    String lb = api.elb.describeLoadBalancers().loadBalancers().get(0).loadBalancerArn();
    for (String notAGroup : List.of("web", lb)) {
      assertAwsError(() -> api.elb.deleteTargetGroup(b -> b.targetGroupArn(notAGroup)), "ValidationError",
          "'" + notAGroup + "' is not a valid target group ARN");
    }
    assertThat(api.allGroups()).extracting(TargetGroup::targetGroupName).containsExactly("web");
  }

  @Test
  void delete_groupInUseByAListener_isResourceInUse_andTheGroupStays() {
    String web = api.arn("web");

    assertAwsError(() -> api.elb.deleteTargetGroup(b -> b.targetGroupArn(web)), "ResourceInUse",
        "The target group '" + web + "' is currently in use by a listener or a rule");
    assertThat(api.group("web").targetGroupArn()).isEqualTo(web);
  }
}
