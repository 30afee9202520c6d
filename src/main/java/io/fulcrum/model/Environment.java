package io.fulcrum.model;

import java.util.List;
import java.util.Map;

/**
 * What a deployment of Fulcrum looks like to the resources it runs: region and account (for
 * ARNs), its nodes (zones and addresses), its "VPC" CIDRs (where IP targets may live besides the
 * private ranges), the instance inventory, the function registry, the trust stores (by ARN; a
 * listener takes its trust store's files from here, as they are now), the digests of the server
 * certificates' files as they were last read (by certificate ARN: a listener's TLS settings carry
 * them, so that a certificate replaced in place is read again) and the sockets of the process that
 * no listener may take (control, DNS, demo targets, cluster). Immutable.
 */
public record Environment(
    String region,
    String account,
    List<Node> nodes,
    List<Cidr> vpcCidrs,
    Map<String, Instance> instances,
    Map<String, FunctionDefinition> functions,
    Map<String, TrustStore> trustStores,
    List<ReservedSocket> reserved,
    Map<String, String> certificateDigests) {

  public static final String DEFAULT_REGION = "us-east-1";
  public static final String DEFAULT_ACCOUNT = "000000000000";
  public static final String VPC_ID = "vpc-fulcrum";

  public Environment {
    nodes = List.copyOf(nodes);
    vpcCidrs = List.copyOf(vpcCidrs);
    instances = Map.copyOf(instances);
    functions = Map.copyOf(functions);
    trustStores = Map.copyOf(trustStores);
    reserved = List.copyOf(reserved);
    certificateDigests = Map.copyOf(certificateDigests);
  }

  /** A deployment whose process has no socket but its listeners' to watch for ({@link #reserved}). */
  public Environment(String region, String account, List<Node> nodes, List<Cidr> vpcCidrs,
      Map<String, Instance> instances, Map<String, FunctionDefinition> functions, Map<String, TrustStore> trustStores) {
    this(region, account, nodes, vpcCidrs, instances, functions, trustStores, List.of(), Map.of());
  }

  /** The same deployment, whose process holds {@code sockets} besides its listeners'. */
  public Environment withReserved(List<ReservedSocket> sockets) {
    return new Environment(region, account, nodes, vpcCidrs, instances, functions, trustStores, sockets,
        certificateDigests);
  }

  /** The same deployment, whose certificates' files read as {@code digests} (by certificate ARN). */
  public Environment withCertificateDigests(Map<String, String> digests) {
    return new Environment(region, account, nodes, vpcCidrs, instances, functions, trustStores, reserved, digests);
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
