package io.fulcrum.config;

import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Listener;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.TrustStore;
import io.fulcrum.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trust-stores} and an HTTPS listener's {@code mutual-authentication} in the config file:
 * the files are read and checked at load, and what does not fit is refused at its key.
 */
class ConfigParserMutualTlsTest {

  @TempDir
  Path dir;
  private Path bundle;
  private Path crl;

  @BeforeEach
  void pki() {
    TestPki.Issued root = TestPki.root("Root");
    TestPki.Issued ca = TestPki.intermediate(root, "CA");
    bundle = TestPki.bundle(dir.resolve("ca.pem"), root.certificate(), ca.certificate());
    crl = TestPki.crl(dir.resolve("ca.crl"), ca, TestPki.client(ca, "gone").certificate(),
        TestPki.client(ca, "lost").certificate());
  }

  private String config(String trustStores, String protocol, String mutualAuthentication) {
    return """
        trust-stores:
        %s
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80}
        load-balancers:
          - name: demo
            listeners:
              - protocol: %s
                port: 8443
                mutual-authentication: %s
                default-actions: [{type: forward, target-group: web}]
        """.formatted(Configs.indent(trustStores, "  "), protocol, mutualAuthentication);
  }

  private String store() {
    return "- {name: clients, ca-certificates: '" + bundle + "', revocations: ['" + crl + "']}";
  }

  @Test
  void verify_namesATrustStore_readWithItsCounts_andTakesItsOptions() {
    FulcrumConfig config = parse(config(store(), "HTTPS", "{mode: verify, trust-store: clients,"
        + " ignore-client-certificate-expiry: true, advertise-trust-store-ca-names: on}"));

    TrustStore clients = config.environment().trustStores().values().iterator().next();
    assertThat(clients.name()).isEqualTo("clients");
    assertThat(clients.arn()).matches("arn:aws:elasticloadbalancing:us-east-1:\\d{12}:truststore/clients/[0-9a-f]{16}");
    assertThat(clients.caCount()).isEqualTo(2);
    assertThat(clients.revokedCount()).isEqualTo(2);
    Listener l = config.resources().loadBalancers().get(0).listeners().get(0);
    assertThat(l.mutualAuthentication()).isEqualTo(new MutualAuthentication(MutualAuthentication.Mode.VERIFY, clients,
        true, true));
  }

  @Test
  void passthrough_needsNoTrustStore_andAListenerWithoutTheKeyHasNone() {
    Listener passthrough = parse(config(store(), "HTTPS", "{mode: passthrough}")).resources().loadBalancers().get(0)
        .listeners().get(0);
    assertThat(passthrough.mutualAuthentication().mode()).isEqualTo(MutualAuthentication.Mode.PASSTHROUGH);

    Listener off = parse(config(store(), "HTTPS", "{mode: 'off'}")).resources().loadBalancers().get(0)
        .listeners().get(0);
    assertThat(off.mutualAuthentication()).isEqualTo(MutualAuthentication.OFF);
  }

  @Test
  void listenerSettingsThatDoNotFit_areRefusedAtTheirKey() {
    String at = "load-balancers[0].listeners[0].mutual-authentication";
    assertThat(messages(config(store(), "HTTP", "{mode: verify, trust-store: clients}")))
        .containsExactly(at + ": mutual authentication is only for HTTPS listeners");
    assertThat(messages(config(store(), "HTTPS", "{mode: strict}")))
        .containsExactly(at + ".mode: 'strict' is not a mutual authentication mode (expected one of: off,"
            + " passthrough, verify)");
    assertThat(messages(config(store(), "HTTPS", "{mode: verify}")))
        .containsExactly(at + ": verify mode needs a trust store");
    assertThat(messages(config(store(), "HTTPS", "{mode: passthrough, trust-store: clients}")))
        .containsExactly(at + ": a trust store is only used in verify mode");
    assertThat(messages(config(store(), "HTTPS", "{mode: passthrough, ignore-client-certificate-expiry: true}")))
        .containsExactly(at + ": ignoring client certificate expiry applies to verify mode only");
    assertThat(messages(config(store(), "HTTPS", "{mode: verify, trust-store: partners}")))
        .containsExactly(at + ".trust-store: no trust store named 'partners' (trust-stores: clients)");
    assertThat(messages(config(store(), "HTTPS", "{mode: verify, trust-store: clients, strict: true}")))
        .singleElement().asString().startsWith(at + ".strict: ");
  }

  @Test
  void trustStoresThatDoNotFit_areRefusedAtTheirKey() throws Exception {
    Path notCa = Files.writeString(dir.resolve("empty.pem"), "");
    String listener = "{mode: passthrough}";
    assertThat(messages(config("- {name: -bad, ca-certificates: '" + bundle + "'}", "HTTPS", listener)))
        .containsExactly("trust-stores[0].name: a name of 1-32 letters, digits and hyphens (not first or last) is"
            + " required");
    assertThat(messages(config("- {name: clients}", "HTTPS", listener)))
        .containsExactly("trust-stores[0].ca-certificates: a PEM file of CA certificates is required");
    assertThat(messages(config("- {name: clients, ca-certificates: '" + notCa + "'}", "HTTPS", listener)))
        .containsExactly("trust-stores[0].ca-certificates: '" + notCa + "' holds no certificate (expected PEM CA"
            + " certificates)");
    assertThat(messages(config("- {name: clients, ca-certificates: '" + bundle + "', revocations: ['" + bundle
        + "']}", "HTTPS", listener))).singleElement().asString()
        .startsWith("trust-stores[0].revocations: '" + bundle + "' is not a certificate revocation list");
    assertThat(messages(config(store() + "\n" + store(), "HTTPS", listener)))
        .containsExactly("trust-stores[1].name: a trust store named 'clients' is already defined");
  }
}
