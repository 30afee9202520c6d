package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The authority of an absolute-form request URI, which becomes the Host (SPEC §11.1). */
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
}
