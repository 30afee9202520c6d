package io.fulcrum.sticky;

import io.vertx.core.MultiMap;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Cookie stickiness as one event loop serves it (SPEC §5): its own {@link CookieCodec} (and so its
 * own ciphers) over the process's {@link KeyRing}, and the {@link StickyRequest} of each request to
 * a sticky target group or weighted action. Called on the owning event loop only.
 */
public final class Stickiness {

  /** The browser-side lifetime of every stickiness cookie: 7 days, not configurable (SPEC §5.1). */
  public static final long COOKIE_LIFETIME_MILLIS = 7L * 24 * 3600 * 1000;
  /** Characters of value per {@code AWSALBAPP-n} shard, so that name and value stay under 4 KB. */
  static final int SHARD_CHARS = 4000;

  private final CookieCodec codec;
  private final CookieDates dates = new CookieDates();

  /** @param nonceSeed where this loop's nonces start (a {@link java.security.SecureRandom}) */
  public Stickiness(RandomGenerator nonceSeed) {
    this.codec = new CookieCodec(null, nonceSeed);
  }

  /** Swaps in the process's current key ring. */
  public void keys(KeyRing ring) {
    codec.keys(ring);
  }

  /** Whether a key ring has arrived. */
  public boolean ready() {
    return codec.keys() != null;
  }

  /** Starts the stickiness of one request: parses its {@code Cookie} header, once. */
  public StickyRequest request(MultiMap headers, long now) {
    return new StickyRequest(this, RequestCookies.of(headers), headers, now);
  }

  /** The entries of {@code value}, else of its CORS twin, or null when neither opens. */
  StickyEntry[] open(CookieKind kind, String value, String twin) {
    StickyEntry[] e = value == null ? null : StickyPayload.decode(codec.open(kind, value));
    if (e == null && twin != null) {
      e = StickyPayload.decode(codec.open(kind, twin));
    }
    return e;
  }

  String seal(CookieKind kind, List<StickyEntry> entries) {
    byte[] plain = StickyPayload.encode(entries);
    return codec.seal(kind, plain, plain.length);
  }

  String expires(long now) {
    return dates.format(now + COOKIE_LIFETIME_MILLIS);
  }
}
