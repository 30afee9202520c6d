package io.fulcrum.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.RuleTransform;
import java.util.List;
import org.junit.jupiter.api.Test;

class RewritesTest {

  private static Rewrites url(String regex, String replace) {
    return Rewrites.of(List.of(new RuleTransform(RuleTransform.Type.URL_REWRITE, regex, replace)));
  }

  @Test
  void theFirstMatch_isReplaced_andTheRestStays() {
    assertThat(url("a", "b").url("/a/a/a")).isEqualTo("/b/a/a");
    assertThat(url("^/api/(.*)$", "/$1").url("/api/x?y=1")).isEqualTo("/x?y=1");
    assertThat(url("^/api/", "/").url("/web/api/")).as("no match").isNull();
  }

  @Test
  void theReplacement_takesDollarGroups_andEveryOtherCharacterAsItself() {
    Rewrites r = url("^/(\\w+)/(\\w+)$", "/x\\y/$2/${1}0$$");
    assertThat(r.url("/one/two")).isEqualTo("/x\\y/two/one0$$");
    assertThat(url("^/(a)?b", "/[$1]").url("/b")).as("a group that took part in nothing").isEqualTo("/[]");
  }

  @Test
  void hostAndUrl_areEachTheirOwn() {
    Rewrites both = Rewrites.of(List.of(
        new RuleTransform(RuleTransform.Type.HOST_HEADER_REWRITE, "^www\\.", ""),
        new RuleTransform(RuleTransform.Type.URL_REWRITE, "^/old/", "/new/")));
    assertThat(both.host("www.example.com")).isEqualTo("example.com");
    assertThat(both.url("/old/page")).isEqualTo("/new/page");
    assertThat(url("x", "y").host("x.example.com")).as("no host transform").isNull();
  }
}
