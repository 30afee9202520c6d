package io.fulcrum.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RulePathTest {

  @Test
  void aPlainPath_isReturnedAsItIs() {
    String path = "/api/v1/orders.json";
    assertThat(RulePath.of(path)).isSameAs(path);
    assertThat(RulePath.of("/")).isEqualTo("/");
    assertThat(RulePath.of("/a/")).isEqualTo("/a/");
  }

  @Test
  void percentEncodings_areDecoded_andMalformedOnesKept() {
    assertThat(RulePath.of("/%61dmin/x")).isEqualTo("/admin/x");
    assertThat(RulePath.of("/%41%2d%7E")).isEqualTo("/A-~");
    assertThat(RulePath.of("/a%2Fb")).isEqualTo("/a/b");
    assertThat(RulePath.of("/a%25b")).as("decoded once").isEqualTo("/a%b");
    assertThat(RulePath.of("/a%2561")).isEqualTo("/a%61");
    assertThat(RulePath.of("/caf%C3%A9")).isEqualTo("/caf\u00c3\u00a9");
    assertThat(RulePath.of("/%zz/%4")).isEqualTo("/%zz/%4");
    assertThat(RulePath.of("/100%")).isEqualTo("/100%");
  }

  @Test
  void slashRuns_areMerged() {
    assertThat(RulePath.of("//admin/x")).isEqualTo("/admin/x");
    assertThat(RulePath.of("/a///b//")).isEqualTo("/a/b/");
    assertThat(RulePath.of("//")).isEqualTo("/");
  }

  @Test
  void dotSegments_areRemoved_asRfc3986Says() {
    assertThat(RulePath.of("/public/../admin/x")).isEqualTo("/admin/x");
    assertThat(RulePath.of("/a/./b")).isEqualTo("/a/b");
    assertThat(RulePath.of("/a/b/.")).isEqualTo("/a/b/");
    assertThat(RulePath.of("/a/b/..")).isEqualTo("/a/");
    assertThat(RulePath.of("/a/..")).isEqualTo("/");
    assertThat(RulePath.of("/a/../")).isEqualTo("/");
    assertThat(RulePath.of("/a/b/../../c")).isEqualTo("/c");
    assertThat(RulePath.of("/..")).as("stays at the root").isEqualTo("/");
    assertThat(RulePath.of("/a/%2e%2E/admin")).isEqualTo("/admin");
    assertThat(RulePath.of("/a%2F..%2Fadmin")).isEqualTo("/admin");
    assertThat(RulePath.of("/public/..//admin")).isEqualTo("/admin");
  }

  @Test
  void segmentsThatOnlyStartWithADot_areNames() {
    assertThat(RulePath.of("/.well-known/acme")).isEqualTo("/.well-known/acme");
    assertThat(RulePath.of("/a/.../b/..x/.y")).isEqualTo("/a/.../b/..x/.y");
  }

  @Test
  void patterns_areMergedAndResolved_butNeverDecoded() {
    String plain = "/api/*";
    assertThat(RulePath.pattern(plain)).isSameAs(plain);
    assertThat(RulePath.pattern("/api//v1/*")).isEqualTo("/api/v1/*");
    assertThat(RulePath.pattern("/a/./b/../c*")).isEqualTo("/a/c*");
    assertThat(RulePath.pattern("*.png")).isEqualTo("*.png");
    assertThat(RulePath.pattern("*//x")).isEqualTo("*/x");
    assertThat(RulePath.pattern("/.well-known/*")).isEqualTo("/.well-known/*");
  }
}
