package io.fulcrum.sticky;

import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.routing.ForwardRoute;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The stickiness of one request, from routing to the response head:
 * <ol>
 *   <li>{@link #chooseGroup}: target-group stickiness ({@code AWSALBTG}) of a weighted forward action;</li>
 *   <li>{@link #stickyTarget}: target stickiness of the chosen group ({@code AWSALB} for {@code lb_cookie},
 *       {@code AWSALBAPP-n} for {@code app_cookie});</li>
 *   <li>{@link #chosen} and {@link #stripCookies}: the target and the request as it goes out, without
 *       Fulcrum's cookies;</li>
 *   <li>{@link #addCookies}: the refreshed cookies on the target's response.</li>
 * </ol>
 * A cookie that is missing, not sealed by a key of the ring, tampered with, expired inside, or that
 * names a group or target the request may not go to now, is ignored: the algorithm picks and the
 * cookie is rewritten. Lives on one event loop for one request.
 */
public final class StickyRequest {

  private final Stickiness loop;
  private final RequestCookies cookies;
  private final MultiMap requestHeaders;
  private final long now;

  private ForwardRoute route;
  private String groupArn;
  private StickyEntry[] groupsIn;
  /** The {@link #groupsIn} entry the group was chosen by, or null; the answer's cookie replaces it. */
  private StickyEntry usedEntry;
  private boolean groupStuck;
  private boolean groupCookieInvalid;

  private TargetGroupPlan plan;
  private CookieKind kind;
  private int seconds;
  private boolean appSession;
  private StickyEntry[] targetsIn;
  private boolean targetsOpened;
  private Upstream target;
  private boolean targetStuck;

  StickyRequest(Stickiness loop, RequestCookies cookies, MultiMap requestHeaders, long now) {
    this.loop = loop;
    this.cookies = cookies;
    this.requestHeaders = requestHeaders;
    this.now = now;
  }

  /**
   * The target group of a weighted action with target-group stickiness: the one a valid
   * {@code AWSALBTG} names when the action still routes to it (weight above 0), else a weighted
   * choice; null when every weight is 0.
   */
  public String chooseGroup(ForwardRoute route, RandomGenerator random) {
    this.route = route;
    groupsIn = loop.open(CookieKind.TG, cookies.tg(), cookies.tgCors());
    String arn = null;
    if (groupsIn != null) {
      // This action's own entry first; else one another action (or this one before an edit of its
      // groups) wrote for a group this action forwards to.
      for (int pass = 0; pass < 2 && arn == null; pass++) {
        for (StickyEntry e : groupsIn) {
          if ((pass == 0) == e.target().equals(route.groupsKey()) && e.validAt(now, route.stickinessSeconds())) {
            arn = routable(route, e.group());
            if (arn != null) {
              usedEntry = e;
              break;
            }
          }
        }
      }
    }
    groupStuck = arn != null;
    groupCookieInvalid = groupsIn == null && (cookies.tg() != null || cookies.tgCors() != null);
    groupArn = arn != null ? arn : route.choose(random);
    return groupArn;
  }

  /**
   * Whether the request's {@code AWSALBTG} (or its CORS twin) could not be read at all (not sealed
   * by a key of the ring, altered, URL-encoded): the access log's {@code AWSALBTGCookieInvalid}. A
   * readable cookie that names a group the action no longer routes to, or one past its duration,
   * is not invalid: it is outdated, and replaced.
   */
  public boolean groupCookieInvalid() {
    return groupCookieInvalid;
  }

  private static String routable(ForwardRoute route, String id) {
    for (int i = 0; i < route.groupCount(); i++) {
      if (route.weightAt(i) > 0 && StickyEntry.sameGroup(route.arnAt(i), id)) {
        return route.arnAt(i);
      }
    }
    return null;
  }

  /**
   * The target a valid cookie names for {@code plan}, when it is eligible in {@code scope} (the
   * request's), else null: the caller lets the algorithm choose. Stickiness overrides the
   * algorithm, slow start included. App-cookie stickiness needs the application's cookie in the
   * request and does not apply to weighted actions (SPEC §5.2).
   */
  public Upstream stickyTarget(TargetGroupPlan plan, Scope scope, boolean weightedAction) {
    TargetGroupPlan.Stickiness s = plan.stickiness();
    if (s.lbCookie()) {
      kind = CookieKind.LB;
      seconds = s.lbCookieSeconds();
      targetsIn = loop.open(CookieKind.LB, cookies.lb(), cookies.lbCors());
      targetsOpened = true;
    } else if (s.appCookie() && !weightedAction) {
      kind = CookieKind.APP;
      seconds = s.appCookieSeconds();
      appSession = cookies.has(s.appCookieName());
      if (appSession) {
        openApp();
      }
    } else {
      return null;
    }
    this.plan = plan;
    if (targetsIn == null || scope == null) {
      return null;
    }
    for (StickyEntry e : targetsIn) {
      if (e.isFor(plan.arn())) {
        Upstream u = e.validAt(now, seconds) ? scope.eligible(e.target()) : null;
        targetStuck = u != null;
        return u;
      }
    }
    return null;
  }

  private void openApp() {
    if (targetsOpened) {
      return;
    }
    targetsOpened = true;
    String first = cookies.app(0);
    if (first == null) {
      return;
    }
    String value = first;
    if (cookies.app(1) != null) {
      StringBuilder all = new StringBuilder(first);
      for (int i = 1; i < RequestCookies.APP_SHARDS && cookies.app(i) != null; i++) {
        all.append(cookies.app(i));
      }
      value = all.toString();
    }
    targetsIn = loop.open(CookieKind.APP, value, null);
  }

  /** The target the request goes to (sticky or newly chosen). */
  public void chosen(Upstream target) {
    this.target = target;
  }

  /** Whether the target group came from a valid {@code AWSALBTG} (not a new weighted choice). */
  public boolean groupStuck() {
    return groupStuck;
  }

  /** Whether the target came from a valid target stickiness cookie (not the algorithm). */
  public boolean targetStuck() {
    return targetStuck;
  }

  /** Removes Fulcrum's stickiness cookies from the request before it goes to the target. */
  public void stripCookies(MultiMap headers) {
    cookies.strip(headers);
  }

  /**
   * Adds the refreshed stickiness cookies to the target's response head: a new value (new inside
   * expiry from the configured duration) and a new 7-day {@code Expires} on every response.
   */
  public void addCookies(MultiMap response) {
    String expires = loop.expires(now);
    if (route != null && groupArn != null) {
      List<StickyEntry> out = others(groupsIn, e -> e != usedEntry && !ofAction(e));
      out.add(new StickyEntry(StickyEntry.groupId(groupArn), route.groupsKey(),
          now + route.stickinessSeconds() * 1000L));
      String v = loop.seal(CookieKind.TG, out);
      if (v != null) {
        response.add(HttpHeaders.SET_COOKIE, "AWSALBTG=" + v + "; Expires=" + expires + "; Path=/");
        response.add(HttpHeaders.SET_COOKIE, "AWSALBTGCORS=" + v + "; Expires=" + expires + "; Path=/; SameSite=None; Secure");
      }
    }
    if (kind == null || target == null) {
      return;
    }
    String id = StickyEntry.groupId(plan.arn());
    StickyEntry fresh = new StickyEntry(id, target.key(), now + seconds * 1000L);
    if (kind == CookieKind.LB) {
      List<StickyEntry> out = others(targetsIn, e -> !e.group().equals(id));
      out.add(fresh);
      String v = loop.seal(CookieKind.LB, out);
      if (v != null) {
        response.add(HttpHeaders.SET_COOKIE, "AWSALB=" + v + "; Expires=" + expires + "; Path=/");
        response.add(HttpHeaders.SET_COOKIE, "AWSALBCORS=" + v + "; Expires=" + expires + "; Path=/; SameSite=None; Secure");
      }
    } else if (appSession || setsCookie(response, plan.stickiness().appCookieName())) {
      openApp();
      List<StickyEntry> out = others(targetsIn, e -> !e.group().equals(id));
      out.add(fresh);
      writeApp(response, out, fresh, expires);
    }
  }

  /**
   * Whether a target-group entry is this action's, replaced by its answer: written by an action
   * forwarding to the same groups ({@link ForwardRoute#groupsKey}), or, written before entries named
   * their action, one of this action's groups. Another action's entry stays, so that two actions
   * sharing a group keep their own choices.
   */
  private boolean ofAction(StickyEntry e) {
    return e.target().isEmpty() ? inAction(e) : e.target().equals(route.groupsKey());
  }

  private boolean inAction(StickyEntry e) {
    for (int i = 0; i < route.groupCount(); i++) {
      if (StickyEntry.sameGroup(route.arnAt(i), e.group())) {
        return true;
      }
    }
    return false;
  }

  /** The entries of {@code in} still valid that {@code keep} accepts, in a list to add to. */
  private List<StickyEntry> others(StickyEntry[] in, java.util.function.Predicate<StickyEntry> keep) {
    List<StickyEntry> out = new ArrayList<>(in == null ? 1 : in.length + 1);
    if (in != null) {
      for (StickyEntry e : in) {
        if (e.expiresAt() > now && keep.test(e)) {
          out.add(e);
        }
      }
    }
    return out;
  }

  private void writeApp(MultiMap response, List<StickyEntry> entries, StickyEntry fresh, String expires) {
    String v = loop.seal(CookieKind.APP, entries);
    while (v != null && v.length() > Stickiness.SHARD_CHARS * RequestCookies.APP_SHARDS && entries.size() > 1) {
      // Over 16 KB: the sessions that expire first give way.
      entries.remove(fresh);
      entries.sort(Comparator.comparingLong(StickyEntry::expiresAt));
      entries.remove(0);
      entries.add(fresh);
      v = loop.seal(CookieKind.APP, entries);
    }
    if (v == null) {
      return;
    }
    String attrs = "; Expires=" + expires + "; Path=/" + (chromium80(requestHeaders.get(HttpHeaders.USER_AGENT))
        ? "; SameSite=None; Secure" : "");
    int shards = 0;
    for (int at = 0; at < v.length(); at += Stickiness.SHARD_CHARS) {
      String part = v.substring(at, Math.min(v.length(), at + Stickiness.SHARD_CHARS));
      response.add(HttpHeaders.SET_COOKIE, "AWSALBAPP-" + shards + "=" + part + attrs);
      shards++;
    }
    for (int i = shards; i < RequestCookies.APP_SHARDS; i++) {
      if (cookies.app(i) != null) {
        // A shard the value no longer needs: the client drops it.
        response.add(HttpHeaders.SET_COOKIE, "AWSALBAPP-" + i + "=; Expires=" + CookieDates.EPOCH + "; Path=/");
      }
    }
  }

  /** Whether the target's response sets a cookie of this name (only the name is checked). */
  static boolean setsCookie(MultiMap response, String name) {
    for (String c : response.getAll(HttpHeaders.SET_COOKIE)) {
      int i = 0;
      while (i < c.length() && (c.charAt(i) == ' ' || c.charAt(i) == '\t')) {
        i++;
      }
      if (c.startsWith(name, i)) {
        int j = i + name.length();
        while (j < c.length() && (c.charAt(j) == ' ' || c.charAt(j) == '\t')) {
          j++;
        }
        if (j < c.length() && c.charAt(j) == '=') {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether the user agent is Chromium 80 or later, which gets {@code SameSite=None; Secure} on
   * the application stickiness cookie (SPEC §5.2).
   */
  static boolean chromium80(String userAgent) {
    if (userAgent == null) {
      return false;
    }
    int at = userAgent.indexOf("Chrome/");
    int from = at + 7;
    if (at < 0) {
      at = userAgent.indexOf("Chromium/");
      from = at + 9;
    }
    if (at < 0) {
      return false;
    }
    int major = 0;
    int i = from;
    while (i < userAgent.length() && i - from < 6 && Character.isDigit(userAgent.charAt(i))) {
      major = major * 10 + (userAgent.charAt(i) - '0');
      i++;
    }
    return i > from && major >= 80;
  }
}
