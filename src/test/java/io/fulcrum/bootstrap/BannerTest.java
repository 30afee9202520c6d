package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.TestPki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start-up banner shows each load balancer's zones and node addresses, and the DNS responder. */
class BannerTest {

  private static FulcrumConfig demo() throws IOException {
    return Gateway.config(Files.readString(Path.of("conf", "fulcrum.yaml")));
  }

  @Test
  void banner_listsEachLoadBalancersZonesWithTheirNodeAddresses_likeDescribeLoadBalancers() throws IOException {
    String banner = Banner.render(demo(), 9090, 8053, 2, "conf/fulcrum.yaml");

    assertThat(banner).contains("""
          load balancer demo  demo.us-east-1.elb.localhost
            zones:  zone-a (127.0.0.1)  zone-b (127.0.0.2)
            HTTP 8080:  http://127.0.0.1:8080/ (zone-a)  http://127.0.0.2:8080/ (zone-b)
        """);
  }

  @Test
  void banner_namesTheDnsResponder_withADigCommandToPaste() throws IOException {
    String banner = Banner.render(demo(), 9090, 8053, 2, "conf/fulcrum.yaml");

    assertThat(banner.lines()).contains("  dns            udp://127.0.0.1:8053  "
        + "(try: dig @127.0.0.1 -p 8053 demo.us-east-1.elb.localhost +short)");
  }

  @Test
  void banner_givesAnAwsCommandToPaste_withTheDemoKeyPair() throws IOException {
    FulcrumConfig demo = demo();
    String banner = Banner.render(demo, 9090, 8053, 2, "conf/fulcrum.yaml");

    assertThat(banner.lines()).contains(
        "  metrics        http://127.0.0.1:9090/metrics  (Prometheus, under CloudWatch's names)",
        "  dashboard      http://127.0.0.1:9090/ui",
        "  elbv2 api      http://127.0.0.1:9090  (owns the resources: kept in "
            + demo.dataDir().resolve("state.json") + "; delete it to seed them again from conf/fulcrum.yaml)",
        "  export AWS_ACCESS_KEY_ID=AKIAFULCRUMDEMO00001 AWS_SECRET_ACCESS_KEY=fulcrum-demo-secret"
            + " AWS_DEFAULT_REGION=us-east-1",
        "  aws --endpoint-url http://127.0.0.1:9090 elbv2 describe-target-health --target-group-arn "
            + demo.resources().targetGroupByName("web").orElseThrow().arn());
  }

  @Test
  void banner_neverPrintsASecretOtherThanTheDemos() {
    FulcrumConfig config = Gateway.config("""
        credentials: {access-key-id: AKIAOWN, secret-access-key: very-secret}
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80}
        """);

    String banner = Banner.render(config, 9090, -1, 1, "x.yaml");

    assertThat(banner).doesNotContain("very-secret")
        .contains("  export AWS_ACCESS_KEY_ID=AKIAOWN AWS_SECRET_ACCESS_KEY=<the configured secret>")
        .contains("(read-only: x.yaml owns the resources)");
  }

  @Test
  void banner_marksMutualTlsListeners_andOffersNoCurlWithoutACertificate(@TempDir Path dir) {
    Path bundle = TestPki.bundle(dir.resolve("ca.pem"), TestPki.root("Root").certificate());
    FulcrumConfig config = Gateway.config("""
        trust-stores: [{name: clients, ca-certificates: '%s'}]
        load-balancers:
          - name: secure
            listeners:
              - {protocol: HTTPS, port: 8443, mutual-authentication: {mode: verify, trust-store: clients},
                 default-actions: [{type: fixed-response, status-code: 200}]}
              - {protocol: HTTPS, port: 9443, mutual-authentication: {mode: passthrough},
                 default-actions: [{type: fixed-response, status-code: 200}]}
        """.formatted(bundle));

    String banner = Banner.render(config, 9090, -1, 1, "x.yaml");

    assertThat(banner).contains("HTTPS 8443:  https://127.0.0.1:8443/ (zone-a)  [mutual TLS: verify, trust store"
        + " clients]").contains("HTTPS 9443:  https://127.0.0.1:9443/ (zone-a)  [mutual TLS: passthrough]")
        .contains("curl -sk https://127.0.0.1:9443/").doesNotContain("curl -sk https://127.0.0.1:8443/");
  }

  @Test
  void banner_marksJwtValidation_andOffersNoCurlWhereTheDefaultActionWantsAToken() {
    String jwt = "{type: jwt-validation, jwks-endpoint: 'https://idp.example/jwks', issuer: 'https://idp.example'}";
    FulcrumConfig config = Gateway.config("""
        load-balancers:
          - name: api
            listeners:
              - protocol: HTTPS
                port: 8443
                default-actions: [%s, {type: fixed-response, status-code: 200}]
              - protocol: HTTPS
                port: 9443
                default-actions: [{type: fixed-response, status-code: 200}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: [/a]}],
                     actions: [%s, {type: fixed-response, status-code: 200}]}
        """.formatted(jwt, jwt));

    String banner = Banner.render(config, 9090, -1, 1, "x.yaml");

    assertThat(banner).contains("HTTPS 8443:  https://127.0.0.1:8443/ (zone-a)  [jwt-validation: the default action]")
        .contains("HTTPS 9443:  https://127.0.0.1:9443/ (zone-a)  [jwt-validation: 1 rule]")
        .contains("curl -sk https://127.0.0.1:9443/").doesNotContain("curl -sk https://127.0.0.1:8443/");
  }

  @Test
  void banner_marksAuthenticateOidc_andOffersNoCurlWhereTheDefaultActionSendsToSignInOrDenies() {
    String oidc = "{type: authenticate-oidc, issuer: 'https://idp.example', authorization-endpoint:"
        + " 'https://idp.example/authorize', token-endpoint: 'https://idp.example/token', user-info-endpoint:"
        + " 'https://idp.example/userinfo', client-id: c, client-secret: s";
    FulcrumConfig config = Gateway.config("""
        load-balancers:
          - name: app
            listeners:
              - protocol: HTTPS
                port: 7443
                default-actions: [%s}, {type: fixed-response, status-code: 200}]
              - protocol: HTTPS
                port: 8443
                default-actions: [%s, on-unauthenticated-request: deny}, {type: fixed-response, status-code: 200}]
              - protocol: HTTPS
                port: 9443
                default-actions: [%s, on-unauthenticated-request: allow}, {type: fixed-response, status-code: 200}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: [/a]}],
                     actions: [%s}, {type: fixed-response, status-code: 200}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: [/b]}],
                     actions: [%s}, {type: fixed-response, status-code: 200}]}
        """.formatted(oidc, oidc, oidc, oidc, oidc));

    String banner = Banner.render(config, 9090, -1, 1, "x.yaml");

    assertThat(banner)
        .contains("HTTPS 7443:  https://127.0.0.1:7443/ (zone-a)  [authenticate-oidc: the default action]")
        .contains("HTTPS 8443:  https://127.0.0.1:8443/ (zone-a)  [authenticate-oidc: the default action]")
        .contains("HTTPS 9443:  https://127.0.0.1:9443/ (zone-a)  [authenticate-oidc: 2 rules, the default action]")
        .as("a default action that lets requests without a session through answers curl")
        .contains("curl -sk https://127.0.0.1:9443/")
        .doesNotContain("curl -sk https://127.0.0.1:7443/").doesNotContain("curl -sk https://127.0.0.1:8443/");
  }

  @Test
  void banner_withTheDnsResponderOff_hasNoDnsLine() throws IOException {
    String banner = Banner.render(demo(), 9090, -1, 2, "conf/fulcrum.yaml");

    assertThat(banner).doesNotContain("udp://", "dig ");
  }

  @Test
  void banner_namesTheCluster_itsAddressAndMembers_onlyWhenThereIsOne() throws IOException {
    FulcrumConfig config = Gateway.config("""
        resources: {source: api}
        cluster: {enabled: true, name: prod, host: 10.0.0.5, port: 5701, members: ['10.0.0.6:5701', fulcrum-2]}
        """);

    assertThat(Banner.render(config, 9090, -1, 1, "x.yaml"))
        .contains("  cluster        prod on 10.0.0.5:5701  (shares the API's resources with 10.0.0.6:5701, fulcrum-2)\n");
    assertThat(Banner.render(demo(), 9090, -1, 2, "conf/fulcrum.yaml")).doesNotContain("cluster ");
  }

  @Test
  void banner_showsIpv6DnsAddressesInBracketsInTheUrl_andBareForDig() {
    FulcrumConfig config = Gateway.config("""
        nodes:
          - {zone: zone-a, address: "::1"}
        dns: {address: "::1", port: 5353}
        load-balancers:
          - name: six
        """);

    String banner = Banner.render(config, 9090, 5353, 1, "x.yaml");

    assertThat(banner).contains("    zones:  zone-a (::1)\n")
        .contains("  dns            udp://[::1]:5353  (try: dig @::1 -p 5353 six.us-east-1.elb.localhost +short)");
  }

  @Test
  void banner_givesACurlCommandToPaste_withInsecureForHttps() throws IOException {
    assertThat(Banner.render(demo(), 9090, 8053, 2, "conf/fulcrum.yaml").lines())
        .contains("  curl -s http://127.0.0.1:8080/");
    FulcrumConfig https = Gateway.config("""
        load-balancers:
          - name: tls
            listeners:
              - {protocol: HTTPS, port: 8443, default-actions: [{type: fixed-response, status-code: "200"}]}
        """);
    assertThat(Banner.render(https, 9090, -1, 1, "x.yaml").lines())
        .as("the self-signed certificate: curl would refuse it without -k").contains("  curl -sk https://127.0.0.1:8443/");
  }
}
