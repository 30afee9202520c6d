package io.fulcrum.routing;

/**
 * The path as {@code path-pattern} conditions compare it: one spelling for the paths a target
 * reads as the same. A request for {@code /%61dmin/x}, {@code //admin/x} or
 * {@code /public/../admin/x} names {@code /admin/x} to most servers (NGINX, Tomcat, Go's and
 * Node's routers each decode, resolve or merge), so a rule for {@code /admin/*} must see
 * {@code /admin/x}, or the request walks past a rule that denies it. Rules compare the path after:
 *
 * <ol>
 *   <li>percent-decoding every {@code %XX} (RFC 3986 §2.1; a {@code %} not followed by two hex
 *       digits stays as it is; the path is read byte by byte, a byte becoming the character of
 *       that code point, as the request line's own bytes are);
 *   <li>merging each run of {@code /} into one;
 *   <li>removing the dot segments {@code .} and {@code ..} (RFC 3986 §5.2.4; a {@code ..} at the
 *       root stays at the root, though the listener has refused such requests before).
 * </ol>
 *
 * <p>The path forwarded to a target, put in a redirect or handed to a Lambda function is the one
 * the client sent: this only decides which rule applies. NGINX matches its locations the same way.
 * The fast path, a path with no {@code %}, no {@code //} and no segment that starts with a dot,
 * returns its argument.
 */
public final class RulePath {

  private RulePath() {
  }

  /** {@code path} (a request's, starting with {@code /}) as rules compare it. */
  public static String of(String path) {
    return plain(path) ? path : resolve(decode(path));
  }

  /**
   * A path pattern as it is compared: slashes merged and dot segments removed, as {@link #of} does
   * to a request's path, so that a pattern such as {@code /api//v1/*} matches what it names. A
   * pattern holds no {@code %} (AWS's character set), so nothing is decoded.
   */
  public static String pattern(String pattern) {
    return plain(pattern) ? pattern : resolve(pattern);
  }

  /** Whether {@code path} reads the same after {@link #of}: no {@code %}, {@code //} or {@code /.}. */
  private static boolean plain(String path) {
    int n = path.length();
    for (int i = 0; i < n; i++) {
      char c = path.charAt(i);
      if (c == '%') {
        return false;
      }
      if (c == '/' && i + 1 < n) {
        char next = path.charAt(i + 1);
        if (next == '/' || next == '.') {
          return false;
        }
      }
    }
    return true;
  }

  private static String decode(String path) {
    if (path.indexOf('%') < 0) {
      return path;
    }
    int n = path.length();
    StringBuilder out = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      char c = path.charAt(i);
      int hi;
      int lo;
      if (c == '%' && i + 2 < n && (hi = Character.digit(path.charAt(i + 1), 16)) >= 0
          && (lo = Character.digit(path.charAt(i + 2), 16)) >= 0) {
        out.append((char) (hi << 4 | lo));
        i += 2;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** Merges slashes and removes dot segments of a path that starts with {@code /}. */
  private static String resolve(String path) {
    int n = path.length();
    StringBuilder out = new StringBuilder(n);
    int i = 0;
    while (i < n) {
      // path[i] is '/' (or the path does not start with one: keep its first segment as it is).
      int start = i;
      while (i < n && path.charAt(i) == '/') {
        i++;
      }
      int end = path.indexOf('/', i);
      if (end < 0) {
        end = n;
      }
      int length = end - i;
      boolean last = end == n;
      if (start == i) {
        out.append(path, i, end); // a path without a leading '/': its first segment
      } else if (length == 1 && path.charAt(i) == '.') {
        if (last) {
          out.append('/');
        }
      } else if (length == 2 && path.charAt(i) == '.' && path.charAt(i + 1) == '.') {
        int slash = out.lastIndexOf("/");
        out.setLength(Math.max(slash, 0));
        if (last) {
          out.append('/');
        }
      } else {
        out.append('/').append(path, i, end);
      }
      i = end;
    }
    return out.length() == 0 ? "/" : out.toString();
  }
}
