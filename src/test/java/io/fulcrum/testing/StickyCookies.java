package io.fulcrum.testing;

import io.fulcrum.keys.KeyRingFile;
import io.fulcrum.sticky.CookieCodec;
import io.fulcrum.sticky.CookieKind;
import io.fulcrum.sticky.KeyRing;
import io.fulcrum.sticky.StickyEntry;
import io.fulcrum.sticky.StickyPayload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes stickiness cookie values with the key ring of a data dir, as a test that holds
 * the keys can: what a cookie names, its inside expiry, or a cookie minted for a given target.
 */
public final class StickyCookies {

  /** The data dir of {@link Gateway#start} configs that do not set one. */
  public static final Path TEST_DATA = Path.of("target", "test-data");

  /** {@code NAME=<value>; Expires=<RFC 1123 GMT>; Path=/}, with the CORS attributes optional. */
  public static final Pattern FORM = Pattern.compile(
      "([A-Z0-9-]+)=([A-Za-z0-9_-]+); Expires=((Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} "
          + "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT); Path=/"
          + "(; SameSite=None; Secure)?");

  private final CookieCodec codec;

  private StickyCookies(KeyRing ring) {
    this.codec = new CookieCodec(ring, new SplittableRandom());
  }

  /** With the key ring of {@code dataDir} as it is on disk now. */
  public static StickyCookies of(Path dataDir) {
    try {
      return new StickyCookies(KeyRingFile.load(KeyRingFile.in(dataDir)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The entries of a value, or null when these keys cannot open it. */
  public List<StickyEntry> read(CookieKind kind, String value) {
    StickyEntry[] e = StickyPayload.decode(codec.open(kind, value));
    return e == null ? null : List.of(e);
  }

  /** A value sealed with the ring's newest key. */
  public String mint(CookieKind kind, StickyEntry... entries) {
    byte[] p = StickyPayload.encode(List.of(entries));
    return codec.seal(kind, p, p.length);
  }

  /** The {@code name=value} part of the {@code Set-Cookie} line for {@code name}, or null. */
  public static String value(List<String> setCookies, String name) {
    for (String line : setCookies) {
      if (line.startsWith(name + "=")) {
        return line.substring(name.length() + 1, line.indexOf(';'));
      }
    }
    return null;
  }

  /** The {@code Set-Cookie} line for {@code name}, or null. */
  public static String line(List<String> setCookies, String name) {
    return setCookies.stream().filter(l -> l.startsWith(name + "=")).findFirst().orElse(null);
  }

  /** The Expires date of a {@code Set-Cookie} line of the exact form Fulcrum writes. */
  public static ZonedDateTime expires(String line) {
    Matcher m = FORM.matcher(line);
    if (!m.matches()) {
      throw new AssertionError("not of the form NAME=v; Expires=...; Path=/: " + line);
    }
    return ZonedDateTime.parse(m.group(3), DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'",
        Locale.ENGLISH).withZone(java.time.ZoneOffset.UTC));
  }
}
