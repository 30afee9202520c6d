package io.fulcrum.routing;

import io.fulcrum.jwt.KeySource;
import io.fulcrum.jwt.TokenCheck;
import io.fulcrum.model.Action;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.Listener;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import io.fulcrum.oidc.IdpClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A listener's rules compiled for matching: evaluated in priority order, the first rule whose
 * conditions all match decides; otherwise the default action does. Immutable and shared by every
 * event loop; {@link #match(RequestFacts)} allocates nothing of its own for a path already in the
 * form rules compare ({@link RulePath}).
 */
public final class RouteTable {

  private final ConditionMatcher[][] conditions;
  /**
   * Per rule, the literal starts of its path patterns (up to the first wildcard), or null when it
   * has no path condition or a pattern starts with a wildcard: a path that starts with none of them
   * cannot match, which a {@code startsWith} shows faster than the patterns themselves.
   */
  private final String[][] pathStarts;
  private final RouteAction[] actions;
  private final RouteAction defaultAction;
  /** The IdP's way back when the listener has authenticate-oidc actions, else null. */
  private final OidcCallbackRoute callback;

  private RouteTable(ConditionMatcher[][] conditions, String[][] pathStarts, RouteAction[] actions,
      RouteAction defaultAction) {
    this.conditions = conditions;
    this.pathStarts = pathStarts;
    this.actions = actions;
    this.defaultAction = defaultAction;
    Map<String, OidcRoute> oidc = new HashMap<>();
    for (RouteAction a : actions) {
      if (a instanceof OidcRoute o) {
        oidc.put(o.id(), o);
      }
    }
    if (defaultAction instanceof OidcRoute o) {
      oidc.put(o.id(), o);
    }
    this.callback = oidc.isEmpty() ? null : new OidcCallbackRoute(oidc);
  }

  /** What the checks that run before a routing action need from the deployment. */
  public interface Checks {
    /** The key source of a JWKS endpoint that a jwt-validation action names. */
    KeySource keys(String jwksEndpoint);

    /** The client through which authenticate-oidc actions reach identity providers. */
    IdpClient idp();
  }

  private static final Checks NO_CHECKS = new Checks() {
    @Override
    public KeySource keys(String jwksEndpoint) {
      throw new IllegalArgumentException("a jwt-validation action needs the key sources of its JWKS endpoints");
    }

    @Override
    public IdpClient idp() {
      throw new IllegalArgumentException("an authenticate-oidc action needs the IdP client");
    }
  };

  /** Compiles a validated listener without jwt-validation and authenticate-oidc actions. */
  public static RouteTable compile(Listener listener) {
    return compile(listener, null, NO_CHECKS);
  }

  /**
   * Compiles a validated listener (rules are already sorted by priority).
   *
   * @param loadBalancerArn its load balancer's ARN (the signer of authenticate-oidc's claims)
   * @param checks          what its jwt-validation and authenticate-oidc actions use
   */
  public static RouteTable compile(Listener listener, String loadBalancerArn, Checks checks) {
    List<Rule> rules = listener.rules();
    ConditionMatcher[][] conditions = new ConditionMatcher[rules.size()][];
    String[][] pathStarts = new String[rules.size()][];
    RouteAction[] actions = new RouteAction[rules.size()];
    for (int i = 0; i < rules.size(); i++) {
      Rule rule = rules.get(i);
      List<ConditionMatcher> ms = new ArrayList<>();
      for (RuleCondition c : rule.conditions()) {
        ms.add(ConditionMatcher.compile(c));
        if (c instanceof RuleCondition.PathPattern p && pathStarts[i] == null) {
          pathStarts[i] = literalStarts(p.values());
        }
      }
      conditions[i] = ms.toArray(ConditionMatcher[]::new);
      actions[i] = compile(rule.priority(), rule.arn(), loadBalancerArn, rule.actions(),
          Rewrites.of(rule.transforms()), checks);
    }
    return new RouteTable(conditions, pathStarts, actions,
        compile(0, listener.arn(), loadBalancerArn, listener.defaultActions(), null, checks));
  }

  /** A rule's actions: the routing action (the last), behind the check before it, if any. */
  private static RouteAction compile(int priority, String id, String loadBalancerArn, List<Action> list,
      Rewrites rewrites, Checks checks) {
    RouteAction routing = compile(priority, list.get(list.size() - 1), rewrites);
    if (list.size() > 1 && list.get(0) instanceof JwtValidation jwt) {
      return new JwtRoute(priority, new TokenCheck(jwt), checks.keys(jwt.jwksEndpoint()), routing);
    }
    if (list.size() > 1 && list.get(0) instanceof AuthenticateOidc oidc) {
      return new OidcRoute(priority, oidc, id, loadBalancerArn, checks.idp(), routing);
    }
    return routing;
  }

  /** The part of each pattern before its first wildcard; null if one of them has none. */
  static String[] literalStarts(List<String> patterns) {
    String[] starts = new String[patterns.size()];
    for (int i = 0; i < starts.length; i++) {
      String p = RulePath.pattern(patterns.get(i));
      int end = 0;
      while (end < p.length() && p.charAt(end) != '*' && p.charAt(end) != '?') {
        end++;
      }
      if (end == 0) {
        return null;
      }
      starts[i] = p.substring(0, end);
    }
    return starts;
  }

  /** @param rewrites the rule's transforms (null: none), which apply to a forward only */
  static RouteAction compile(int priority, Action action, Rewrites rewrites) {
    if (action instanceof Action.Forward f) {
      return new ForwardRoute(priority, f, rewrites);
    }
    if (action instanceof Action.FixedResponse f) {
      return new FixedRoute(priority, f.statusCode(), f.contentType(), f.messageBody());
    }
    if (action instanceof Action.Redirect r) {
      return new RedirectRoute(priority, r);
    }
    throw new IllegalArgumentException("unknown action " + action);
  }

  public RouteAction match(RequestFacts request) {
    if (callback != null && AuthenticateOidc.CALLBACK_PATH.equals(request.path())) {
      return callback;
    }
    String path = null;
    rules:
    for (int i = 0; i < conditions.length; i++) {
      String[] starts = pathStarts[i];
      if (starts != null) {
        if (path == null) {
          path = request.rulePath();
        }
        if (!startsWithAny(path, starts)) {
          continue;
        }
      }
      for (ConditionMatcher m : conditions[i]) {
        if (!m.matches(request)) {
          continue rules;
        }
      }
      return actions[i];
    }
    return defaultAction;
  }

  /**
   * How {@link #match} decides for {@code request}, rule by rule in priority order: whether each
   * condition matches, up to the first rule whose conditions all do (the one whose action it takes;
   * none: the default action). For explaining a decision, not for the request path.
   */
  public List<RuleVerdict> explain(RequestFacts request) {
    List<RuleVerdict> out = new ArrayList<>();
    for (int i = 0; i < conditions.length; i++) {
      List<Boolean> each = new ArrayList<>(conditions[i].length);
      boolean all = true;
      for (ConditionMatcher m : conditions[i]) {
        boolean ok = m.matches(request);
        each.add(ok);
        all &= ok;
      }
      out.add(new RuleVerdict(i, each, all));
      if (all) {
        break;
      }
    }
    return out;
  }

  /**
   * One rule's verdict on a request.
   *
   * @param index      the rule's place in the listener's rules (in priority order)
   * @param conditions whether each of its conditions matches, in order
   * @param matched    whether they all do
   */
  public record RuleVerdict(int index, List<Boolean> conditions, boolean matched) {
  }

  private static boolean startsWithAny(String path, String[] starts) {
    for (String s : starts) {
      if (path.startsWith(s)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Every routing action of the table (a check's, that behind it), default last (to find which
   * target groups a listener uses).
   */
  public List<RouteAction> actions() {
    List<RouteAction> all = new ArrayList<>();
    for (RouteAction a : actions) {
      all.add(routing(a));
    }
    all.add(routing(defaultAction));
    return all;
  }

  private static RouteAction routing(RouteAction a) {
    return a instanceof JwtRoute j ? j.then() : a instanceof OidcRoute o ? o.then() : a;
  }
}
