package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** CIDR parsing and containment for IPv4 and IPv6, and IP literals without name resolution. */
class CidrTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "10.0.0.0/8, 10.0.0.0/8",
      "10.1.2.3/8, 10.0.0.0/8",
      "172.31.1.1/12, 172.16.0.0/12",
      "192.168.7.200/25, 192.168.7.128/25",
      "10.0.0.1, 10.0.0.1/32",
      "0.0.0.0/0, 0.0.0.0/0",
      "8.8.8.8/0, 0.0.0.0/0",
      "::1, ::1/128",
      "2001:db8::/32, 2001:db8::/32",
      "2001:db8:ffff::1/32, 2001:db8::/32",
      "2001:db8::ff/121, 2001:db8::80/121",
      "[::1]/128, ::1/128",
      "::/0, ::/0"})
  void parse_clearsHostBits_andPrintsCanonically(String text, String canonical) {
    assertThat(Cidr.parse(text)).hasToString(canonical);
  }

  @ParameterizedTest(name = "{0} contains {1}: {2}")
  @CsvSource({
      "10.0.0.0/8, 10.0.0.0, true",
      "10.0.0.0/8, 10.255.255.255, true",
      "10.0.0.0/8, 11.0.0.0, false",
      "10.0.0.0/8, 9.255.255.255, false",
      "172.16.0.0/12, 172.16.0.0, true",
      "172.16.0.0/12, 172.31.255.255, true",
      "172.16.0.0/12, 172.15.255.255, false",
      "172.16.0.0/12, 172.32.0.0, false",
      "100.64.0.0/10, 100.127.255.255, true",
      "100.64.0.0/10, 100.128.0.0, false",
      "192.168.7.128/25, 192.168.7.128, true",
      "192.168.7.128/25, 192.168.7.127, false",
      "10.0.0.4/31, 10.0.0.5, true",
      "10.0.0.4/31, 10.0.0.6, false",
      "10.0.0.1/32, 10.0.0.1, true",
      "10.0.0.1/32, 10.0.0.2, false",
      "0.0.0.0/0, 255.255.255.255, true",
      "0.0.0.0/0, ::1, false",
      "::1/128, ::1, true",
      "::1/128, ::2, false",
      "::/0, 2001:db8::1, true",
      "::/0, 10.0.0.1, false",
      "2001:db8::/32, 2001:db8:ffff:ffff::1, true",
      "2001:db8::/32, 2001:db9::, false",
      "fd00::/8, fdff::1, true",
      "fd00::/8, fe00::1, false",
      "2001:db8::/65, 2001:db8::7fff:ffff:ffff:ffff, true",
      "2001:db8::/65, 2001:db8::8000:0:0:0, false",
      "127.0.0.0/8, 127.0.0.2, true",
      "127.0.0.0/8, ::ffff:127.0.0.1, false"})
  void contains_respectsPrefixAndFamily(String cidr, String address, boolean expected) {
    assertThat(Cidr.parse(cidr).contains(address)).isEqualTo(expected);
    assertThat(Cidr.parse(cidr).contains(IpAddresses.parse(address))).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"localhost", "", "10.0.0.0/8"})
  void contains_isFalseForTextThatIsNotAnAddress(String text) {
    assertThat(Cidr.parse("0.0.0.0/0").contains(text)).isFalse();
    assertThat(Cidr.parse("0.0.0.0/0").contains((byte[]) null)).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "10.0.0.0/33 | '10.0.0.0/33' has an invalid prefix length (expected 0-32)",
      "10.0.0.0/-1 | '10.0.0.0/-1' has an invalid prefix length (expected 0-32)",
      "10.0.0.0/ | '10.0.0.0/' has an invalid prefix length (expected 0-32)",
      "10.0.0.0/eight | '10.0.0.0/eight' has an invalid prefix length (expected 0-32)",
      "::/129 | '::/129' has an invalid prefix length (expected 0-128)",
      "10.0.0/8 | '10.0.0/8' is not a CIDR block (expected e.g. 10.0.0.0/8 or 2001:db8::/32)",
      "256.0.0.0/8 | '256.0.0.0/8' is not a CIDR block (expected e.g. 10.0.0.0/8 or 2001:db8::/32)",
      "localhost/8 | 'localhost/8' is not a CIDR block (expected e.g. 10.0.0.0/8 or 2001:db8::/32)",
      "/8 | '/8' is not a CIDR block (expected e.g. 10.0.0.0/8 or 2001:db8::/32)"})
  void malformedCidr_isRejected_sayingWhatWasExpected(String text, String message) {
    assertThatThrownBy(() -> Cidr.parse(text)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void nullCidr_isRejected() {
    assertThatThrownBy(() -> Cidr.parse(null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a CIDR block is required (e.g. 10.0.0.0/8)");
  }

  @Test
  void cidrsOfTheSameNetwork_areEqual() {
    assertThat(Cidr.parse("10.1.2.3/8")).isEqualTo(Cidr.parse("10.0.0.0/8"))
        .hasSameHashCodeAs(Cidr.parse("10.0.0.0/8"));
    assertThat(Cidr.parse("10.0.0.0/8")).isNotEqualTo(Cidr.parse("10.0.0.0/9"));
    assertThat(Cidr.parse("::/0")).isNotEqualTo(Cidr.parse("0.0.0.0/0"));
  }

  @Test
  void isIpv6_followsTheFamily() {
    assertThat(Cidr.parse("::1/128").isIpv6()).isTrue();
    assertThat(Cidr.parse("127.0.0.0/8").isIpv6()).isFalse();
  }

  @Test
  void ipAddresses_parseLiteralsOnly_neverNames() {
    assertThat(IpAddresses.parse("localhost")).isNull();
    assertThat(IpAddresses.parse("example.com")).isNull();
    assertThat(IpAddresses.parse(null)).isNull();
    assertThat(IpAddresses.parse("")).isNull();
    assertThat(IpAddresses.parse("10.0.0.1")).containsExactly(10, 0, 0, 1);
    assertThat(IpAddresses.parse("[::1]")).hasSize(16);
    assertThat(IpAddresses.isLiteral("127.0.0.2")).isTrue();
    assertThat(IpAddresses.isLiteral("127.0.0.256")).isFalse();
    assertThat(IpAddresses.isIpv6("::1")).isTrue();
    assertThat(IpAddresses.isIpv6("10.0.0.1")).isFalse();
    assertThat(IpAddresses.isIpv6("host")).isFalse();
    assertThat(IpAddresses.canonical(IpAddresses.parse("2001:0db8:0000:0000:0000:0000:0000:0001")))
        .isEqualTo("2001:db8::1");
  }
}
