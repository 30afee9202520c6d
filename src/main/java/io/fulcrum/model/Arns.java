package io.fulcrum.model;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Builds ELBv2 ARNs and DNS names. Ids of resources defined in the config file are derived from
 * their names, so they are the same on every start.
 */
public record Arns(String region, String account) {

  private static final String PREFIX = "arn:aws:elasticloadbalancing:";

  public String targetGroup(String name, String id) {
    return PREFIX + region + ":" + account + ":targetgroup/" + name + "/" + id;
  }

  public String loadBalancer(LoadBalancerType type, String name, String id) {
    return PREFIX + region + ":" + account + ":loadbalancer/" + shortType(type) + "/" + name + "/" + id;
  }

  public String listener(LoadBalancerType type, String lbName, String lbId, String id) {
    return PREFIX + region + ":" + account + ":listener/" + shortType(type) + "/" + lbName + "/" + lbId + "/" + id;
  }

  public String rule(LoadBalancerType type, String lbName, String lbId, String listenerId, String id) {
    return PREFIX + region + ":" + account + ":listener-rule/" + shortType(type) + "/" + lbName + "/" + lbId + "/"
        + listenerId + "/" + id;
  }

  /** A trust store's ARN: {@code ...:truststore/<name>/<id>}, the id derived from the name. */
  public String trustStore(String name) {
    return PREFIX + region + ":" + account + ":truststore/" + name + "/" + stableId("truststore", name);
  }

  /** An ACM-style certificate ARN derived from where the certificate comes from. */
  public String certificate(String source) {
    String h = stableId("certificate", source) + stableId("certificate-2", source);
    return "arn:aws:acm:" + region + ":" + account + ":certificate/" + h.substring(0, 8) + "-" + h.substring(8, 12) + "-"
        + h.substring(12, 16) + "-" + h.substring(16, 20) + "-" + h.substring(20, 32);
  }

  /** The ARN of the self-signed certificate Fulcrum generates into its data dir. */
  public String selfSignedCertificate() {
    return certificate("fulcrum:self-signed");
  }

  /** The default domain of load balancer DNS names. */
  public static final String DEFAULT_DNS_DOMAIN = "elb.localhost";

  /** {@code <name>.<region>.<domain>}, e.g. {@code demo.us-east-1.elb.localhost}. */
  public String dnsName(String lbName, String domain) {
    return lbName.toLowerCase(java.util.Locale.ROOT) + "." + region + "." + domain;
  }

  /** A stable 16-hex-digit id derived from the parts (resources defined in the config file). */
  public String stableId(String... parts) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update((region + "/" + account).getBytes(StandardCharsets.UTF_8));
      for (String p : parts) {
        md.update((byte) 0);
        md.update(p.getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(md.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The last part of an ARN: its id. */
  public static String idOf(String arn) {
    return arn.substring(arn.lastIndexOf('/') + 1);
  }

  /**
   * The value of CloudWatch's {@code LoadBalancer} dimension, {@code app/<name>/<id>}, from a load
   * balancer's ARN or one of its listeners'.
   */
  public static String loadBalancerDimension(String arn) {
    int lb = arn.indexOf(":loadbalancer/");
    if (lb >= 0) {
      return arn.substring(lb + ":loadbalancer/".length());
    }
    int listener = arn.indexOf(":listener/");
    if (listener >= 0) {
      return arn.substring(listener + ":listener/".length(), arn.lastIndexOf('/'));
    }
    throw new IllegalArgumentException("not a load balancer or listener ARN: " + arn);
  }

  /** The name in a load balancer's ARN ({@code ...:loadbalancer/app/<name>/<id>}). */
  public static String loadBalancerName(String arn) {
    String dimension = loadBalancerDimension(arn);
    return dimension.substring(dimension.indexOf('/') + 1, dimension.lastIndexOf('/'));
  }

  /** The value of CloudWatch's {@code TargetGroup} dimension, {@code targetgroup/<name>/<id>}. */
  public static String targetGroupDimension(String arn) {
    return arn.substring(arn.lastIndexOf(':') + 1);
  }

  private static String shortType(LoadBalancerType type) {
    return type == LoadBalancerType.APPLICATION ? "app" : "net";
  }
}
