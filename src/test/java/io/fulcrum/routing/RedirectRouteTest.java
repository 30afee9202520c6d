package io.fulcrum.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Action;
import org.junit.jupiter.api.Test;

class RedirectRouteTest {

  private static RedirectRoute redirect(String protocol, String port, String host, String path, String query) {
    return new RedirectRoute(1, new Action.Redirect(protocol, port, host, path, query, 301));
  }

  @Test
  void httpToHttps_keepsHostPathAndQuery_andCarriesThePort() {
    RedirectRoute r = redirect("HTTPS", "443", "#{host}", "/#{path}", "#{query}");
    assertThat(r.location("HTTP", "example.com", 80, "/a/b", "x=1&y=2")).isEqualTo("https://example.com:443/a/b?x=1&y=2");
  }

  @Test
  void placeholders_areReplacedInsideText() {
    RedirectRoute r = redirect("#{protocol}", "#{port}", "www.#{host}", "/v2/#{path}", "from=#{path}&#{query}");
    assertThat(r.location("HTTP", "example.com", 8080, "/old", "q=1"))
        .isEqualTo("http://www.example.com:8080/v2/old?from=old&q=1");
  }

  @Test
  void emptyQuery_leavesNoQuestionMark() {
    RedirectRoute r = redirect("HTTPS", "#{port}", "#{host}", "/#{path}", "#{query}");
    assertThat(r.location("HTTP", "example.com", 80, "/", null)).isEqualTo("https://example.com:80/");
  }

  @Test
  void fixedComponents_replaceTheRequestsOwn() {
    RedirectRoute r = redirect("HTTP", "8443", "other.example.org", "/landing", "");
    assertThat(r.location("HTTPS", "example.com", 443, "/anything", "drop=me"))
        .isEqualTo("http://other.example.org:8443/landing");
    assertThat(r.statusCode()).isEqualTo(301);
  }
}
