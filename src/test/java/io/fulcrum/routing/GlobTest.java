package io.fulcrum.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GlobTest {

  @ParameterizedTest(name = "''{0}'' matches ''{1}'': {2}")
  @CsvSource(delimiter = '|', value = {
      "/api/*      | /api/orders        | true",
      "/api/*      | /api/              | true",
      "/api/*      | /api               | false",
      "/api/*      | /API/orders        | false",
      "*.png       | /img/a.png         | true",
      "*.png       | /img/a.PNG         | false",
      "/img/?.png  | /img/a.png         | true",
      "/img/?.png  | /img/ab.png        | false",
      "/a*b*c      | /aXXbYYc           | true",
      "/a*b*c      | /aXXbYYcZ          | false",
      "/a*b*c      | /abc               | true",
      "*           | ''                 | true",
      "*           | /anything          | true",
      "/exact      | /exact             | true",
      "/exact      | /exact/            | false",
      "/*/items/*  | /v1/items/42       | true",
      "/*/items/*  | /v1/things/42      | false",
      "/a?c*       | /abcdef            | true",
      "a*a*a*a*b   | aaaaaaaaaaaaaaaaaa | false",
  })
  void caseSensitive_matchesLikeAlb(String pattern, String value, boolean expected) {
    assertThat(Glob.caseSensitive(pattern).matches(value)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "''{0}'' matches ''{1}'' ignoring case: {2}")
  @CsvSource(delimiter = '|', value = {
      "*.example.com   | API.Example.COM    | true",
      "*.example.com   | example.com        | false",
      "api.example.com | API.EXAMPLE.COM    | true",
      "api-?.example.* | Api-2.Example.Org  | true",
      "Canary          | canary             | true",
  })
  void caseInsensitive_foldsBothSides(String pattern, String value, boolean expected) {
    assertThat(Glob.caseInsensitive(pattern).matches(value)).isEqualTo(expected);
  }

  /** Query-string values (AWS): {@code \*} and {@code \?} are the characters; any other backslash is one. */
  @ParameterizedTest(name = "''{0}'' matches ''{1}'' (query string): {2}")
  @CsvSource(delimiter = '|', value = {
      "a\\*b      | a*b       | true",
      "a\\*b      | aXb       | false",
      "a\\*b      | a\\Xb     | false",
      "a\\*b      | A*B       | true",
      "why\\?     | why?      | true",
      "why\\?     | whyz      | false",
      "why\\?     | why\\z    | false",
      "\\*        | *         | true",
      "\\*        | x         | false",
      "\\**       | *tail     | true",
      "\\**       | tail      | false",
      "*\\?       | what?     | true",
      "*\\?       | what      | false",
      "a*\\*?b    | aXX*Yb    | true",
      "a*\\*?b    | aXXYb     | false",
      "a\\b*      | a\\bcd    | true",
      "*           | ''        | true",
  })
  void withEscapes_backslashMakesAWildcardLiteral(String pattern, String value, boolean expected) {
    assertThat(Glob.caseInsensitiveWithEscapes(pattern).matches(value)).isEqualTo(expected);
  }

  @org.junit.jupiter.api.Test
  void elsewhere_aBackslashIsJustACharacter() {
    assertThat(Glob.caseInsensitive("a\\*b").matches("a\\XYZb")).isTrue();
    assertThat(Glob.caseInsensitive("a\\*b").matches("a*b")).isFalse();
  }

  @org.junit.jupiter.api.Test
  void nullNeverMatches() {
    assertThat(Glob.caseSensitive("*").matches(null)).isFalse();
  }
}
