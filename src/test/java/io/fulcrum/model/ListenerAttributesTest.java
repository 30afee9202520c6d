package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Listener attributes: ALB's header modification on HTTP and HTTPS listeners (the TLS header names
 * on HTTPS only), NLB's idle timeout on TCP and TLS listeners; defaults, values each header's
 * syntax takes, and attributes carried over a change between HTTP and HTTPS.
 */
class ListenerAttributesTest {

  private static final String HSTS = "routing.http.response.strict_transport_security.header_value";

  private static Map<String, String> given(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return m;
  }

  private static List<String> problems(Protocol protocol, String... kv) {
    Problems problems = new Problems();
    ListenerAttributes a = ListenerAttributes.resolve(protocol, null, given(kv), problems);
    assertThat(a == null).isEqualTo(!problems.isEmpty());
    return problems.list().stream().map(Problem::toString).toList();
  }

  @Test
  void http_hasTheServerHeaderOn_andNoHeaderInserted() {
    ListenerAttributes http = ListenerAttributes.defaults(Protocol.HTTP);

    assertThat(http.asMap()).hasSize(11).containsEntry("routing.http.response.server.enabled", "true")
        .containsEntry(HSTS, "").containsEntry("routing.http.response.x_frame_options.header_value", "")
        .doesNotContainKey(ListenerAttributes.TLS_VERSION_NAME);
    assertThat(http.serverHeader()).isTrue();
    assertThat(http.responseHeaders()).isEmpty();
  }

  @Test
  void https_namesItsTlsHeaders_asAlbDoes() {
    ListenerAttributes https = ListenerAttributes.defaults(Protocol.HTTPS);

    assertThat(https.asMap()).hasSize(19)
        .containsEntry("routing.http.request.x_amzn_mtls_clientcert_serial_number.header_name",
            "X-Amzn-Mtls-Clientcert-Serial-Number")
        .containsEntry(ListenerAttributes.TLS_VERSION_NAME, "X-Amzn-Tls-Version");
    assertThat(https.tlsVersionHeader()).isEqualTo("X-Amzn-Tls-Version");
    assertThat(https.tlsCipherSuiteHeader()).isEqualTo("X-Amzn-Tls-Cipher-Suite");
  }

  @Test
  void tcpAndTls_haveTheIdleTimeoutOnly() {
    for (Protocol p : List.of(Protocol.TCP, Protocol.TLS)) {
      assertThat(ListenerAttributes.defaults(p).asMap()).containsExactly(entry("tcp.idle_timeout.seconds", "350"));
    }
    Problems problems = new Problems();
    assertThat(ListenerAttributes.resolve(Protocol.TCP, null, given("tcp.idle_timeout.seconds", "6000"), problems)
        .tcpIdleTimeoutSeconds()).isEqualTo(6000);
    assertThat(problems(Protocol.TCP, "tcp.idle_timeout.seconds", "59")).containsExactly(
        "tcp.idle_timeout.seconds: '59' is not valid (expected 60-6000)");
    assertThat(problems(Protocol.TCP, HSTS, "max-age=1")).containsExactly(
        HSTS + ": Listener attribute key '" + HSTS + "' is not recognized");
    assertThat(problems(Protocol.HTTP, "tcp.idle_timeout.seconds", "60")).hasSize(1);
  }

  @Test
  void insertedHeaders_areListedInAwsOrder_withTheirHeaderNames() {
    Problems problems = new Problems();
    ListenerAttributes a = ListenerAttributes.resolve(Protocol.HTTP, null, given(
        "routing.http.response.x_content_type_options.header_value", "nosniff",
        HSTS, "max-age=31536000; includeSubDomains; preload",
        "routing.http.response.server.enabled", "false"), problems);

    assertThat(problems.list()).isEmpty();
    assertThat(a.responseHeaders()).containsExactly(
        new String[] {"Strict-Transport-Security", "max-age=31536000; includeSubDomains; preload"},
        new String[] {"X-Content-Type-Options", "nosniff"});
    assertThat(a.serverHeader()).isFalse();
  }

  @ParameterizedTest(name = "{0} = \"{1}\"")
  @CsvSource(delimiter = '|', value = {
      "strict_transport_security|max-age=0",
      "strict_transport_security|max-age=63072000; includeSubDomains",
      "access_control_allow_origin|*",
      "access_control_allow_origin|https://app.example.com",
      "access_control_allow_origin|http://localhost:3000",
      "access_control_allow_methods|GET, POST, OPTIONS",
      "access_control_allow_methods|*",
      "access_control_allow_headers|Content-Type, X-Api-Key",
      "access_control_allow_credentials|true",
      "access_control_expose_headers|X-Request-Id",
      "access_control_max_age|600",
      "content_security_policy|default-src 'self'; img-src *",
      "x_content_type_options|nosniff",
      "x_frame_options|DENY",
      "x_frame_options|SAMEORIGIN",
      "x_frame_options|ALLOW-FROM https://example.com"})
  void valuesTheHeadersTake(String header, String value) {
    assertThat(problems(Protocol.HTTPS, "routing.http.response." + header + ".header_value", value)).isEmpty();
  }

  @ParameterizedTest(name = "{0} = \"{1}\"")
  @CsvSource(delimiter = '|', value = {
      "strict_transport_security|includeSubDomains",
      "strict_transport_security|max-age=abc",
      "access_control_allow_origin|example.com",
      "access_control_allow_methods|GET, FETCH",
      "access_control_allow_headers|Content Type",
      "access_control_allow_credentials|false",
      "access_control_max_age|86401",
      "x_content_type_options|sniff",
      "x_frame_options|ALLOWALL",
      "content_security_policy|default-src\u0007'self'"})
  void valuesTheHeadersRefuse(String header, String value) {
    String key = "routing.http.response." + header + ".header_value";

    assertThat(problems(Protocol.HTTP, key, value)).singleElement().asString().startsWith(key + ": '");
  }

  @Test
  void tlsHeaderNames_areHeaderNames_notOnesTheLoadBalancerUses() {
    assertThat(problems(Protocol.HTTPS, ListenerAttributes.TLS_VERSION_NAME, "X-Tls")).isEmpty();
    assertThat(problems(Protocol.HTTPS, ListenerAttributes.TLS_VERSION_NAME, "X Tls")).hasSize(1);
    assertThat(problems(Protocol.HTTPS, ListenerAttributes.TLS_VERSION_NAME, "x-forwarded-for")).singleElement()
        .asString().contains("a header the load balancer sets or reads itself");
    assertThat(problems(Protocol.HTTP, ListenerAttributes.TLS_VERSION_NAME, "X-Tls")).singleElement()
        .asString().contains("is not recognized");
    assertThat(problems(Protocol.HTTPS, ListenerAttributes.TLS_VERSION_NAME, "x-amzn-tls-cipher-suite")).containsExactly(
        ListenerAttributes.TLS_VERSION_NAME + ": 'x-amzn-tls-cipher-suite' names another request header already ("
            + ListenerAttributes.TLS_CIPHER_SUITE_NAME + "); each needs a name of its own");
  }

  @Test
  void mutualTlsHeaderNames_eachTheirOwn_inTheOrderTheyAreSent() {
    String leaf = "routing.http.request.x_amzn_mtls_clientcert_leaf.header_name";
    String chain = "routing.http.request.x_amzn_mtls_clientcert.header_name";
    assertThat(problems(Protocol.HTTPS, chain, "X-Amzn-Mtls-Clientcert-Leaf")).containsExactly(chain
        + ": 'X-Amzn-Mtls-Clientcert-Leaf' names another request header already (" + leaf
        + "); each needs a name of its own");
    Problems problems = new Problems();
    ListenerAttributes renamed = ListenerAttributes.resolve(Protocol.HTTPS, null, Map.of(chain, "X-Client-Chain"),
        problems);
    assertThat(problems.isEmpty()).isTrue();
    assertThat(renamed.clientCertHeaders()).containsExactly("X-Amzn-Mtls-Clientcert-Serial-Number",
        "X-Amzn-Mtls-Clientcert-Issuer", "X-Amzn-Mtls-Clientcert-Subject", "X-Amzn-Mtls-Clientcert-Validity",
        "X-Amzn-Mtls-Clientcert-Leaf", "X-Client-Chain");
  }

  @Test
  void changeBetweenHttpAndHttps_carriesOverWhatApplies() {
    Problems problems = new Problems();
    ListenerAttributes https = ListenerAttributes.resolve(Protocol.HTTPS, null,
        given(HSTS, "max-age=600", ListenerAttributes.TLS_VERSION_NAME, "X-Tls"), problems);

    ListenerAttributes http = https.forProtocol(Protocol.HTTP);
    assertThat(http.get(HSTS)).isEqualTo("max-age=600");
    assertThat(http.asMap()).doesNotContainKey(ListenerAttributes.TLS_VERSION_NAME);
    ListenerAttributes back = http.forProtocol(Protocol.HTTPS);
    assertThat(back.get(HSTS)).isEqualTo("max-age=600");
    assertThat(back.tlsVersionHeader()).as("the HTTP listener had none: the default").isEqualTo("X-Amzn-Tls-Version");
    assertThat(https.forProtocol(Protocol.HTTPS)).isSameAs(https);
  }
}
