package io.fulcrum.balancer;

import io.fulcrum.model.Environment;
import io.fulcrum.model.IpAddressType;
import io.fulcrum.model.Node;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetDescription;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetType;
import io.fulcrum.model.Targets;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.ProtocolVersion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Builds target groups and plans for balancer tests: targets 10.0.&lt;zone&gt;.&lt;n&gt;:80. */
public final class Plans {

  static final Environment ENV = new Environment("us-east-1", "000000000000",
      List.of(new Node("zone-a", "127.0.0.1"), new Node("zone-b", "127.0.0.2")), List.of(), Map.of());

  private Plans() {
  }

  /** A group with {@code perZone} targets in each zone ("a1".."aN", "b1".."bN" by key prefix order). */
  public static TargetGroup group(int perZoneA, int perZoneB, Map<String, String> attributes) {
    Problems p = new Problems();
    TargetGroupAttributes attrs = TargetGroupAttributes.resolve(TargetType.IP, Protocol.HTTP, null, attributes, p);
    HealthCheck hc = HealthCheck.resolve(HealthCheck.Input.EMPTY, TargetType.IP, Protocol.HTTP, ProtocolVersion.HTTP1, p);
    List<Target> targets = new ArrayList<>();
    for (int i = 1; i <= perZoneA; i++) {
      targets.add(Targets.resolve(new TargetDescription("10.0.1." + i, 80, "zone-a"), TargetType.IP, 80,
          IpAddressType.IPV4, ENV, p));
    }
    for (int i = 1; i <= perZoneB; i++) {
      targets.add(Targets.resolve(new TargetDescription("10.0.2." + i, 80, "zone-b"), TargetType.IP, 80,
          IpAddressType.IPV4, ENV, p));
    }
    if (!p.isEmpty()) {
      throw new IllegalArgumentException(p.list().toString());
    }
    return new TargetGroup("arn:tg", "tg", TargetType.IP, Protocol.HTTP, 80, ProtocolVersion.HTTP1, IpAddressType.IPV4,
        hc, attrs, targets);
  }

  /** Health for keys: "10.0.1.1:80" style keys mapped from a compact spec: a1=healthy etc. */
  public static Map<String, TargetHealth> health(TargetGroup g, TargetHealth defaultHealth, Map<String, TargetHealth> overrides) {
    Map<String, TargetHealth> h = new HashMap<>();
    for (Target t : g.targets()) {
      h.put(t.key(), overrides.getOrDefault(t.key(), defaultHealth));
    }
    return h;
  }

  public static TargetGroupPlan plan(TargetGroup g, Map<String, TargetHealth> health) {
    return plan(g, health, Map.of());
  }

  static TargetGroupPlan plan(TargetGroup g, Map<String, TargetHealth> health, Map<String, Long> slowStart) {
    return TargetGroupPlan.build(new TargetGroupPlan.Inputs(g, List.of("zone-a", "zone-b"), health, List.of(), slowStart,
        Map.of(), t -> new Upstream(t.key(), t.id(), t.address(), t.port(), t.zone())));
  }

  public static String a(int i) {
    return "10.0.1." + i + ":80";
  }

  public static String b(int i) {
    return "10.0.2." + i + ":80";
  }
}
