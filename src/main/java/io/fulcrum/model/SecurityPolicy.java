package io.fulcrum.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * An ELB security policy (the {@code SslPolicy} of an HTTPS listener): TLS versions and cipher
 * suites, in AWS's (OpenSSL) names, with their JSSE names for the JVM.
 *
 * <p>The JVM running Fulcrum may refuse part of a policy: Java 17 disables TLS 1.0 and 1.1 by
 * default (`jdk.tls.disabledAlgorithms`), so a policy that lists them offers TLS 1.2 and 1.3 only;
 * suites the JVM does not implement are left out. {@code DescribeSSLPolicies}-style reporting uses
 * the AWS lists unchanged.
 */
public record SecurityPolicy(String name, List<String> protocols, List<String> ciphers) {

  private static final List<String> TLS13 = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
      "TLS_CHACHA20_POLY1305_SHA256");
  private static final List<String> ECDHE_GCM = List.of("ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
      "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384");
  private static final List<String> ECDHE_SHA2 = List.of("ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
      "ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
      "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-AES256-SHA384", "ECDHE-RSA-AES256-SHA384");
  private static final List<String> ECDHE_ALL = List.of("ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
      "ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-SHA256", "ECDHE-ECDSA-AES128-SHA", "ECDHE-RSA-AES128-SHA",
      "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-ECDSA-AES256-SHA384",
      "ECDHE-RSA-AES256-SHA384", "ECDHE-RSA-AES256-SHA", "ECDHE-ECDSA-AES256-SHA");
  private static final List<String> RSA_SHA2 = List.of("AES128-GCM-SHA256", "AES128-SHA256", "AES256-GCM-SHA384",
      "AES256-SHA256");
  private static final List<String> RSA_ALL = List.of("AES128-GCM-SHA256", "AES128-SHA256", "AES128-SHA",
      "AES256-GCM-SHA384", "AES256-SHA256", "AES256-SHA");
  private static final List<String> V1_0_TO_1_2 = List.of("TLSv1", "TLSv1.1", "TLSv1.2");

  private static final Map<String, SecurityPolicy> POLICIES = new LinkedHashMap<>();

  static {
    List<String> legacy = concat(ECDHE_ALL, RSA_ALL);
    add("ELBSecurityPolicy-2016-08", V1_0_TO_1_2, legacy);
    add("ELBSecurityPolicy-2015-05", V1_0_TO_1_2, legacy);
    add("ELBSecurityPolicy-TLS-1-1-2017-01", List.of("TLSv1.1", "TLSv1.2"), legacy);
    add("ELBSecurityPolicy-TLS-1-2-2017-01", List.of("TLSv1.2"), concat(ECDHE_SHA2, RSA_SHA2));
    add("ELBSecurityPolicy-TLS-1-2-Ext-2018-06", List.of("TLSv1.2"), legacy);
    add("ELBSecurityPolicy-FS-2018-06", V1_0_TO_1_2, ECDHE_ALL);
    add("ELBSecurityPolicy-FS-1-1-2019-08", List.of("TLSv1.1", "TLSv1.2"), ECDHE_ALL);
    add("ELBSecurityPolicy-FS-1-2-2019-08", List.of("TLSv1.2"), ECDHE_ALL);
    add("ELBSecurityPolicy-FS-1-2-Res-2019-08", List.of("TLSv1.2"), ECDHE_SHA2);
    add("ELBSecurityPolicy-FS-1-2-Res-2020-10", List.of("TLSv1.2"), ECDHE_GCM);
    add("ELBSecurityPolicy-TLS13-1-3-2021-06", List.of("TLSv1.3"), TLS13);
    add("ELBSecurityPolicy-TLS13-1-2-2021-06", List.of("TLSv1.2", "TLSv1.3"), concat(TLS13, ECDHE_SHA2));
    add("ELBSecurityPolicy-TLS13-1-2-Res-2021-06", List.of("TLSv1.2", "TLSv1.3"), concat(TLS13, ECDHE_GCM));
    add("ELBSecurityPolicy-TLS13-1-2-Ext1-2021-06", List.of("TLSv1.2", "TLSv1.3"), concat(TLS13, ECDHE_SHA2, RSA_SHA2));
    add("ELBSecurityPolicy-TLS13-1-2-Ext2-2021-06", List.of("TLSv1.2", "TLSv1.3"), concat(TLS13, legacy));
    add("ELBSecurityPolicy-TLS13-1-1-2021-06", List.of("TLSv1.1", "TLSv1.2", "TLSv1.3"), concat(TLS13, legacy));
    add("ELBSecurityPolicy-TLS13-1-0-2021-06", List.of("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"), concat(TLS13, legacy));
  }

  private static void add(String name, List<String> protocols, List<String> ciphers) {
    POLICIES.put(name, new SecurityPolicy(name, protocols, ciphers));
  }

  @SafeVarargs
  private static List<String> concat(List<String>... lists) {
    return Stream.of(lists).flatMap(List::stream).distinct().toList();
  }

  /** The policy with this name, or null. */
  public static SecurityPolicy named(String name) {
    return POLICIES.get(name);
  }

  /** Every policy Fulcrum knows, in AWS's usual listing order. */
  public static List<SecurityPolicy> all() {
    return List.copyOf(POLICIES.values());
  }

  public static Set<String> names() {
    return POLICIES.keySet();
  }

  /**
   * Every policy's cipher suites in JSSE's names, in the one order of preference they all list
   * them in: a server offering any subset prefers its suites in this order (ECDHE before plain RSA
   * key exchange, GCM before CBC, 128 before 256 bits).
   */
  public static List<String> jssePreference() {
    return PREFERENCE;
  }

  private static final List<String> PREFERENCE = Stream.of(TLS13, ECDHE_ALL, RSA_ALL).flatMap(List::stream)
      .map(SecurityPolicy::jsse).toList();

  /** Whether the policy offers TLS 1.3 (then targets are reached with a TLS 1.3 policy too). */
  public boolean tls13() {
    return protocols.contains("TLSv1.3");
  }

  /** The cipher suites in JSSE's names, TLS 1.3 suites first. */
  public List<String> jsseCiphers() {
    return ciphers.stream().map(SecurityPolicy::jsse).collect(Collectors.toList());
  }

  /** An OpenSSL cipher name as JSSE names it ({@code ECDHE-RSA-AES128-GCM-SHA256} → {@code TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}). */
  static String jsse(String openssl) {
    if (openssl.startsWith("TLS_")) {
      return openssl;
    }
    String kx = "TLS_RSA_WITH_";
    String rest = openssl;
    if (openssl.startsWith("ECDHE-ECDSA-")) {
      kx = "TLS_ECDHE_ECDSA_WITH_";
      rest = openssl.substring("ECDHE-ECDSA-".length());
    } else if (openssl.startsWith("ECDHE-RSA-")) {
      kx = "TLS_ECDHE_RSA_WITH_";
      rest = openssl.substring("ECDHE-RSA-".length());
    }
    String bits = rest.startsWith("AES128") ? "AES_128_" : "AES_256_";
    String tail = rest.substring(6);
    String mode;
    if (tail.startsWith("-GCM-")) {
      mode = "GCM_" + tail.substring(5);
    } else {
      mode = "CBC_" + tail.substring(1);
    }
    return kx + bits + mode;
  }
}
