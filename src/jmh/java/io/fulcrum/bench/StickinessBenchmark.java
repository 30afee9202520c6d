package io.fulcrum.bench;

import io.fulcrum.balancer.Algorithm;
import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.TargetSelector;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.sticky.CookieCodec;
import io.fulcrum.sticky.CookieKind;
import io.fulcrum.sticky.KeyRing;
import io.fulcrum.sticky.RequestCookies;
import io.fulcrum.sticky.Stickiness;
import io.fulcrum.sticky.StickyEntry;
import io.fulcrum.sticky.StickyPayload;
import io.fulcrum.sticky.StickyRequest;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Stickiness cookies: the AES-GCM seal and open of one value ({@link CookieCodec}), the payload
 * encode and decode ({@link StickyPayload}), the {@code Cookie} header scan ({@link RequestCookies}),
 * and the whole lb_cookie work of one request ({@link StickyRequest}: open the AWSALB value, check
 * the target, seal the refreshed value and write both Set-Cookie headers), for a returning client
 * and for a first visit. The key ring holds one 256-bit key, as a fresh data dir does.
 */
@State(org.openjdk.jmh.annotations.Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StickinessBenchmark {

  private CookieCodec codec;
  private byte[] plain;
  private String sealed;
  private List<StickyEntry> entries;
  private String cookieHeader;

  private Stickiness stickiness;
  private TargetGroupPlan plan;
  private Scope scope;
  private TargetSelector selector;
  private MultiMap returning;
  private MultiMap firstVisit;
  private final MultiMap response = HttpHeaders.headers();
  private long now;

  @Setup
  public void setUp() {
    byte[] secret = new byte[32];
    new SplittableRandom(1).nextBytes(secret);
    KeyRing ring = new KeyRing(List.of(new KeyRing.Key(0x1234abcd, secret)));
    codec = new CookieCodec(ring, new SplittableRandom(2));
    now = System.currentTimeMillis();
    entries = List.of(new StickyEntry("0123456789abcdef", "10.0.3.17:8080", now + 86_400_000L));
    plain = StickyPayload.encode(entries);
    sealed = codec.seal(CookieKind.LB, plain, plain.length);

    stickiness = new Stickiness(new SplittableRandom(3));
    stickiness.keys(ring);
    plan = Groups.plan(Groups.group("sticky", 10, Map.of("stickiness.enabled", "true", "stickiness.type", "lb_cookie")),
        Map.of(), Map.of());
    scope = plan.scope(Groups.ZONE);
    selector = TargetSelector.of(Algorithm.ROUND_ROBIN, scope, new SplittableRandom(4));
    // A returning client's AWSALB names the group's 4th target.
    Upstream target = scope.eligible(scope.eligibleKeys().get(3));
    String id = plan.arn().substring(plan.arn().lastIndexOf('/') + 1);
    byte[] p = StickyPayload.encode(List.of(new StickyEntry(id, target.key(), now + 86_400_000L)));
    String awsalb = codec.seal(CookieKind.LB, p, p.length);
    cookieHeader = "_ga=GA1.2.1234567890.1700000000; session=3f2a9c1e7b; AWSALB=" + awsalb + "; AWSALBCORS=" + awsalb
        + "; theme=dark";
    returning = HttpHeaders.headers().add("Host", "app.example.com").add(HttpHeaders.COOKIE, cookieHeader);
    firstVisit = HttpHeaders.headers().add("Host", "app.example.com").add(HttpHeaders.COOKIE, "theme=dark");
    if (returningVisit() != target) {
      throw new IllegalStateException("the AWSALB cookie did not stick");
    }
  }

  @Benchmark
  public String seal() {
    return codec.seal(CookieKind.LB, plain, plain.length);
  }

  @Benchmark
  public byte[] open() {
    return codec.open(CookieKind.LB, sealed);
  }

  @Benchmark
  public byte[] encodePayload() {
    return StickyPayload.encode(entries);
  }

  @Benchmark
  public StickyEntry[] decodePayload() {
    return StickyPayload.decode(plain);
  }

  @Benchmark
  public RequestCookies parseCookieHeader() {
    return RequestCookies.parse(cookieHeader);
  }

  /** A client with a valid AWSALB: parse, open, stick, seal the refreshed cookie, two Set-Cookie headers. */
  @Benchmark
  public Upstream returningVisit() {
    return request(returning);
  }

  /** A client without one: the algorithm chooses, a new cookie is sealed. */
  @Benchmark
  public Upstream firstVisit() {
    return request(firstVisit);
  }

  private Upstream request(MultiMap headers) {
    StickyRequest r = stickiness.request(headers, now);
    Upstream u = r.stickyTarget(plan, scope, false);
    if (u == null) {
      u = selector.choose(now);
    }
    r.chosen(u);
    response.clear();
    r.addCookies(response);
    return u;
  }
}
