package io.fulcrum.tls;

import io.vertx.core.Vertx;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PfxOptions;
import io.vertx.core.net.impl.KeyStoreHelper;
import java.net.Socket;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A TLS listener's certificates (PEM pairs, or the entries of one PKCS#12 keystore, in the order
 * listed) as Vert.x key options, chosen the way ALB chooses:
 * <ul>
 *   <li>a client that names no server, or a name that no certificate has, is served the default
 *       certificate: the first listed, and only it;</li>
 *   <li>a name that certificates have (a DNS subject alternative name, or the common name; a
 *       {@code *.example.com} wildcard stands for one label) is served one of those, with an exact
 *       name before a wildcard; and where several of them have keys of different types (an ECDSA and
 *       an RSA certificate for one site), the TLS engine takes the first listed of a type the client
 *       can use: ECDSA for a client that offers it, RSA for one that does not (ALB's smart certificate
 *       selection).</li>
 * </ul>
 * Vert.x's own options served the default from every certificate at once (an arbitrary one of the
 * key type wanted) and kept one certificate per name, the last listed. Vert.x asks for the key
 * managers off the event loop as it builds the listener's TLS context, and that is when the files
 * are read. Equal for equal files, so that an unchanged listener keeps its context.
 *
 * @param files       the certificates' files as Vert.x reads them
 * @param keyPassword the password of the keys in the key store Vert.x makes of {@code files}
 */
public record ServerKeyCertOptions(KeyCertOptions files, String keyPassword) implements KeyCertOptions {

  private static final Pattern PEM_ENTRY = Pattern.compile("dummy-entry-(\\d+)");

  /** PEM pairs, the first the default. */
  public static ServerKeyCertOptions pem(PemKeyCertOptions pairs) {
    return new ServerKeyCertOptions(pairs, KeyStoreHelper.DUMMY_PASSWORD);
  }

  /** A PKCS#12 keystore's entries, the first the default. */
  public static ServerKeyCertOptions pkcs12(PfxOptions keystore) {
    return new ServerKeyCertOptions(keystore, keystore.getPassword());
  }

  @Override
  public KeyCertOptions copy() {
    return this;
  }

  @Override
  public KeyManagerFactory getKeyManagerFactory(Vertx vertx) throws Exception {
    List<Entry> entries = entries(vertx);
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("no private key with its certificate in " + files);
    }
    return keyManagers(List.of(entries.get(0)));
  }

  @Override
  public Function<String, KeyManagerFactory> keyManagerFactoryMapper(Vertx vertx) throws Exception {
    Map<String, List<Entry>> exact = new HashMap<>();
    Map<String, List<Entry>> wildcard = new HashMap<>();
    for (Entry e : entries(vertx)) {
      for (String name : e.names()) {
        if (name.startsWith("*.")) {
          wildcard.computeIfAbsent(name.substring(2), n -> new ArrayList<>()).add(e);
        } else {
          exact.computeIfAbsent(name, n -> new ArrayList<>()).add(e);
        }
      }
    }
    Map<String, KeyManagerFactory> byName = factories(exact);
    Map<String, KeyManagerFactory> byParent = factories(wildcard);
    return serverName -> {
      String name = serverName.toLowerCase(Locale.ROOT);
      KeyManagerFactory found = byName.get(name);
      int dot = name.indexOf('.');
      return found != null || dot < 0 ? found : byParent.get(name.substring(dot + 1));
    };
  }

  /** A key manager per name, holding the first listed certificate of each key type that has it. */
  private Map<String, KeyManagerFactory> factories(Map<String, List<Entry>> byName) throws Exception {
    Map<String, KeyManagerFactory> out = new HashMap<>();
    for (Map.Entry<String, List<Entry>> e : byName.entrySet()) {
      Map<String, Entry> firstOfType = new LinkedHashMap<>();
      e.getValue().forEach(entry -> firstOfType.putIfAbsent(entry.keyType(), entry));
      out.put(e.getKey(), keyManagers(List.copyOf(firstOfType.values())));
    }
    return out;
  }

  private KeyManagerFactory keyManagers(List<Entry> entries) throws Exception {
    char[] password = keyPassword == null ? new char[0] : keyPassword.toCharArray();
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    for (int i = 0; i < entries.size(); i++) {
      store.setKeyEntry("entry-" + i, entries.get(i).entry().getPrivateKey(), password,
          entries.get(i).entry().getCertificateChain());
    }
    KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, password);
    if (entries.size() == 1) {
      return factory;
    }
    for (KeyManager manager : factory.getKeyManagers()) {
      if (manager instanceof X509ExtendedKeyManager x509) {
        return KeyCertOptions.wrap(new ClientCapable(x509)).getKeyManagerFactory(null);
      }
    }
    return factory;
  }

  /**
   * Chooses among certificates of several key types by what the client can verify: an ECDSA one
   * only for a client whose signature algorithms (its ClientHello's, known while the handshake
   * runs) name ECDSA. A TLS engine asks for the key types in its own order (BoringSSL: the
   * server's cipher order, ECDSA first), not the client's, and so served an ECDSA certificate to
   * clients that could not use it.
   */
  static final class ClientCapable extends X509ExtendedKeyManager {

    private final X509ExtendedKeyManager keys;

    ClientCapable(X509ExtendedKeyManager keys) {
      this.keys = keys;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
      return usable(keyType, engine == null ? null : engine.getHandshakeSession())
          ? keys.chooseEngineServerAlias(keyType, issuers, engine) : null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      SSLSession session = socket instanceof SSLSocket tls ? tls.getHandshakeSession() : null;
      return usable(keyType, session) ? keys.chooseServerAlias(keyType, issuers, socket) : null;
    }

    /** Whether a key of {@code keyType} suits the client of {@code handshake} (not known: yes). */
    static boolean usable(String keyType, SSLSession handshake) {
      if (keyType == null || !keyType.startsWith("EC") || !(handshake instanceof ExtendedSSLSession session)) {
        return true;
      }
      String[] algorithms;
      try {
        algorithms = session.getPeerSupportedSignatureAlgorithms();
      } catch (UnsupportedOperationException e) {
        return true;
      }
      if (algorithms == null || algorithms.length == 0) {
        return false; // none sent (TLS 1.1 and older): RSA, as RFC 5246 has a client without the extension
      }
      for (String algorithm : algorithms) {
        if (algorithm.toUpperCase(Locale.ROOT).contains("ECDSA")) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return keys.getServerAliases(keyType, issuers);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return keys.getClientAliases(keyType, issuers);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      return keys.chooseClientAlias(keyType, issuers, socket);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return keys.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return keys.getPrivateKey(alias);
    }
  }

  /** The private keys with their certificates, in the order listed. */
  private List<Entry> entries(Vertx vertx) throws Exception {
    KeyStore store;
    if (files instanceof PemKeyCertOptions pem) {
      store = pem.loadKeyStore(vertx);
    } else if (files instanceof PfxOptions pfx) {
      store = pfx.loadKeyStore(vertx);
    } else {
      throw new IllegalArgumentException("PEM pairs or a PKCS#12 keystore: " + files);
    }
    List<String> aliases = Collections.list(store.aliases());
    if (aliases.stream().allMatch(a -> PEM_ENTRY.matcher(a).matches())) {
      // Vert.x's names for PEM pairs, in the order given (a key store need not enumerate in order).
      aliases.sort(Comparator.comparingInt(a -> {
        Matcher m = PEM_ENTRY.matcher(a);
        return m.matches() ? Integer.parseInt(m.group(1)) : 0;
      }));
    }
    KeyStore.ProtectionParameter protection =
        new KeyStore.PasswordProtection(keyPassword == null ? new char[0] : keyPassword.toCharArray());
    List<Entry> out = new ArrayList<>();
    for (String alias : aliases) {
      if (store.isKeyEntry(alias) && store.getEntry(alias, protection) instanceof KeyStore.PrivateKeyEntry entry
          && entry.getCertificate() instanceof X509Certificate leaf) {
        out.add(new Entry(entry, names(leaf), leaf.getPublicKey().getAlgorithm()));
      }
    }
    return out;
  }

  /** The DNS names a certificate is for, lower-cased: its DNS subject alternative names, and its common names. */
  static Set<String> names(X509Certificate certificate) throws Exception {
    Set<String> names = new LinkedHashSet<>();
    Collection<List<?>> alternatives = certificate.getSubjectAlternativeNames();
    if (alternatives != null) {
      for (List<?> name : alternatives) {
        if (name.size() == 2 && name.get(0) instanceof Integer type && type == 2) {
          names.add(name.get(1).toString().toLowerCase(Locale.ROOT));
        }
      }
    }
    for (Rdn rdn : new LdapName(certificate.getSubjectX500Principal().getName()).getRdns()) {
      if (rdn.getType().equalsIgnoreCase("CN")) {
        names.add(rdn.getValue().toString().toLowerCase(Locale.ROOT));
      }
    }
    return names;
  }

  private record Entry(KeyStore.PrivateKeyEntry entry, Set<String> names, String keyType) {
  }
}
