package io.fulcrum.config;

import io.fulcrum.model.Arns;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.TrustStore;
import io.fulcrum.tls.ClientCertificateVerifier;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the top-level {@code trust-stores} (mutual TLS verify mode: CA bundles and revocation
 * lists, each file read and checked now, so that a bad one stops start-up naming its key) and an
 * HTTPS listener's {@code mutual-authentication}.
 */
final class TrustStoreParser {

  /** ELBv2's trust store names: up to 32 letters, digits and hyphens, no hyphen first or last. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?");

  private TrustStoreParser() {
  }

  /**
   * The trust stores by name, in the file's order; one with problems is there without a value
   * (null), so that a listener naming it is not told it does not exist as well.
   */
  static Map<String, TrustStore> parse(ConfigNode root, Arns arns) {
    Map<String, TrustStore> out = new LinkedHashMap<>();
    for (ConfigNode t : root.objects("trust-stores")) {
      int before = t.problems().size();
      String name = t.string("name", null);
      if (name == null || !NAME.matcher(name).matches()) {
        t.at("name").add("a name of 1-32 letters, digits and hyphens (not first or last) is required");
      } else if (out.containsKey(name)) {
        t.at("name").add("a trust store named '" + name + "' is already defined");
      }
      String bundle = t.string("ca-certificates", null);
      if (bundle == null) {
        t.at("ca-certificates").add("a PEM file of CA certificates is required");
      }
      List<String> revocations = t.strings("revocations");
      t.finish();
      if (t.problems().size() > before) {
        if (name != null && !out.containsKey(name)) {
          out.put(name, null);
        }
        continue;
      }
      List<String> crls = revocations == null ? List.of() : revocations;
      List<X509Certificate> cas;
      try {
        cas = ClientCertificateVerifier.readAuthorities(bundle);
      } catch (IllegalArgumentException e) {
        t.at("ca-certificates").add(e.getMessage());
        out.put(name, null);
        continue;
      }
      TrustStore files = new TrustStore(arns.trustStore(name), name, bundle, crls);
      String digest = ClientCertificateVerifier.digest(files);
      ClientCertificateVerifier read;
      try {
        read = ClientCertificateVerifier.load(cas, files, false, false, Clock.systemUTC());
      } catch (IllegalArgumentException e) {
        t.at("revocations").add(e.getMessage()); // the bundle was read above
        out.put(name, null);
        continue;
      }
      out.put(name, new TrustStore(files.arn(), name, bundle, crls, read.authorities(), read.revokedPerList(),
          digest));
    }
    return out;
  }

  /**
   * A listener's {@code mutual-authentication}: {@code mode} (off, passthrough, verify),
   * {@code trust-store} (verify: a trust store's name or ARN), {@code ignore-client-certificate-expiry}
   * and {@code advertise-trust-store-ca-names} (verify; on or off).
   *
   * @return the settings, or null when a problem was recorded
   */
  static MutualAuthentication mutualAuthentication(ConfigNode m, Map<String, TrustStore> trustStores) {
    int before = m.problems().size();
    String modeName = m.string("mode", null);
    MutualAuthentication.Mode mode = modeName == null ? null : MutualAuthentication.Mode.named(modeName);
    if (modeName == null) {
      m.at("mode").add("a mode is required (off, passthrough or verify)");
    } else if (mode == null) {
      m.at("mode").add(MutualAuthentication.Mode.unknown(modeName));
    }
    String storeName = m.string("trust-store", null);
    TrustStore store = null;
    if (storeName != null && trustStores.containsKey(storeName) && trustStores.get(storeName) == null) {
      return null; // a trust store with problems of its own, reported at its key
    }
    if (storeName != null) {
      store = trustStores.values().stream().filter(s -> s != null && (s.name().equals(storeName)
          || s.arn().equals(storeName))).findFirst().orElse(null);
      if (store == null) {
        m.at("trust-store").add("TrustStoreNotFound", "no trust store named '" + storeName
            + "' (trust-stores: " + String.join(", ", trustStores.keySet()) + ")");
      }
    }
    Boolean ignoreExpiry = m.bool("ignore-client-certificate-expiry", null);
    // YAML reads a bare on/off as true/false.
    String advertise = m.string("advertise-trust-store-ca-names", null);
    if ("true".equals(advertise) || "false".equals(advertise)) {
      advertise = "true".equals(advertise) ? "on" : "off";
    }
    if (mode != null && m.problems().size() == before) {
      String problem = MutualAuthentication.problem(mode, storeName != null, ignoreExpiry, advertise);
      if (problem != null) {
        m.problems().add(problem);
      }
    }
    if (m.problems().size() > before) {
      return null;
    }
    return new MutualAuthentication(mode, store, Boolean.TRUE.equals(ignoreExpiry), "on".equals(advertise));
  }
}
