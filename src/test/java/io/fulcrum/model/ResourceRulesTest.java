package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Rules across resources: one load balancer per target group, listener ports per node, quotas
 * (SPEC §8.4, §8.5) and the attribute rules that depend on the actions using a group (§3.2).
 */
class ResourceRulesTest {

  private static final Environment ENV = new Environment("us-east-1", "000000000000",
      List.of(new Node("zone-a", "127.0.0.1"), new Node("zone-b", "127.0.0.2")),
      List.of(Cidr.parse("127.0.0.0/8")), Map.of());

  private static TargetGroup group(String name, Protocol protocol, Map<String, String> attributes, int targets) {
    Problems problems = new Problems();
    ProtocolVersion version = protocol.isHttpFamily() ? ProtocolVersion.HTTP1 : null;
    HealthCheck hc = HealthCheck.resolve(HealthCheck.Input.EMPTY, TargetType.IP, protocol, version, problems);
    TargetGroupAttributes attrs = TargetGroupAttributes.resolve(TargetType.IP, protocol, null, attributes, problems);
    assertThat(problems.list()).isEmpty();
    List<Target> list = IntStream.range(0, targets)
        .mapToObj(i -> new Target("10.0.0.1", 1024 + i, "zone-a", "10.0.0.1", true)).toList();
    return new TargetGroup("arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/" + name + "/0", name,
        TargetType.IP, protocol, 80, version, IpAddressType.IPV4, hc, attrs, list);
  }

  private static TargetGroup group(String name) {
    return group(name, Protocol.HTTP, Map.of(), 1);
  }

  private static Action.Forward forward(TargetGroup... groups) {
    return forward(false, groups);
  }

  private static Action.Forward forward(boolean stickiness, TargetGroup... groups) {
    return new Action.Forward(Arrays.stream(groups).map(g -> new Action.WeightedTargetGroup(g.arn(), g.name(), 1))
        .toList(), stickiness, stickiness ? 3600 : 0);
  }

  private static Listener listener(int port, Action defaultAction, Rule... rules) {
    return new Listener("arn:listener/" + port, Protocol.HTTP, port, List.of(defaultAction), List.of(rules));
  }

  private static Rule rule(int priority, Action action) {
    return new Rule("arn:rule/" + priority, priority,
        List.of(new RuleCondition.PathPattern(List.of("/r" + priority))), List.of(action));
  }

  private static LoadBalancer lb(String name, List<String> zones, Listener... listeners) {
    return new LoadBalancer("arn:lb/" + name, name, LoadBalancerType.APPLICATION, name + ".elb",
        zones, LoadBalancerAttributes.defaults(LoadBalancerType.APPLICATION), List.of(listeners));
  }

  private static LoadBalancer lb(String name, Listener... listeners) {
    return lb(name, List.of("zone-a", "zone-b"), listeners);
  }

  private static List<String> check(List<LoadBalancer> lbs, List<TargetGroup> groups) {
    Problems problems = new Problems();
    ResourceRules.check(ENV, new Resources(lbs, groups), problems);
    return problems.list().stream().map(p -> p.code() + " " + p).toList();
  }

  @Test
  void validResources_haveNoProblems() {
    TargetGroup web = group("web");
    TargetGroup api = group("api");
    assertThat(check(List.of(lb("a", listener(80, forward(web), rule(10, forward(api))), listener(81, forward(web)))),
        List.of(web, api))).isEmpty();
  }

  @Test
  void targetGroupUsedByTwoLoadBalancers_isRejected() {
    TargetGroup web = group("web");
    assertThat(check(List.of(lb("a", listener(80, forward(web))), lb("b", listener(81, forward(web)))),
        List.of(web))).containsExactly("TargetGroupAssociationLimit load-balancers[1]: target group 'web' would be"
            + " used by load balancers 'a' and 'b'; a target group can serve only one load balancer");
  }

  @Test
  void targetGroupUsedByARuleOfASecondLoadBalancer_isRejected() {
    TargetGroup web = group("web");
    TargetGroup api = group("api");
    assertThat(check(List.of(lb("a", listener(80, forward(web))), lb("b", listener(81, forward(api),
        rule(5, forward(web))))), List.of(web, api))).containsExactly("TargetGroupAssociationLimit load-balancers[1]:"
            + " target group 'web' would be used by load balancers 'a' and 'b'; a target group can serve only one"
            + " load balancer");
  }

  @Test
  void listenerPortUsedByTwoLoadBalancersOnTheSameNodes_isRejectedPerNode() {
    TargetGroup web = group("web");
    TargetGroup api = group("api");
    assertThat(check(List.of(lb("a", listener(8080, forward(web))), lb("b", listener(8080, forward(api)))),
        List.of(web, api))).containsExactly(
            "DuplicateListener load-balancers[1].listeners[0].port: port 8080 on node 127.0.0.1 would be used by"
                + " load balancers 'a' and 'b'; a node's port serves one",
            "DuplicateListener load-balancers[1].listeners[0].port: port 8080 on node 127.0.0.2 would be used by"
                + " load balancers 'a' and 'b'; a node's port serves one");
  }

  @Test
  void listenerPortUsedByTwoLoadBalancersOnDifferentNodes_isAccepted() {
    TargetGroup web = group("web");
    TargetGroup api = group("api");
    assertThat(check(List.of(lb("a", List.of("zone-a"), listener(8080, forward(web))),
        lb("b", List.of("zone-b"), listener(8080, forward(api)))), List.of(web, api))).isEmpty();
  }

  @Test
  void listenerPortClash_onOneSharedNode_isReportedForThatNode() {
    TargetGroup web = group("web");
    TargetGroup api = group("api");
    assertThat(check(List.of(lb("a", List.of("zone-a", "zone-b"), listener(8080, forward(web))),
        lb("b", List.of("zone-b"), listener(8080, forward(api)))), List.of(web, api))).containsExactly(
            "DuplicateListener load-balancers[1].listeners[0].port: port 8080 on node 127.0.0.2 would be used by"
                + " load balancers 'a' and 'b'; a node's port serves one");
  }

  @Test
  void httpListenerForwardingToATcpGroup_isIncompatible() {
    TargetGroup tcp = group("tcp", Protocol.TCP, Map.of(), 1);
    assertThat(check(List.of(lb("a", listener(80, forward(tcp)))), List.of(tcp))).containsExactly(
        "IncompatibleProtocols load-balancers[0].listeners[0].default-actions[0]: listener protocol HTTP cannot"
            + " forward to target group 'tcp' with protocol TCP");
  }

  @Test
  void weightedForwardWithAStickyGroup_needsTargetGroupStickiness() {
    TargetGroup sticky = group("sticky", Protocol.HTTP, Map.of(TargetGroupAttributes.STICKINESS_ENABLED, "true"), 1);
    TargetGroup plain = group("plain");
    assertThat(check(List.of(lb("a", listener(80, forward(plain), rule(1, forward(sticky, plain))))),
        List.of(sticky, plain))).containsExactly("InvalidConfigurationRequest"
            + " load-balancers[0].listeners[0].rules[0].actions[0].stickiness: a forward action to several target"
            + " groups where one has stickiness must enable target group stickiness");
  }

  @Test
  void weightedForwardWithAStickyGroup_andTargetGroupStickiness_isAccepted() {
    TargetGroup sticky = group("sticky", Protocol.HTTP, Map.of(TargetGroupAttributes.STICKINESS_ENABLED, "true"), 1);
    TargetGroup plain = group("plain");
    assertThat(check(List.of(lb("a", listener(80, forward(true, sticky, plain)))), List.of(sticky, plain))).isEmpty();
  }

  @Test
  void singleStickyGroup_needsNoTargetGroupStickiness() {
    TargetGroup sticky = group("sticky", Protocol.HTTP, Map.of(TargetGroupAttributes.STICKINESS_ENABLED, "true"), 1);
    assertThat(check(List.of(lb("a", listener(80, forward(sticky)))), List.of(sticky))).isEmpty();
  }

  @Test
  void crossZoneOff_withATargetInZoneAll_isRejected() {
    TargetGroup g = group("web", Protocol.HTTP, Map.of(TargetGroupAttributes.CROSS_ZONE, "false"), 0)
        .withTargets(List.of(new Target("10.0.0.1", 80, "zone-a", "10.0.0.1", true),
            new Target("10.0.0.2", 80, "all", "10.0.0.2", true)));
    assertThat(check(List.of(), List.of(g))).containsExactly("InvalidConfigurationRequest"
        + " target-groups[0].targets[1].zone: a target in zone 'all' cannot be registered while"
        + " load_balancing.cross_zone.enabled is false (expected one of: zone-a, zone-b)");
  }

  @Test
  void crossZoneOnOrFromTheLoadBalancer_allowsZoneAll() {
    for (String crossZone : List.of("true", "use_load_balancer_configuration")) {
      TargetGroup g = group("web", Protocol.HTTP, Map.of(TargetGroupAttributes.CROSS_ZONE, crossZone), 0)
          .withTargets(List.of(new Target("10.0.0.2", 80, "all", "10.0.0.2", false)));
      assertThat(check(List.of(), List.of(g))).isEmpty();
    }
  }

  @Test
  void moreThan1000TargetsBehindOneLoadBalancer_isRejected() {
    TargetGroup a = group("a", Protocol.HTTP, Map.of(), 600);
    TargetGroup b = group("b", Protocol.HTTP, Map.of(), 401);
    assertThat(check(List.of(lb("x", listener(80, forward(a), rule(1, forward(b))))), List.of(a, b)))
        .containsExactly("TooManyTargets load-balancers[0]: 1001 targets is above the maximum 1000 per application"
            + " load balancer");
    TargetGroup c = group("c", Protocol.HTTP, Map.of(), 400);
    assertThat(check(List.of(lb("x", listener(80, forward(a), rule(1, forward(c))))), List.of(a, c))).isEmpty();
  }

  private static LoadBalancer nlb(String name, TargetGroup... groups) {
    Listener[] listeners = IntStream.range(0, groups.length)
        .mapToObj(i -> new Listener("arn:listener/" + name + i, Protocol.TCP, 7000 + i, List.of(forward(groups[i])),
            List.<Rule>of()))
        .toArray(Listener[]::new);
    return new LoadBalancer("arn:lb/" + name, name, LoadBalancerType.NETWORK, name + ".elb", List.of("zone-a", "zone-b"),
        LoadBalancerAttributes.defaults(LoadBalancerType.NETWORK), List.of(listeners));
  }

  @Test
  void aNetworkLoadBalancer_takes3000Targets() {
    List<TargetGroup> groups = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      groups.add(group(name, Protocol.TCP, Map.of(), 1000));
    }
    assertThat(check(List.of(nlb("n", groups.toArray(TargetGroup[]::new))), groups)).isEmpty();

    groups.add(group("d", Protocol.TCP, Map.of(), 1));
    assertThat(check(List.of(nlb("n", groups.toArray(TargetGroup[]::new))), groups)).containsExactly(
        "TooManyTargets load-balancers[0]: 3001 targets is above the maximum 3000 per network load balancer");
  }

  @Test
  void fiftyLoadBalancersOfEachType_areAllowed_andTheFiftyFirstOfOneTypeIsNot() {
    List<LoadBalancer> lbs = new ArrayList<>();
    IntStream.range(0, 50).forEach(i -> lbs.add(lb("alb" + i)));
    IntStream.range(0, 50).forEach(i -> lbs.add(nlb("nlb" + i)));
    assertThat(check(lbs, List.of())).isEmpty();

    lbs.add(nlb("nlb50"));
    assertThat(check(lbs, List.of()))
        .containsExactly("TooManyLoadBalancers load-balancers: 51 network load balancers is above the maximum 50");
  }

  @Test
  void moreThan50Listeners_isRejected() {
    TargetGroup web = group("web");
    Listener[] listeners = IntStream.range(0, 51).mapToObj(i -> listener(8000 + i, forward(web)))
        .toArray(Listener[]::new);
    assertThat(check(List.of(lb("a", listeners)), List.of(web)))
        .containsExactly("TooManyListeners load-balancers[0].listeners: 51 listeners is above the maximum 50");
    assertThat(check(List.of(lb("a", Arrays.copyOf(listeners, 50))), List.of(web))).isEmpty();
  }

  @Test
  void moreThan100RulesPerLoadBalancer_isRejected() {
    TargetGroup web = group("web");
    Rule[] rules = IntStream.rangeClosed(1, 60).mapToObj(i -> rule(i, forward(web))).toArray(Rule[]::new);
    Rule[] more = IntStream.rangeClosed(1, 41).mapToObj(i -> rule(i, forward(web))).toArray(Rule[]::new);
    assertThat(check(List.of(lb("a", listener(80, forward(web), rules), listener(81, forward(web), more))),
        List.of(web))).containsExactly(
            "TooManyRules load-balancers[0].listeners: 101 rules is above the maximum 100 per load balancer");
    assertThat(check(List.of(lb("a", listener(80, forward(web), rules),
        listener(81, forward(web), Arrays.copyOf(more, 40)))), List.of(web))).isEmpty();
  }

  @Test
  void moreThan100TargetGroupsPerLoadBalancer_isRejected() {
    List<TargetGroup> groups = new ArrayList<>();
    List<Rule> rules = new ArrayList<>();
    for (int i = 1; i <= 101; i++) {
      TargetGroup g = group("g" + i, Protocol.HTTP, Map.of(), 0);
      groups.add(g);
      rules.add(rule(i, forward(g)));
    }
    Listener a = listener(80, forward(groups.get(0)), rules.subList(0, 60).toArray(Rule[]::new));
    Listener b = listener(81, forward(groups.get(0)), rules.subList(60, 101).toArray(Rule[]::new));
    assertThat(check(List.of(lb("x", a, b)), groups)).containsExactly(
        "TooManyRules load-balancers[0].listeners: 101 rules is above the maximum 100 per load balancer",
        "TooManyUniqueTargetGroupsPerLoadBalancer load-balancers[0]: 101 target groups is above the maximum 100"
            + " per load balancer");
  }

  @Test
  void moreThan50LoadBalancers_andMoreThan3000TargetGroups_areRejected() {
    TargetGroup one = group("one", Protocol.HTTP, Map.of(), 0);
    List<TargetGroup> groups = new ArrayList<>();
    for (int i = 0; i < 3001; i++) {
      groups.add(new TargetGroup(one.arn() + i, "g" + i, one.targetType(), one.protocol(), one.port(),
          one.protocolVersion(), one.ipAddressType(), one.healthCheck(), one.attributes(), List.of()));
    }
    List<LoadBalancer> lbs = IntStream.range(0, 51)
        .mapToObj(i -> lb("lb" + i, listener(10_000 + i, forward(groups.get(i))))).toList();
    assertThat(check(lbs, groups)).containsExactly(
        "TooManyTargetGroups target-groups: 3001 target groups is above the maximum 3000",
        "TooManyLoadBalancers load-balancers: 51 application load balancers is above the maximum 50");
  }
}
