package io.fulcrum.model;

import java.util.List;
import java.util.Map;

/**
 * What a deployment of Fulcrum looks like to the resources it runs: region and account (for
 * ARNs), its nodes (zones and addresses), its "VPC" CIDRs (where IP targets may live besides the
 * private ranges), the instance inventory, the function registry and the trust stores (by ARN; a
 * listener takes its trust store's files from here, as they are now). Immutable.
 */
public record Environment(
    String region,
    String account,
    List<Node> nodes,
    List<Cidr> vpcCidrs,
    Map<String, Instance> instances,
    Map<String, FunctionDefinition> functions,
    Map<String, TrustStore> trustStores) {

  public static final String DEFAULT_REGION = "us-east-1";
  public static final String DEFAULT_ACCOUNT = "000000000000";
  public static final String VPC_ID = "vpc-fulcrum";

  public Environment {
    nodes = List.copyOf(nodes);
    vpcCidrs = List.copyOf(vpcCidrs);
    instances = Map.copyOf(instances);
    functions = Map.copyOf(functions);
    trustStores = Map.copyOf(trustStores);
  }

  /** A deployment without trust stores. */
  public Environment(String region, String account, List<Node> nodes, List<Cidr> vpcCidrs,
      Map<String, Instance> instances, Map<String, FunctionDefinition> functions) {
    this(region, account, nodes, vpcCidrs, instances, functions, Map.of());
  }

  /** A deployment without functions. */
  public Environment(String region, String account, List<Node> nodes, List<Cidr> vpcCidrs,
      Map<String, Instance> instances) {
    this(region, account, nodes, vpcCidrs, instances, Map.of());
  }

  /** Every zone that has a node, in node order, without duplicates. */
  public List<String> zones() {
    return nodes.stream().map(Node::zone).distinct().toList();
  }

  public Arns arns() {
    return new Arns(region, account);
  }
}
