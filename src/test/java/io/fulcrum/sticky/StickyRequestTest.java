package io.fulcrum.sticky;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.testing.Gateway;
import io.vertx.core.MultiMap;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One request's stickiness without a network: the {@code AWSALBAPP-n} shards of a value holding
 * many groups' sessions, and the response rules of application stickiness.
 */
class StickyRequestTest {

  private static final long NOW = 1_767_225_600_000L;

  private final KeyRing ring = new KeyRing(List.of(CookieCodecTest.key(9, 32, 9)));
  private final Stickiness stickiness = new Stickiness(new SplittableRandom(3));
  private final CookieCodec minter = new CookieCodec(ring, new SplittableRandom(4));
  private TargetGroupPlan plan;
  private Scope scope;

  @BeforeEach
  void setUp() {
    stickiness.keys(ring);
    FulcrumConfig config = Gateway.config("""
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: app}]}
        target-groups:
          - name: app
            target-type: ip
            protocol: HTTP
            port: 80
            attributes: {stickiness.enabled: "true", stickiness.type: app_cookie, stickiness.app_cookie.cookie_name: SID}
            targets: [{id: 10.0.0.1, port: 80}, {id: 10.0.0.2, port: 80}]
        """);
    TargetGroup group = config.resources().targetGroups().get(0);
    plan = TargetGroupPlan.of(group, config.environment().zones());
    scope = plan.scopes().values().iterator().next();
  }

  private String mint(List<StickyEntry> entries) {
    byte[] p = StickyPayload.encode(entries);
    return minter.seal(CookieKind.APP, p, p.length);
  }

  /** Runs one request through the app-sticky group; returns the response's Set-Cookie lines. */
  private List<String> exchange(String cookieHeader, long now, String expectTarget, boolean responseSetsSid) {
    MultiMap req = MultiMap.caseInsensitiveMultiMap();
    if (cookieHeader != null) {
      req.add("Cookie", cookieHeader);
    }
    StickyRequest r = stickiness.request(req, now);
    Upstream sticky = r.stickyTarget(plan, scope, false);
    Upstream target = sticky != null ? sticky : scope.eligible("10.0.0.2:80");
    assertThat(target.key()).isEqualTo(expectTarget);
    r.chosen(target);
    r.stripCookies(req);
    MultiMap resp = MultiMap.caseInsensitiveMultiMap();
    if (responseSetsSid) {
      resp.add("Set-Cookie", "SID=abc; Path=/");
    }
    r.addCookies(resp);
    return resp.getAll("Set-Cookie").stream().filter(l -> !l.startsWith("SID=")).toList();
  }

  private static String header(List<String> setCookies) {
    List<String> parts = new ArrayList<>();
    for (String line : setCookies) {
      parts.add(line.substring(0, line.indexOf(';')));
    }
    return String.join("; ", parts);
  }

  @Test
  void manyGroupsSessions_areShardedIn4KbCookies_reassembledOnTheNextRequest_andSpareShardsExpire() {
    String id = StickyEntry.groupId(plan.arn());
    List<StickyEntry> others = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      others.add(new StickyEntry(String.format("%016x", i), "10.1.0." + i + ":8080", NOW + 60_000));
    }
    List<StickyEntry> withOurs = new ArrayList<>(others);
    withOurs.add(new StickyEntry(id, "10.0.0.1:80", NOW + 60_000));

    List<String> set = exchange("SID=abc; AWSALBAPP-0=" + mint(withOurs), NOW, "10.0.0.1:80", false);
    assertThat(set).hasSize(2);
    assertThat(set.get(0)).startsWith("AWSALBAPP-0=");
    assertThat(set.get(1)).startsWith("AWSALBAPP-1=");
    for (String line : set) {
      assertThat(line.substring(0, line.indexOf(';')).length()).isLessThanOrEqualTo(4096);
      assertThat(line).matches("AWSALBAPP-\\d=[A-Za-z0-9_-]+; Expires=[^;]+ GMT; Path=/");
    }

    // Both shards come back: still sticky, all sessions kept.
    List<String> again = exchange("SID=abc; " + header(set), NOW + 1000, "10.0.0.1:80", false);
    assertThat(again).hasSize(2);

    // The other sessions expire: one shard is enough, and the client drops the second.
    List<String> shrunk = exchange("SID=abc; " + header(again), NOW + 61_000, "10.0.0.1:80", false);
    assertThat(shrunk).hasSize(2);
    assertThat(shrunk.get(0)).startsWith("AWSALBAPP-0=");
    assertThat(shrunk.get(1)).isEqualTo("AWSALBAPP-1=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/");
    String value = shrunk.get(0).substring("AWSALBAPP-0=".length(), shrunk.get(0).indexOf(';'));
    StickyEntry[] entries = StickyPayload.decode(minter.open(CookieKind.APP, value));
    assertThat(entries).containsExactly(new StickyEntry(id, "10.0.0.1:80", NOW + 61_000 + 86_400_000L));
  }

  @Test
  void appStickiness_writesOnlyForAnAppSession_orWhenTheTargetSetsTheAppCookie() {
    assertThat(exchange(null, NOW, "10.0.0.2:80", false)).isEmpty();
    assertThat(exchange("other=1", NOW, "10.0.0.2:80", false)).isEmpty();
    List<String> issued = exchange(null, NOW, "10.0.0.2:80", true);
    assertThat(issued).singleElement().asString().startsWith("AWSALBAPP-0=");
    // The app cookie alone is enough for a session to be (re)written after a fresh pick.
    assertThat(exchange("SID=abc", NOW, "10.0.0.2:80", false)).singleElement().asString().startsWith("AWSALBAPP-0=");
    // A cookie named like the app cookie's prefix is not it.
    assertThat(exchange("SIDE=1", NOW, "10.0.0.2:80", false)).isEmpty();
  }

  @Test
  void setCookieNameCheck_looksAtTheNameOnly() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().add("Set-Cookie", "a=1").add("Set-Cookie", " SID = x; Max-Age=0");
    assertThat(StickyRequest.setsCookie(h, "SID")).isTrue();
    assertThat(StickyRequest.setsCookie(h, "SI")).isFalse();
    assertThat(StickyRequest.setsCookie(h, "a")).isTrue();
    assertThat(StickyRequest.setsCookie(MultiMap.caseInsensitiveMultiMap(), "SID")).isFalse();
  }

  @Test
  void chromiumVersion_isReadFromTheUserAgent() {
    assertThat(StickyRequest.chromium80("Mozilla/5.0 Chrome/80.0.1 Safari/537.36")).isTrue();
    assertThat(StickyRequest.chromium80("Mozilla/5.0 Chrome/131.0 Safari/537.36 Edg/131.0")).isTrue();
    assertThat(StickyRequest.chromium80("Mozilla/5.0 Chromium/99.0")).isTrue();
    assertThat(StickyRequest.chromium80("Mozilla/5.0 Chrome/79.0")).isFalse();
    assertThat(StickyRequest.chromium80("Mozilla/5.0 Chrome/")).isFalse();
    assertThat(StickyRequest.chromium80("curl/8.0")).isFalse();
    assertThat(StickyRequest.chromium80(null)).isFalse();
  }
}
