package io.fulcrum.api;

import io.fulcrum.model.Action;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.Problems;
import io.fulcrum.model.WireEnum;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the {@code Actions} / {@code DefaultActions} parameter ({@code Actions.member.N.Type},
 * {@code TargetGroupArn}, {@code ForwardConfig}, {@code FixedResponseConfig}, {@code RedirectConfig},
 * {@code JwtValidationConfig}, {@code AuthenticateOidcConfig}, {@code Order}) into model actions,
 * checked by the model's validators. Forward actions come back with target-group ARNs only: whether
 * the groups exist is decided inside the change ({@link LbResources#resolve}), against the resources
 * it applies to; so is the client secret that {@code UseExistingClientSecret} keeps
 * ({@link #keepingSecret}).
 */
final class ActionsParser {

  static final List<String> TYPES = List.of("forward", "authenticate-oidc", "authenticate-cognito", "redirect",
      "fixed-response", "jwt-validation");
  private static final int MAX_ORDER = 50_000;
  private static final List<String> FORMATS =
      Arrays.stream(JwtValidation.ClaimFormat.values()).map(JwtValidation.ClaimFormat::wire).toList();
  private static final List<String> BEHAVIOURS =
      Arrays.stream(AuthenticateOidc.OnUnauthenticated.values()).map(AuthenticateOidc.OnUnauthenticated::wire).toList();
  /** Stands in for the secret while the rest of an action that keeps its existing one is checked. */
  private static final String KEPT_SECRET = "(existing)";

  private ActionsParser() {
  }

  /**
   * The actions of a rule or the default actions of a listener, in the order they run: one forward,
   * fixed-response or redirect, after a jwt-validation or authenticate-oidc action if there is one.
   * Several actions each need an {@code Order} (distinct); they run lowest first. For CreateRule and
   * CreateListener: an authenticate-oidc action needs its {@code ClientSecret}.
   *
   * @param member the parameter ({@code Actions} or {@code DefaultActions})
   */
  static List<Action> parse(QueryParams params, String member) {
    return parse(params, member, false);
  }

  /**
   * As {@link #parse(QueryParams, String)}, for ModifyRule and ModifyListener: an authenticate-oidc
   * action with {@code UseExistingClientSecret=true} and no {@code ClientSecret} comes back with a
   * null secret, which {@link #keepingSecret} takes from the actions the rule or listener has now.
   */
  static List<Action> parseChange(QueryParams params, String member) {
    return parse(params, member, true);
  }

  /**
   * The actions given to ModifyRule or ModifyListener, with the client secret of the
   * authenticate-oidc action they have now where one given keeps it ({@code UseExistingClientSecret}):
   * called inside the change, against the resources it applies to.
   *
   * @param current the rule's actions, or the listener's default actions, before the change
   * @throws io.fulcrum.model.InvalidModelException {@code ValidationError} when there is no secret to keep
   */
  static List<Action> keepingSecret(List<Action> given, List<Action> current, String member) {
    if (given.stream().noneMatch(a -> a instanceof AuthenticateOidc o && o.clientSecret() == null)) {
      return given;
    }
    String existing = current.stream().filter(a -> a instanceof AuthenticateOidc)
        .map(a -> ((AuthenticateOidc) a).clientSecret()).findFirst().orElseThrow(() -> LbResources.refusal(
            "ValidationError", member + ": AuthenticateOidcConfig.ClientSecret is required: UseExistingClientSecret"
                + " keeps the secret of an authenticate-oidc action, and there is none now"));
    return given.stream().map(a -> a instanceof AuthenticateOidc o && o.clientSecret() == null
        ? o.withClientSecret(existing) : a).toList();
  }

  private static List<Action> parse(QueryParams params, String member, boolean mayKeepSecret) {
    List<QueryParams> given = params.structs(member);
    if (given.isEmpty()) {
      if (!params.has(member)) {
        params.required(member);
      }
      throw ApiError.validation("At least one action must be specified in " + member);
    }
    List<Ordered> read = new ArrayList<>();
    Set<Integer> orders = new HashSet<>();
    for (int i = 0; i < given.size(); i++) {
      String where = member + ".member." + (i + 1);
      Ordered a = action(given.get(i), where, mayKeepSecret);
      if (given.size() > 1 && a.order() == null) {
        throw ApiError.validation(where + ": an Order is required for each action when there are several");
      }
      if (a.order() != null && !orders.add(a.order())) {
        throw ApiError.validation(where + ": Order " + a.order() + " is used by another action");
      }
      read.add(a);
    }
    List<Action> out = read.stream()
        .sorted(Comparator.comparing(Ordered::order, Comparator.nullsFirst(Comparator.naturalOrder())))
        .map(Ordered::action).toList();
    Problems problems = new Problems();
    Action.checkSequence(out, problems.at(member));
    ModelProblems.throwFirst(problems, 0);
    return out;
  }

  /** An action as given, with its {@code Order} (null when absent). */
  private record Ordered(Action action, Integer order) {
  }

  private static Ordered action(QueryParams a, String where, boolean mayKeepSecret) {
    String type = a.string("Type");
    if (type == null) {
      throw ApiError.constraint(null, lower(where) + ".type", "not be null");
    }
    if (!TYPES.contains(type)) {
      throw ApiError.constraint(type, lower(where) + ".type", "satisfy enum value set: " + TYPES);
    }
    Integer order = a.integer("Order");
    if (order != null && (order < 1 || order > MAX_ORDER)) {
      throw ApiError.constraint(order, lower(where) + ".order", order < 1 ? "have value greater than or equal to 1"
          : "have value less than or equal to " + MAX_ORDER);
    }
    Problems problems = new Problems();
    Action action = switch (type) {
      case "forward" -> forward(a, where, problems);
      case "fixed-response" -> {
        if (!a.hasAny("FixedResponseConfig")) {
          throw ApiError.validation(where + ": a fixed-response action requires FixedResponseConfig");
        }
        QueryParams c = a.struct("FixedResponseConfig");
        yield Action.FixedResponse.of(c.string("StatusCode"), c.string("ContentType"), c.string("MessageBody"),
            problems.at(where + ".FixedResponseConfig"));
      }
      case "redirect" -> {
        if (!a.hasAny("RedirectConfig")) {
          throw ApiError.validation(where + ": a redirect action requires RedirectConfig");
        }
        QueryParams c = a.struct("RedirectConfig");
        String status = c.string("StatusCode");
        if (status != null && !status.equals("HTTP_301") && !status.equals("HTTP_302")) {
          throw ApiError.constraint(status, lower(where) + ".redirectConfig.statusCode",
              "satisfy enum value set: [HTTP_301, HTTP_302]");
        }
        yield Action.Redirect.of(c.string("Protocol"), c.string("Port"), c.string("Host"), c.string("Path"),
            c.string("Query"), status, problems.at(where + ".RedirectConfig"));
      }
      case JwtValidation.TYPE -> jwtValidation(a, where, problems);
      case AuthenticateOidc.TYPE -> authenticateOidc(a, where, mayKeepSecret, problems);
      default -> throw ApiError.sender("InvalidLoadBalancerAction", where + ": '" + type + "' actions are not"
          + " supported by Fulcrum (expected: forward, fixed-response, redirect, jwt-validation or"
          + " authenticate-oidc)");
    };
    ModelProblems.throwFirst(problems, 0);
    return new Ordered(action, order);
  }

  private static JwtValidation jwtValidation(QueryParams a, String where, Problems problems) {
    if (!a.hasAny("JwtValidationConfig")) {
      throw ApiError.validation(where + ": a jwt-validation action requires JwtValidationConfig");
    }
    QueryParams c = a.struct("JwtValidationConfig");
    List<JwtValidation.Claim> claims = new ArrayList<>();
    List<QueryParams> given = c.structs("AdditionalClaims");
    for (int i = 0; i < given.size(); i++) {
      QueryParams claim = given.get(i);
      String format = claim.string("Format");
      String at = lower(where) + ".jwtValidationConfig.additionalClaims." + (i + 1) + ".member.format";
      JwtValidation.ClaimFormat f = format == null ? null
          : WireEnum.parse(JwtValidation.ClaimFormat.class, format).orElseThrow(() -> ApiError.constraint(format,
              at, "satisfy enum value set: " + FORMATS));
      claims.add(new JwtValidation.Claim(claim.string("Name"), f, claim.strings("Values")));
    }
    return JwtValidation.of(c.string("JwksEndpoint"), c.string("Issuer"), claims,
        problems.at(where + ".JwtValidationConfig"));
  }

  /**
   * An authenticate-oidc action. With {@code UseExistingClientSecret=true} and no
   * {@code ClientSecret} on a change, the secret is null until {@link #keepingSecret} sets it.
   */
  private static AuthenticateOidc authenticateOidc(QueryParams a, String where, boolean mayKeepSecret,
      Problems problems) {
    if (!a.hasAny("AuthenticateOidcConfig")) {
      throw ApiError.validation(where + ": an authenticate-oidc action requires AuthenticateOidcConfig");
    }
    QueryParams c = a.struct("AuthenticateOidcConfig");
    String on = c.string("OnUnauthenticatedRequest");
    AuthenticateOidc.OnUnauthenticated behaviour = on == null ? null
        : WireEnum.parse(AuthenticateOidc.OnUnauthenticated.class, on).orElseThrow(() -> ApiError.constraint(on,
            lower(where) + ".authenticateOidcConfig.onUnauthenticatedRequest", "satisfy enum value set: "
                + BEHAVIOURS));
    Long timeout = c.longValue("SessionTimeout");
    Map<String, String> extra = c.map("AuthenticationRequestExtraParams");
    boolean useExisting = Boolean.TRUE.equals(c.bool("UseExistingClientSecret"));
    String secret = c.string("ClientSecret");
    if (secret == null && useExisting && !mayKeepSecret) {
      throw ApiError.validation(where + ".AuthenticateOidcConfig.ClientSecret: a client secret is required"
          + " (UseExistingClientSecret keeps one on ModifyRule and ModifyListener only)");
    }
    boolean keep = secret == null && useExisting;
    AuthenticateOidc oidc = AuthenticateOidc.of(c.string("Issuer"), c.string("AuthorizationEndpoint"),
        c.string("TokenEndpoint"), c.string("UserInfoEndpoint"), c.string("ClientId"), keep ? KEPT_SECRET : secret,
        c.string("SessionCookieName"), c.string("Scope"), timeout, extra, behaviour,
        problems.at(where + ".AuthenticateOidcConfig"));
    return keep && oidc != null ? oidc.withClientSecret(null) : oidc;
  }

  private static Action forward(QueryParams a, String where, Problems problems) {
    String single = a.string("TargetGroupArn");
    QueryParams config = a.struct("ForwardConfig");
    List<QueryParams> tuples = config.structs("TargetGroups");
    List<Action.WeightedTargetGroup> groups = new ArrayList<>();
    if (tuples.isEmpty()) {
      if (single == null || single.isEmpty()) {
        throw ApiError.validation(where + ": a forward action needs TargetGroupArn or ForwardConfig.TargetGroups");
      }
      groups.add(new Action.WeightedTargetGroup(single, null, 1));
    } else {
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < tuples.size(); i++) {
        String arn = tuples.get(i).string("TargetGroupArn");
        if (arn == null || arn.isEmpty()) {
          throw ApiError.validation(where + ".ForwardConfig.TargetGroups.member." + (i + 1)
              + ": a TargetGroupArn is required");
        }
        if (!seen.add(arn)) {
          throw ApiError.validation(where + ".ForwardConfig.TargetGroups: target group '" + arn
              + "' appears twice in this action");
        }
        Integer weight = tuples.get(i).integer("Weight");
        groups.add(new Action.WeightedTargetGroup(arn, null, weight == null ? 1 : weight));
      }
      if (single != null && !(groups.size() == 1 && groups.get(0).arn().equals(single))) {
        throw ApiError.validation(where + ": TargetGroupArn and ForwardConfig may both be given only when"
            + " ForwardConfig names that one target group");
      }
    }
    QueryParams stickiness = config.struct("TargetGroupStickinessConfig");
    Boolean enabled = stickiness.bool("Enabled");
    return Action.Forward.of(groups, enabled != null && enabled, stickiness.integer("DurationSeconds"),
        problems.at(where));
  }

  /** The member path as AWS's validation messages write it ({@code actions.1.member}). */
  private static String lower(String where) {
    String[] parts = where.split("\\.member\\.");
    return QueryParams.lowerFirst(parts[0]) + "." + parts[1] + ".member";
  }
}
