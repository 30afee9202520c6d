package io.fulcrum.bench;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.model.Environment;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.IpAddressType;
import io.fulcrum.model.Node;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetDescription;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetType;
import io.fulcrum.model.Targets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Target groups and their plans built the way the registry builds them, through the model's own
 * validation: {@code n} ip targets 10.0.x.y:80 in zone-a, every one healthy.
 */
final class Groups {

  static final String ZONE = "zone-a";
  static final Environment ENV = new Environment("us-east-1", "000000000000",
      List.of(new Node(ZONE, "127.0.0.1")), List.of(), Map.of());

  private Groups() {
  }

  static TargetGroup group(String name, int n, Map<String, String> attributes) {
    Problems p = new Problems();
    TargetGroupAttributes attrs = TargetGroupAttributes.resolve(TargetType.IP, Protocol.HTTP, null, attributes, p);
    HealthCheck hc = HealthCheck.resolve(HealthCheck.Input.EMPTY, TargetType.IP, Protocol.HTTP, ProtocolVersion.HTTP1, p);
    List<Target> targets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String ip = "10.0." + (i / 250) + "." + (i % 250 + 1);
      targets.add(Targets.resolve(new TargetDescription(ip, 80, ZONE), TargetType.IP, 80, IpAddressType.IPV4, ENV, p));
    }
    if (!p.isEmpty()) {
      throw new IllegalArgumentException(p.list().toString());
    }
    return new TargetGroup("arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/" + name + "/0123456789abcdef",
        name, TargetType.IP, Protocol.HTTP, 80, ProtocolVersion.HTTP1, IpAddressType.IPV4, hc, attrs, targets);
  }

  /** Every target healthy; slow-start start times and anomaly weights as given (by target key). */
  static TargetGroupPlan plan(TargetGroup g, Map<String, Long> slowStartSince, Map<String, Double> anomalyWeights) {
    Map<String, TargetHealth> health = new HashMap<>();
    for (Target t : g.targets()) {
      health.put(t.key(), TargetHealth.HEALTHY);
    }
    return TargetGroupPlan.build(new TargetGroupPlan.Inputs(g, List.of(ZONE), health, List.of(), slowStartSince,
        anomalyWeights, t -> new Upstream(t.key(), t.id(), t.address(), t.port(), t.zone())));
  }
}
