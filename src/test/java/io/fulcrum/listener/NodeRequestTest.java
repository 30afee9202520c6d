package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What of a request target the listener reads: its authority (SPEC §11.1), and whether it is served. */
class NodeRequestTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(nullValues = "null", value = {
      "http://Other.Example:8888/p?q=1, Other.Example:8888",
      "http://other.example/p, other.example",
      "http://other.example, other.example",
      "http://other.example?x=1, other.example",
      "http://user:secret@other.example:81/p, other.example:81",
      "http://[2001:db8::1]:8080/p, [2001:db8::1]:8080",
      "http:///p, null"})
  void uriAuthority_isTheHostAndPortOfTheUri(String uri, String expected) {
    assertThat(NodeRequest.uriAuthority(uri)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "/a/b?c=d, /a/b",
      "/a/b, /a/b",
      "http://example.com/a/b?c=d, /a/b",
      "http://example.com, /",
      "http://example.com?x=/admin/y, /",
      "http://user@example.com:81?x=/admin/y#z, /"})
  void pathOf_isThePathOfTheRequestTarget_neverPartOfItsQuery(String uri, String expected) {
    assertThat(NodeRequest.pathOf(uri)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"/", "/a/b", "/a/../b", "/a/./b", "/a/b/../..", "/./a", "/...", "/a..b/..x", "/.a/..",
      "//a/..", "/a/..?x=/../../..", "/a/%2e%2e", "/%2e", "/%2", "/%2e%2e%2e/x", "/a?b=c",
      "http://example.com/a/../b", "http://example.com", "http://example.com?x=../..", "*"})
  void servedTarget_takesPathsThatStayUnderTheRoot(String uri) {
    assertThat(NodeRequest.servedTarget(uri.equals("*") ? "OPTIONS" : "GET", uri, false)).isTrue();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"/..", "/../", "/../etc/passwd", "/a/../../b", "/a/b/../../..", "/./..", "//..", "/%2e%2e/x",
      "/%2E./x", "/.%2e", "/a/%2e%2e/../x", "/a/../..?x", "/a#b", "/a?b#c", "/#", "http://example.com/../x",
      "http://example.com/a#b", "http://example.com#b", "http://example.com?x#y"})
  void servedTarget_refusesFragmentsAndPathsThatClimbAboveTheRoot(String uri) {
    assertThat(NodeRequest.servedTarget("GET", uri, false)).isFalse();
    if (uri.startsWith("/")) {
      assertThat(NodeRequest.servedTarget("GET", uri, true)).as("over HTTP/2").isFalse();
    }
  }
}
