package io.fulcrum.model;

import static io.fulcrum.model.AttributeSpec.bool;
import static io.fulcrum.model.AttributeSpec.range;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A listener's attributes (ELBv2 {@code ListenerAttribute}), complete with defaults. An HTTP or
 * HTTPS listener has ALB's header modification: the {@code Server} header of the load balancer's
 * own answers, response headers inserted into every answer, and (HTTPS) the names of the TLS
 * headers it adds to requests. A TCP, TLS or TCP_UDP listener has NLB's
 * {@code tcp.idle_timeout.seconds} (a UDP one none).
 * Immutable.
 */
public final class ListenerAttributes {

  public static final String SERVER_ENABLED = "routing.http.response.server.enabled";
  public static final String TCP_IDLE_TIMEOUT = "tcp.idle_timeout.seconds";
  public static final int DEFAULT_TCP_IDLE_TIMEOUT = 350;

  private static final String RESPONSE = "routing.http.response.";
  private static final String REQUEST = "routing.http.request.";
  private static final String VALUE = ".header_value";
  private static final String NAME = ".header_name";

  /** A response header the listener can insert: its attribute's middle part and the header it sets. */
  private record Inserted(String key, String header) {
    String attribute() {
      return RESPONSE + key + VALUE;
    }
  }

  private static final List<Inserted> INSERTED = List.of(
      new Inserted("strict_transport_security", "Strict-Transport-Security"),
      new Inserted("access_control_allow_origin", "Access-Control-Allow-Origin"),
      new Inserted("access_control_allow_methods", "Access-Control-Allow-Methods"),
      new Inserted("access_control_allow_headers", "Access-Control-Allow-Headers"),
      new Inserted("access_control_allow_credentials", "Access-Control-Allow-Credentials"),
      new Inserted("access_control_expose_headers", "Access-Control-Expose-Headers"),
      new Inserted("access_control_max_age", "Access-Control-Max-Age"),
      new Inserted("content_security_policy", "Content-Security-Policy"),
      new Inserted("x_content_type_options", "X-Content-Type-Options"),
      new Inserted("x_frame_options", "X-Frame-Options"));

  /** The request headers of an HTTPS listener whose names can be changed: attribute middle part, default name. */
  private static final Map<String, String> RENAMED = linked(
      "x_amzn_mtls_clientcert_serial_number", "X-Amzn-Mtls-Clientcert-Serial-Number",
      "x_amzn_mtls_clientcert_issuer", "X-Amzn-Mtls-Clientcert-Issuer",
      "x_amzn_mtls_clientcert_subject", "X-Amzn-Mtls-Clientcert-Subject",
      "x_amzn_mtls_clientcert_validity", "X-Amzn-Mtls-Clientcert-Validity",
      "x_amzn_mtls_clientcert_leaf", "X-Amzn-Mtls-Clientcert-Leaf",
      "x_amzn_mtls_clientcert", "X-Amzn-Mtls-Clientcert",
      "x_amzn_tls_version", "X-Amzn-Tls-Version",
      "x_amzn_tls_cipher_suite", "X-Amzn-Tls-Cipher-Suite");

  public static final String TLS_VERSION_NAME = REQUEST + "x_amzn_tls_version" + NAME;
  public static final String TLS_CIPHER_SUITE_NAME = REQUEST + "x_amzn_tls_cipher_suite" + NAME;

  private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9-]{1,40}");
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
  private static final Pattern ORIGIN = Pattern.compile("https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?");
  private static final Pattern HSTS_MAX_AGE = Pattern.compile("max-age=[0-9]{1,10}");
  private static final List<String> METHODS =
      List.of("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE");
  /** Headers a listener's renamed request header must not take: the load balancer sets or reads these itself. */
  private static final Set<String> RESERVED = Set.of("host", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-port",
      "x-amzn-trace-id", "connection", "upgrade", "content-length", "transfer-encoding", "te", "keep-alive");

  private static Map<String, String> linked(String... pairs) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return m;
  }

  static List<AttributeSpec> specs(Protocol protocol) {
    List<AttributeSpec> s = new ArrayList<>();
    if (!protocol.isHttpFamily()) {
      if (protocol.carriesTcp()) {
        s.add(range(TCP_IDLE_TIMEOUT, DEFAULT_TCP_IDLE_TIMEOUT, 60, 6000)); // a UDP listener has none: 120 s, fixed
      }
      return s;
    }
    if (protocol == Protocol.HTTPS) {
      RENAMED.forEach((key, header) -> s.add(new AttributeSpec(REQUEST + key + NAME, header,
          ListenerAttributes::checkHeaderName)));
    }
    s.add(bool(SERVER_ENABLED, true));
    for (Inserted h : INSERTED) {
      s.add(new AttributeSpec(h.attribute(), "", v -> v.isEmpty() ? null : checkValue(h.key(), v)));
    }
    return s;
  }

  /** A header name: 1-40 letters, digits and hyphens, and none the load balancer sets or reads itself. */
  static String checkHeaderName(String v) {
    if (!HEADER_NAME.matcher(v).matches()) {
      return "expected a header name of 1-40 letters, digits and hyphens";
    }
    return RESERVED.contains(v.toLowerCase(Locale.ROOT)) ? "a header the load balancer sets or reads itself" : null;
  }

  /** The value of an inserted response header, checked as its header's syntax has it. */
  static String checkValue(String key, String v) {
    if (v.length() > 1024 || !v.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
      return "expected at most 1024 printable ASCII characters";
    }
    return switch (key) {
      case "strict_transport_security" -> {
        boolean maxAge = false;
        for (String directive : v.split(";")) {
          String d = directive.strip();
          if (HSTS_MAX_AGE.matcher(d).matches()) {
            maxAge = true;
          } else if (!d.equalsIgnoreCase("includeSubDomains") && !d.equalsIgnoreCase("preload")) {
            yield "expected max-age=<seconds>, optionally with includeSubDomains and preload";
          }
        }
        yield maxAge ? null : "expected max-age=<seconds>, optionally with includeSubDomains and preload";
      }
      case "access_control_allow_origin" -> v.equals("*") || v.equals("null") || ORIGIN.matcher(v).matches() ? null
          : "expected *, null or an origin (scheme://host[:port])";
      case "access_control_allow_methods" -> v.equals("*") || list(v).stream().allMatch(METHODS::contains) ? null
          : "expected * or a comma-separated list of " + String.join(", ", METHODS);
      case "access_control_allow_headers", "access_control_expose_headers" ->
          v.equals("*") || list(v).stream().allMatch(t -> TOKEN.matcher(t).matches()) ? null
              : "expected * or a comma-separated list of header names";
      case "access_control_allow_credentials" -> v.equals("true") ? null : "expected: true";
      case "access_control_max_age" -> AttributeSpec.checkRange(v, -1, 86400);
      case "x_content_type_options" -> v.equals("nosniff") ? null : "expected: nosniff";
      case "x_frame_options" -> v.equals("DENY") || v.equals("SAMEORIGIN")
          || v.startsWith("ALLOW-FROM ") && ORIGIN.matcher(v.substring(11)).matches() ? null
          : "expected DENY, SAMEORIGIN or ALLOW-FROM <origin>";
      default -> null; // content_security_policy: any printable value
    };
  }

  private static List<String> list(String v) {
    List<String> out = new ArrayList<>();
    for (String item : v.split(",", -1)) {
      out.add(item.strip());
    }
    return out;
  }

  private final Protocol protocol;
  private final Attributes all;
  /** The response headers to insert, name then value, in AWS's order: none by default. */
  private final List<String[]> responseHeaders;

  private ListenerAttributes(Protocol protocol, Attributes all) {
    this.protocol = protocol;
    this.all = all;
    List<String[]> headers = new ArrayList<>();
    for (Inserted h : INSERTED) {
      String v = all.get(h.attribute());
      if (v != null && !v.isEmpty()) {
        headers.add(new String[] {h.header(), v});
      }
    }
    this.responseHeaders = List.copyOf(headers);
  }

  public static ListenerAttributes defaults(Protocol protocol) {
    return resolve(protocol, null, Map.of(), new Problems());
  }

  /**
   * Resolves {@code given} over {@code base} for a listener of {@code protocol}; keys of
   * {@code base} that do not apply to it (after a change between HTTP and HTTPS) are left out.
   *
   * @return the attributes, or {@code null} when a problem was recorded
   */
  public static ListenerAttributes resolve(Protocol protocol, ListenerAttributes base, Map<String, String> given,
      Problems problems) {
    int before = problems.size();
    Attributes a = Attributes.resolve(specs(protocol), base == null ? null : base.all, given, "Listener", problems);
    if (problems.size() == before && protocol == Protocol.HTTPS) {
      // Each renamed header needs a name of its own: blame the one given that takes a name already taken.
      Map<String, String> taken = new HashMap<>();
      for (String key : RENAMED.keySet()) {
        String attribute = REQUEST + key + NAME;
        String other = taken.putIfAbsent(a.get(attribute).toLowerCase(Locale.ROOT), attribute);
        if (other != null) {
          String blamed = given.containsKey(attribute) ? attribute : other;
          problems.at(blamed).add("'" + a.get(blamed) + "' names another request header already ("
              + (blamed.equals(attribute) ? other : attribute) + "); each needs a name of its own");
          break;
        }
      }
    }
    return problems.size() > before ? null : new ListenerAttributes(protocol, a);
  }

  /**
   * These attributes for a listener of {@code other}: those that apply carried over, the others at
   * their defaults (an HTTP listener has no TLS header names).
   */
  public ListenerAttributes forProtocol(Protocol other) {
    return other == protocol ? this : resolve(other, this, Map.of(), new Problems());
  }

  public Map<String, String> asMap() {
    return all.asMap();
  }

  public String get(String key) {
    return all.get(key);
  }

  /** Whether the load balancer's own answers carry {@code Server: awselb/2.0}. */
  public boolean serverHeader() {
    String v = all.get(SERVER_ENABLED);
    return v == null || Boolean.parseBoolean(v);
  }

  /** The response headers every answer gets, as {name, value} pairs; empty unless configured. */
  public List<String[]> responseHeaders() {
    return responseHeaders;
  }

  /** The name of the request header with the client's TLS version (HTTPS listeners). */
  public String tlsVersionHeader() {
    String v = all.get(TLS_VERSION_NAME);
    return v == null ? RENAMED.get("x_amzn_tls_version") : v;
  }

  /** The name of the request header with the client's cipher suite (HTTPS listeners). */
  public String tlsCipherSuiteHeader() {
    String v = all.get(TLS_CIPHER_SUITE_NAME);
    return v == null ? RENAMED.get("x_amzn_tls_cipher_suite") : v;
  }

  /**
   * The names of an HTTPS listener's mutual TLS request headers, in this order: the client
   * certificate's serial number, issuer, subject, validity and leaf (verify mode), and its chain
   * (passthrough).
   */
  public List<String> clientCertHeaders() {
    List<String> names = new ArrayList<>(6);
    RENAMED.forEach((key, header) -> {
      if (key.startsWith("x_amzn_mtls_")) {
        String v = all.get(REQUEST + key + NAME);
        names.add(v == null ? header : v);
      }
    });
    return names;
  }

  /** NLB's idle timeout of a TCP, TLS or TCP_UDP listener's connections, in seconds. */
  public int tcpIdleTimeoutSeconds() {
    String v = all.get(TCP_IDLE_TIMEOUT);
    return v == null ? DEFAULT_TCP_IDLE_TIMEOUT : Integer.parseInt(v);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ListenerAttributes a && a.all.equals(all);
  }

  @Override
  public int hashCode() {
    return all.hashCode();
  }

  @Override
  public String toString() {
    return all.toString();
  }
}
