package io.fulcrum.api;

import io.fulcrum.model.SecurityPolicy;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.stream.IntStream;

/**
 * DescribeSSLPolicies: the security policies an HTTPS or TLS listener takes as its
 * {@code SslPolicy} ({@link SecurityPolicy}), each with its TLS versions and its cipher suites in
 * AWS's (OpenSSL) names and order, prioritised from 1. Every policy serves application and network
 * load balancers alike; a gateway load balancer has none.
 */
final class SslPolicyOperations {

  private static final List<String> LOAD_BALANCER_TYPES = List.of("application", "network", "gateway");
  private static final List<String> SUPPORTED_BY = List.of("application", "network");

  private SslPolicyOperations() {
  }

  static void register(ElbApi api) {
    api.register("DescribeSSLPolicies", SslPolicyOperations::describe);
  }

  /**
   * The policies named by {@code Names} (each once, in the order given; an unknown name is
   * {@code SSLPolicyNotFound}), or every policy; those a {@code LoadBalancerType} takes; paged.
   */
  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    String type = p.string("LoadBalancerType");
    if (type != null && !LOAD_BALANCER_TYPES.contains(type)) {
      throw ApiError.constraint(type, "loadBalancerType", "satisfy enum value set: " + LOAD_BALANCER_TYPES);
    }
    List<SecurityPolicy> policies = new ArrayList<>();
    List<String> names = p.strings("Names");
    if (names.isEmpty()) {
      policies.addAll(SecurityPolicy.all());
    } else {
      for (String name : new LinkedHashSet<>(names)) {
        SecurityPolicy policy = SecurityPolicy.named(name);
        if (policy == null) {
          throw ApiError.sender("SSLPolicyNotFound", "The SSL policy '" + name + "' was not found");
        }
        policies.add(policy);
      }
    }
    if (type != null && !SUPPORTED_BY.contains(type)) {
      policies.clear();
    }
    MarkerPaging.Page<SecurityPolicy> page = MarkerPaging.page(policies, p);
    return Future.succeededFuture(List.of(
        Xml.list("SslPolicies", page.items(), SslPolicyOperations::member),
        Xml.text("NextMarker", page.nextMarker())));
  }

  private static Xml member(SecurityPolicy policy) {
    List<String> ciphers = policy.ciphers();
    return Xml.el("member")
        .add(Xml.strings("SslProtocols", policy.protocols()))
        .add(Xml.list("Ciphers", IntStream.range(0, ciphers.size()).boxed().toList(),
            i -> Xml.el("member").add("Name", ciphers.get(i)).add("Priority", i + 1)))
        .add("Name", policy.name())
        .add(Xml.strings("SupportedLoadBalancerTypes", SUPPORTED_BY));
  }
}
