package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.MultiMap;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The Host sent to targets, the client address in X-Forwarded-For (SPEC §11.1), and the address count (463). */
class ForwardHeadersTest {

  private static final String DNS = "lb.us-east-1.elb.localhost";

  private static ProxySettings settings(boolean preserveHost) {
    return new ProxySettings(60_000, 10_000, "append", false, preserveHost, false, DNS);
  }

  @ParameterizedTest(name = "Host [{0}] on listener port {1} -> {2}")
  @CsvSource(nullValues = "null", value = {
      "Example.COM, 8080, example.com:8080",
      "example.com:9000, 8080, example.com:9000",
      "EXAMPLE.com:80, 80, example.com",
      "example.com:8443, 443, example.com",
      "example.com, 80, example.com",
      "example.com, 443, example.com",
      "[2001:DB8::1], 8080, [2001:db8::1]:8080",
      "[2001:db8::1]:9000, 8080, [2001:db8::1]:9000",
      "[2001:db8::1]:443, 443, [2001:db8::1]",
      "10.0.0.1, 8080, 10.0.0.1:8080",
      "null, 8080, " + DNS + ":8080",
      "'', 8080, " + DNS + ":8080",
      "null, 80, " + DNS,
      "null, 443, " + DNS})
  void targetHost_followsTheHostRules(String clientHost, int listenerPort, String expected) {
    assertThat(ForwardHeaders.targetHost(clientHost, listenerPort, settings(false))).isEqualTo(expected);
  }

  @ParameterizedTest(name = "Host [{0}] on listener port {1} is kept")
  @CsvSource({"Example.COM, 8080", "Example.COM:80, 80", "Example.COM:9000, 443", "EXAMPLE.COM, 8080"})
  void targetHost_isUnchanged_withPreserveHostHeader(String clientHost, int listenerPort) {
    assertThat(ForwardHeaders.targetHost(clientHost, listenerPort, settings(true))).isEqualTo(clientHost);
  }

  @ParameterizedTest(name = "client {0}, client port {1} -> {2}")
  @CsvSource({
      "2001:db8::1, true, [2001:db8::1]:40000",
      "2001:db8::1, false, 2001:db8::1",
      "::1, true, [::1]:40000",
      "10.1.2.3, true, 10.1.2.3:40000",
      "10.1.2.3, false, 10.1.2.3"})
  void prepare_writesTheClientAddressInXForwardedFor_ipv6BracketedWithAPort(String ip, boolean clientPort,
      String expected) throws Exception {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    ProxySettings s = new ProxySettings(60_000, 10_000, "append", clientPort, false, false, DNS);
    SocketAddress client = SocketAddress.inetSocketAddress(new InetSocketAddress(InetAddress.getByName(ip), 40000));

    ForwardHeaders.prepare(headers, s, "example.com:8080", client, "http", 8080, 100, 0x63441c4aL, () -> 7L);

    assertThat(headers.get("X-Forwarded-For")).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(nullValues = "null", value = {
      "example.com:8080, example.com",
      "example.com, example.com",
      "[::1]:80, [::1]",
      "[::1], [::1]",
      "null, null"})
  void hostName_dropsThePort(String host, String expected) {
    assertThat(ForwardHeaders.hostName(host)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "1.1.1.1|1",
      "1.1.1.1, 2.2.2.2|2",
      "1.1.1.1,2.2.2.2,3.3.3.3|3",
      "'   '|0"})
  void xffAddressCount_countsEveryAddress(String value, int expected) {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("X-Forwarded-For", value);
    assertThat(ForwardHeaders.xffAddressCount(headers)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} and {1} -> {2}")
  @CsvSource(delimiter = '|', value = {"1.1.1.1, 2.2.2.2|3.3.3.3|3", "1.1.1.1|''|1"})
  void xffAddressCount_addsUpRepeatedHeaders(String first, String second, int expected) {
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().add("X-Forwarded-For", first).add("x-forwarded-for", second);
    assertThat(ForwardHeaders.xffAddressCount(headers)).isEqualTo(expected);
  }

  @Test
  void values_areWrittenAsHeaderLines_inTheirOrder_withCharactersPastLatin1AsQuestionMarks() {
    ForwardHeaders.Values values = new ForwardHeaders.Values(ForwardHeaders.Names.HTTP1, "café.example:8080",
        "203.0.113.7", "http", "8080", "Root=1-\u20ac", new ForwardHeaders.Tls("TLSv1.3", "TLS_AES_128_GCM_SHA256"),
        null, false, false);
    ByteBuf buf = Unpooled.buffer();

    values.writeTo(buf);

    assertThat(buf.toString(StandardCharsets.ISO_8859_1)).isEqualTo("""
        Host: café.example:8080\r
        X-Forwarded-For: 203.0.113.7\r
        X-Forwarded-Proto: http\r
        X-Forwarded-Port: 8080\r
        X-Amzn-Trace-Id: Root=1-?\r
        x-amzn-tls-version: TLSv1.3\r
        x-amzn-tls-cipher-suite: TLS_AES_128_GCM_SHA256\r
        """);
    buf.release();
  }
}
