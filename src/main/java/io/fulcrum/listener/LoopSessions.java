package io.fulcrum.listener;

import io.fulcrum.oidc.LoginState;
import io.fulcrum.oidc.Session;
import io.fulcrum.routing.OidcRoute;
import io.fulcrum.sticky.CookieCodec;
import io.fulcrum.sticky.RequestCookies;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * authenticate-oidc's session cookies on one event loop: reads a session's shards
 * ({@code <name>-0}, {@code -1}, ...), opens them (AES-GCM, the key ring's) and keeps the
 * {@value #KEPT} sessions used last, so that a request of a session seen before costs a map
 * look-up; seals new sessions and writes the Set-Cookie lines that carry them. Called on the
 * owning event loop only.
 */
final class LoopSessions {

  /** Session cookie shards: each value at most this many characters (a cookie stays under 4 KB). */
  static final int SHARD_CHARS = 4000;
  static final int KEPT = 512;

  private static final byte[] SESSION_AAD = "fulcrum authenticate-oidc session".getBytes(StandardCharsets.US_ASCII);
  private static final DateTimeFormatter EXPIRES =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);

  private final CookieCodec codec;
  private final Map<Sealed, Opened> sessions = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Sealed, Opened> eldest) {
      return size() > KEPT;
    }
  };

  /** @param codec the loop's codec, which the owner gives each key ring */
  LoopSessions(CookieCodec codec) {
    this.codec = codec;
  }

  /** Forgets every session opened (after a change of keys). */
  void clear() {
    sessions.clear();
  }

  /**
   * A sealed session as a map key: hashed on its last characters only (the GCM tag's, random), so
   * that a lookup does not hash a cookie of kilobytes; equal only to the same value, every character
   * of it compared (a forged cookie with a copied tag is another key).
   */
  private record Sealed(String value) {
    private static final int HASHED = 24;

    @Override
    public int hashCode() {
      int h = 0;
      for (int i = Math.max(0, value.length() - HASHED); i < value.length(); i++) {
        h = 31 * h + value.charAt(i);
      }
      return h;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Sealed s && s.value.equals(value);
    }
  }

  /** A session this loop opened, with the claims it signed for it last. */
  static final class Opened {
    final Session session;
    String signedFor;
    String data;
    long dataExpiresAt;

    Opened(Session session) {
      this.session = session;
    }
  }

  /** The session cookie's shards joined, or null when it has none. */
  String read(RequestCookies cookies, OidcRoute route) {
    String first = cookies.value(route.shardName(0));
    if (first == null) {
      return null;
    }
    String second = cookies.value(route.shardName(1));
    if (second == null) {
      return first; // the common case: one shard, nothing to copy
    }
    StringBuilder joined = new StringBuilder(first).append(second);
    for (int i = 2; i < OidcRoute.MAX_SHARDS; i++) {
      String shard = cookies.value(route.shardName(i));
      if (shard == null) {
        break;
      }
      joined.append(shard);
    }
    return joined.toString();
  }

  /** The session in a sealed cookie value (opened once, then kept), or null when it is not one we sealed. */
  Opened open(String sealed) {
    Sealed key = new Sealed(sealed);
    Opened opened = sessions.get(key);
    if (opened == null) {
      byte[] plain = codec.open(SESSION_AAD, sealed);
      Session s = plain == null ? null : Session.decode(plain);
      if (s == null) {
        return null;
      }
      opened = new Opened(s);
      sessions.put(key, opened);
    }
    return opened;
  }

  /**
   * Keeps a renewed session under its new sealed value and under the one it renewed, whose
   * requests (in flight, or from a browser that has not taken the new cookie yet) it serves too.
   */
  Opened keep(Session renewed, String sealed, String before) {
    Opened opened = new Opened(renewed);
    sessions.put(new Sealed(sealed), opened);
    sessions.put(new Sealed(before), opened);
    return opened;
  }

  /** The session sealed for its cookie, or null when it does not fit four shards (or there are no keys). */
  String seal(Session s) {
    byte[] plain = s.encode();
    String sealed = codec.seal(SESSION_AAD, plain, plain.length);
    return sealed == null || sealed.length() > SHARD_CHARS * 4 ? null : sealed;
  }

  /**
   * The Set-Cookie values of a session sealed: its shards, the shards of a longer earlier one
   * dropped, and (after a sign-in) the nonce cookie dropped.
   */
  static List<String> setCookies(String sealed, Session s, String name, RequestCookies sent,
      boolean dropNonce) {
    String expires = EXPIRES.format(Instant.ofEpochMilli(s.expiresAtMillis()));
    List<String> out = new ArrayList<>();
    int shards = 0;
    for (int at = 0; at < sealed.length(); at += SHARD_CHARS, shards++) {
      out.add(name + "-" + shards + "=" + sealed.substring(at, Math.min(sealed.length(), at + SHARD_CHARS))
          + "; Expires=" + expires + "; Path=/; Secure; HttpOnly");
    }
    for (int i = shards; i < OidcRoute.MAX_SHARDS; i++) {
      if (sent.has(name + "-" + i)) {
        out.add(name + "-" + i + "=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/; Secure; HttpOnly");
      }
    }
    if (dropNonce) {
      out.add(LoginState.NONCE_COOKIE + "=; Max-Age=0; Path=/; Secure; HttpOnly");
    }
    return out;
  }
}
