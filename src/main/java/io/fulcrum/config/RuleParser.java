package io.fulcrum.config;

import io.fulcrum.model.Action;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.Cidr;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import io.fulcrum.model.RuleTransform;
import io.fulcrum.model.WireEnum;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads rule conditions and actions from the config file, with their key paths. */
final class RuleParser {

  /** The action types the config file takes, as its messages list them. */
  private static final String TYPES = "forward, fixed-response, redirect, jwt-validation, authenticate-oidc";

  private RuleParser() {
  }

  /**
   * The transforms of a rule: {@code transforms: [{type: url-rewrite | host-header-rewrite, regex,
   * replace}]}, at most one of each type.
   */
  static List<RuleTransform> transforms(ConfigNode r) {
    List<RuleTransform> read = new ArrayList<>();
    int before = r.problems().size();
    for (ConfigNode t : r.objects("transforms")) {
      RuleTransform.Type type = t.enumValue("type", RuleTransform.Type.class, null);
      if (type == null && !t.has("type")) {
        t.at("type").add("a type is required (expected: url-rewrite or host-header-rewrite)");
      }
      String regex = t.string("regex", null);
      String replace = t.string("replace", null);
      if (regex == null) {
        t.at("regex").add("a regular expression is required");
      }
      if (replace == null) {
        t.at("replace").add("a replacement is required (it may be empty)");
      }
      t.finish();
      if (type != null && regex != null && replace != null) {
        read.add(new RuleTransform(type, regex, replace));
      }
    }
    if (r.problems().size() == before) {
      RuleTransform.validate(read, r.at("transforms"));
    }
    return read;
  }

  /** The conditions of a rule, with AWS's per-rule limits (SPEC §8.5). */
  static List<RuleCondition> conditions(ConfigNode r) {
    List<RuleCondition> read = new ArrayList<>();
    for (ConfigNode c : r.objects("conditions")) {
      String field = c.string("field", null);
      RuleCondition condition = null;
      int beforeValues = c.problems().size();
      if (field == null) {
        c.at("field").add("a field is required (expected one of: path-pattern, host-header, http-header,"
            + " http-request-method, query-string, source-ip)");
        c.skipRest();
      } else if (RuleCondition.Regex.FIELDS.contains(field) && c.has("regex-values")) {
        if (c.has("values")) {
          c.at("values").add("give values (with wildcards) or regex-values, not both");
        }
        List<String> regexes = c.strings("regex-values");
        condition = new RuleCondition.Regex(field,
            field.equals("http-header") ? c.string("http-header-name", null) : null,
            regexes == null ? List.of() : regexes);
      } else {
        switch (field) {
          case "path-pattern" -> condition = new RuleCondition.PathPattern(stringValues(c));
          case "host-header" -> condition = new RuleCondition.HostHeader(stringValues(c));
          case "http-request-method" -> condition = new RuleCondition.HttpRequestMethod(stringValues(c));
          case "http-header" -> condition = new RuleCondition.HttpHeader(c.string("http-header-name", null), stringValues(c));
          case "query-string" -> {
            List<RuleCondition.KeyValue> kvs = new ArrayList<>();
            for (ConfigNode kv : c.objects("values")) {
              kvs.add(new RuleCondition.KeyValue(kv.string("key", null), kv.string("value", null)));
              kv.finish();
            }
            condition = new RuleCondition.QueryString(kvs);
          }
          case "source-ip" -> {
            List<Cidr> cidrs = ConfigParser.parseCidrs(c, "values", List.of());
            condition = new RuleCondition.SourceIp(cidrs);
          }
          default -> {
            c.at("field").add("'" + field + "' is not one of: path-pattern, host-header, http-header,"
                + " http-request-method, query-string, source-ip");
            c.skipRest();
          }
        }
      }
      // When every value given was unreadable (a bad CIDR, a list for a string), that was reported already.
      if (condition != null && (condition.valueCount() > 0 || c.problems().size() == beforeValues)) {
        RuleCondition.validate(condition, c.problems());
      }
      read.add(condition);
      c.finish();
    }
    Rule.checkConditions(read, r.at("conditions"));
    return read.stream().filter(java.util.Objects::nonNull).toList();
  }

  private static List<String> stringValues(ConfigNode c) {
    List<String> v = c.strings("values");
    return v == null ? List.of() : v;
  }

  /**
   * A rule's or listener's actions, in the order they run: one forward, fixed-response or redirect,
   * after a jwt-validation or authenticate-oidc action if there is one. (Their order is checked with the listener's
   * protocol, by {@link io.fulcrum.model.ResourceRules}.)
   */
  static List<Action> actions(ConfigNode owner, String key, Map<String, String> tgArns) {
    List<ConfigNode> nodes = owner.objects(key);
    List<Action> out = new ArrayList<>();
    if (nodes.isEmpty() && key.equals("actions")) {
      owner.at(key).add("a rule needs an action (e.g. [{type: forward, target-group: web}])");
    }
    boolean complete = true;
    for (ConfigNode a : nodes) {
      Action action = action(a, tgArns);
      a.finish();
      if (action != null) {
        out.add(action);
      } else {
        complete = false;
      }
    }
    return complete ? out : List.of();
  }

  private static Action action(ConfigNode a, Map<String, String> tgArns) {
    int before = a.problems().size();
    String type = a.string("type", null);
    if (type == null) {
      a.at("type").add("a type is required (expected one of: " + TYPES + ")");
      a.skipRest();
      return null;
    }
    switch (type) {
      case "forward": {
        List<Action.WeightedTargetGroup> groups = new ArrayList<>();
        String single = a.string("target-group", null);
        List<ConfigNode> many = a.objects("target-groups");
        if (single != null && !many.isEmpty()) {
          a.problems().add("give either target-group or target-groups, not both");
        } else if (single != null) {
          String arn = tgArns.get(single);
          if (arn == null) {
            a.at("target-group").add("TargetGroupNotFound", "Target group '" + single + "' not found (not defined in target-groups)");
          }
          groups.add(new Action.WeightedTargetGroup(arn, single, 1));
        } else if (many.isEmpty()) {
          a.problems().add("a forward action needs target-group or target-groups");
        } else {
          Set<String> seen = new HashSet<>();
          for (ConfigNode g : many) {
            String name = g.string("name", null);
            int weight = g.integer("weight", 1);
            String arn = name == null ? null : tgArns.get(name);
            if (name == null) {
              g.at("name").add("a target group name is required");
            } else if (arn == null) {
              g.at("name").add("TargetGroupNotFound", "Target group '" + name + "' not found (not defined in target-groups)");
            } else if (!seen.add(name)) {
              g.at("name").add("target group '" + name + "' appears twice in this action");
            }
            g.finish();
            groups.add(new Action.WeightedTargetGroup(arn, name, weight));
          }
        }
        ConfigNode s = a.object("stickiness");
        boolean enabled = s.bool("enabled", false);
        Integer duration = s.integer("duration-seconds", null);
        s.finish();
        Action.Forward forward = Action.Forward.of(groups, enabled, duration, a.problems());
        return a.problems().size() > before ? null : forward;
      }
      case "fixed-response": {
        Action.FixedResponse fixed = Action.FixedResponse.of(a.string("status-code", null),
            a.string("content-type", null), a.string("message-body", null), a.problems());
        return a.problems().size() > before ? null : fixed;
      }
      case "redirect": {
        Action.Redirect redirect = Action.Redirect.of(a.string("protocol", null), a.string("port", null),
            a.string("host", null), a.string("path", null), a.string("query", null), a.string("status-code", null),
            a.problems());
        return a.problems().size() > before ? null : redirect;
      }
      case JwtValidation.TYPE: {
        List<JwtValidation.Claim> claims = new ArrayList<>();
        for (ConfigNode c : a.objects("additional-claims")) {
          String name = c.string("name", null);
          String format = c.string("format", null);
          JwtValidation.ClaimFormat f = format == null ? null
              : WireEnum.parse(JwtValidation.ClaimFormat.class, format, c.at("format"));
          List<String> values = c.strings("values");
          claims.add(format != null && f == null ? null
              : new JwtValidation.Claim(name, f, values == null ? List.of() : values));
          c.finish();
        }
        JwtValidation jwt = JwtValidation.of(a.string("jwks-endpoint", null), a.string("issuer", null), claims,
            a.problems());
        return a.problems().size() > before ? null : jwt;
      }
      case AuthenticateOidc.TYPE: {
        String issuer = a.string("issuer", null);
        String authorization = a.string("authorization-endpoint", null);
        String token = a.string("token-endpoint", null);
        String userInfo = a.string("user-info-endpoint", null);
        String clientId = a.string("client-id", null);
        String clientSecret = a.string("client-secret", null);
        String cookie = a.string("session-cookie-name", null);
        String scope = a.string("scope", null);
        Long timeout = a.longValue("session-timeout", null);
        Map<String, String> extra = a.stringMap("authentication-request-extra-params");
        AuthenticateOidc.OnUnauthenticated on =
            a.enumValue("on-unauthenticated-request", AuthenticateOidc.OnUnauthenticated.class, null);
        AuthenticateOidc oidc = AuthenticateOidc.of(issuer, authorization, token, userInfo, clientId, clientSecret,
            cookie, scope, timeout, extra, on, a.problems());
        return a.problems().size() > before ? null : oidc;
      }
      default:
        a.at("type").add("'" + type + "' is not one of: " + TYPES);
        a.skipRest();
        return null;
    }
  }
}
