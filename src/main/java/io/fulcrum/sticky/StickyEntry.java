package io.fulcrum.sticky;

/**
 * One stickiness decision inside a cookie value: for the target group with ARN id {@code group},
 * the target {@code target} ({@code id:port}; in {@code AWSALBTG}, where the group itself is the
 * decision, the key of the weighted action that chose it, or empty in a value written before), valid until {@code expiresAt} (epoch millis; the configured duration, enforced
 * inside the value whatever the browser's own cookie expiry says).
 */
public record StickyEntry(String group, String target, long expiresAt) {

  /** Whether the entry still holds at {@code now} under a configured duration of {@code seconds}. */
  public boolean validAt(long now, int seconds) {
    // An entry that outlives the configured duration was written under a longer one: not trusted.
    return expiresAt > now && expiresAt - now <= seconds * 1000L;
  }

  /** Whether the entry is for the target group with this ARN (whose last part is the id). */
  public boolean isFor(String arn) {
    return sameGroup(arn, group);
  }

  /** Whether {@code arn} ends with {@code /id}, without allocating. */
  static boolean sameGroup(String arn, String id) {
    int at = arn.length() - id.length();
    return at > 0 && arn.charAt(at - 1) == '/' && arn.regionMatches(at, id, 0, id.length());
  }

  /** The id part of a target group ARN (its last segment). */
  static String groupId(String arn) {
    return arn.substring(arn.lastIndexOf('/') + 1);
  }
}
