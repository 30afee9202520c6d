package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.fulcrum.model.Resources;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.TestPki;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the journal records of a configuration change, read from two real configurations. */
class ResourceChangesTest {

  private static Resources parse(String yaml) {
    return Gateway.config(yaml).resources();
  }

  private static final String BEFORE = """
      load-balancers:
        - name: shop
          listeners:
            - protocol: HTTP
              port: 8080
              default-actions: [{type: forward, target-group: web}]
              rules:
                - {priority: 1, conditions: [{field: path-pattern, values: [/a]}], actions: [{type: forward, target-group: web}]}
                - {priority: 2, conditions: [{field: path-pattern, values: [/b]}], actions: [{type: forward, target-group: web}]}
            - protocol: HTTP
              port: 8081
              default-actions: [{type: forward, target-group: web}]
        - name: old
          listeners:
            - {protocol: HTTP, port: 8090, default-actions: [{type: fixed-response, status-code: "200"}]}
      target-groups:
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          targets: [{id: 127.0.0.1, port: 9001}]
        - name: legacy
          target-type: ip
          protocol: HTTP
          port: 80
      """;

  private static final String AFTER = """
      load-balancers:
        - name: shop
          listeners:
            - protocol: HTTP
              port: 8080
              default-actions: [{type: fixed-response, status-code: "503"}]
              rules:
                - {priority: 1, conditions: [{field: path-pattern, values: [/a, /aa]}], actions: [{type: forward, target-group: web}]}
                - {priority: 3, conditions: [{field: path-pattern, values: [/c]}], actions: [{type: forward, target-group: web}]}
                - {priority: 4, conditions: [{field: path-pattern, values: [/d]}], actions: [{type: forward, target-group: web}]}
        - name: new
          listeners:
            - {protocol: HTTP, port: 8091, default-actions: [{type: fixed-response, status-code: "200"}]}
      target-groups:
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          health-check: {path: /health}
          attributes: {deregistration_delay.timeout_seconds: 30}
          targets: [{id: 127.0.0.1, port: 9001}, {id: 127.0.0.1, port: 9002, zone: zone-a}]
      """;

  @Test
  void aReload_isListedChangeByChange() {
    assertThat(ResourceChanges.between(parse(BEFORE), parse(AFTER))).extracting(ResourceChanges.Change::type,
        ResourceChanges.Change::loadBalancer, ResourceChanges.Change::targetGroup, ResourceChanges.Change::target,
        ResourceChanges.Change::description).containsExactly(
        tuple("ListenerModified", "shop", null, null, "HTTP:8080: default actions; rules: 2 added, 1 deleted, 1 changed"),
        tuple("ListenerDeleted", "shop", null, null, "HTTP:8081"),
        tuple("LoadBalancerCreated", "new", null, null, "1 listener(s), zones zone-a"),
        tuple("LoadBalancerDeleted", "old", null, null, null),
        tuple("TargetGroupModified", null, "web", null, "deregistration_delay.timeout_seconds 300 \u2192 30;"
            + " health check path / \u2192 /health"),
        tuple("TargetRegistered", null, "web", "127.0.0.1:9002", null),
        tuple("TargetGroupDeleted", null, "legacy", null, null));
  }

  @Test
  void aListenersMutualTls_isNamedWithItsTrustStoreAndOptions(@TempDir Path dir) {
    Path bundle = TestPki.bundle(dir.resolve("ca.pem"), TestPki.root("Root").certificate());
    String yaml = """
        trust-stores: [{name: clients, ca-certificates: '%s'}]
        load-balancers:
          - name: shop
            listeners:
              - protocol: HTTPS
                port: 8443
                mutual-authentication: %s
                default-actions: [{type: fixed-response, status-code: "200"}]
        """;

    assertThat(ResourceChanges.between(parse(yaml.formatted(bundle, "{mode: passthrough}")),
        parse(yaml.formatted(bundle, "{mode: verify, trust-store: clients, ignore-client-certificate-expiry: true}"))))
        .extracting(ResourceChanges.Change::description)
        .containsExactly("HTTPS:8443: mutual authentication passthrough \u2192 verify (clients, expiry ignored)");

    // The same settings, the trust store's list replaced in place: read again.
    String verify = "{mode: verify, trust-store: clients}";
    String withList = yaml.replace("ca-certificates: '%s'}", "ca-certificates: '%s', revocations: ['%s']}");
    TestPki.Issued root = TestPki.root("Root");
    Path ca = TestPki.bundle(dir.resolve("ca2.pem"), root.certificate());
    Path crl = TestPki.crl(dir.resolve("ca2.crl"), root);
    Resources before = parse(withList.formatted(ca, crl, verify));
    TestPki.crl(crl, root, TestPki.client(root, "gone").certificate());
    assertThat(ResourceChanges.between(before, parse(withList.formatted(ca, crl, verify))))
        .extracting(ResourceChanges.Change::description)
        .containsExactly("HTTPS:8443: trust store clients read again (1 CA certificates, 1 revoked)");
  }

  @Test
  void noChange_isNoEvent() {
    assertThat(ResourceChanges.between(parse(BEFORE), parse(BEFORE))).isEmpty();
  }
}
