package io.fulcrum.config;

import io.fulcrum.model.Action;
import io.fulcrum.model.Cidr;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Reads rule conditions and actions from the config file, with their key paths. */
final class RuleParser {

  private static final Pattern FIXED_STATUS = Pattern.compile("[245]\\d\\d");

  private RuleParser() {
  }

  /** The conditions of a rule, with AWS's per-rule limits (SPEC §8.5). */
  static List<RuleCondition> conditions(ConfigNode r) {
    List<RuleCondition> out = new ArrayList<>();
    List<ConfigNode> nodes = r.objects("conditions");
    if (nodes.isEmpty()) {
      r.at("conditions").add("a rule needs at least one condition");
    }
    Set<String> singles = new HashSet<>();
    int values = 0;
    int wildcards = 0;
    for (ConfigNode c : nodes) {
      String field = c.string("field", null);
      RuleCondition condition = null;
      int beforeValues = c.problems().size();
      if (field == null) {
        c.at("field").add("a field is required (expected one of: path-pattern, host-header, http-header,"
            + " http-request-method, query-string, source-ip)");
        c.skipRest();
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
      if (condition != null) {
        // When every value given was unreadable (a bad CIDR, a list for a string), that was reported already.
        if (condition.valueCount() > 0 || c.problems().size() == beforeValues) {
          RuleCondition.validate(condition, c.problems());
        }
        if (!(condition instanceof RuleCondition.HttpHeader) && !(condition instanceof RuleCondition.QueryString)
            && !singles.add(field)) {
          c.at("field").add("a rule can have only one " + field + " condition");
        }
        values += condition.valueCount();
        wildcards += condition.wildcardCount();
        out.add(condition);
      }
      c.finish();
    }
    if (values > Rule.MAX_CONDITION_VALUES) {
      r.at("conditions").add("TooManyConditionValues", values + " condition values is above the maximum "
          + Rule.MAX_CONDITION_VALUES + " per rule (match evaluations included)");
    }
    if (wildcards > Rule.MAX_WILDCARDS) {
      r.at("conditions").add(wildcards + " wildcards is above the maximum " + Rule.MAX_WILDCARDS + " per rule");
    }
    return out;
  }

  private static List<String> stringValues(ConfigNode c) {
    List<String> v = c.strings("values");
    return v == null ? List.of() : v;
  }

  /** A rule's or listener's actions: exactly one forward, fixed-response or redirect. */
  static List<Action> actions(ConfigNode owner, String key, Map<String, String> tgArns) {
    List<ConfigNode> nodes = owner.objects(key);
    List<Action> out = new ArrayList<>();
    if (nodes.size() > 1) {
      owner.at(key).add("exactly one action is expected (forward, fixed-response or redirect); found " + nodes.size());
    }
    if (nodes.isEmpty() && key.equals("actions")) {
      owner.at(key).add("a rule needs an action (e.g. [{type: forward, target-group: web}])");
    }
    for (ConfigNode a : nodes) {
      Action action = action(a, tgArns);
      a.finish();
      if (action != null) {
        out.add(action);
      }
    }
    return out;
  }

  private static Action action(ConfigNode a, Map<String, String> tgArns) {
    int before = a.problems().size();
    String type = a.string("type", null);
    if (type == null) {
      a.at("type").add("a type is required (expected one of: forward, fixed-response, redirect)");
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
          if (many.size() > Action.Forward.MAX_TARGET_GROUPS) {
            a.at("target-groups").add(many.size() + " target groups is above the maximum "
                + Action.Forward.MAX_TARGET_GROUPS + " per action");
          }
          Set<String> seen = new HashSet<>();
          for (ConfigNode g : many) {
            String name = g.string("name", null);
            int weight = g.integer("weight", 1);
            g.at("weight").checkRange(weight, 0, Action.Forward.MAX_WEIGHT);
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
        if (enabled && duration == null) {
          s.at("duration-seconds").add("a duration (1-604800 seconds) is required when target group stickiness is enabled");
        } else if (duration != null) {
          s.at("duration-seconds").checkRange(duration, 1, 604800);
        }
        s.finish();
        return a.problems().size() > before ? null
            : new Action.Forward(groups, enabled, duration == null ? 0 : duration);
      }
      case "fixed-response": {
        String status = a.string("status-code", null);
        if (status == null) {
          a.at("status-code").add("a status code is required (expected a 2XX, 4XX or 5XX code)");
        } else if (!FIXED_STATUS.matcher(status).matches()) {
          a.at("status-code").add("'" + status + "' is not valid (expected a 2XX, 4XX or 5XX code)");
        }
        String contentType = a.string("content-type", "text/plain");
        if (!Action.FixedResponse.CONTENT_TYPES.contains(contentType)) {
          a.at("content-type").add("'" + contentType + "' is not one of: " + String.join(", ", Action.FixedResponse.CONTENT_TYPES));
        }
        String body = a.string("message-body", "");
        if (body.length() > Action.FixedResponse.MAX_BODY) {
          a.at("message-body").add(body.length() + " characters is above the maximum " + Action.FixedResponse.MAX_BODY);
        }
        return a.problems().size() > before ? null
            : new Action.FixedResponse(Integer.parseInt(status), contentType, body);
      }
      case "redirect": {
        String protocol = a.string("protocol", Action.Redirect.DEFAULT_PROTOCOL);
        if (!List.of("HTTP", "HTTPS", Action.Redirect.DEFAULT_PROTOCOL).contains(protocol)) {
          a.at("protocol").add("'" + protocol + "' is not one of: HTTP, HTTPS, #{protocol}");
        }
        String port = a.string("port", Action.Redirect.DEFAULT_PORT);
        if (!port.equals(Action.Redirect.DEFAULT_PORT)) {
          try {
            a.at("port").checkRange(Integer.parseInt(port), 1, 65535);
          } catch (NumberFormatException e) {
            a.at("port").add("'" + port + "' is not a port (expected 1-65535 or #{port})");
          }
        }
        String host = a.string("host", Action.Redirect.DEFAULT_HOST);
        if (host.isEmpty() || host.length() > 128) {
          a.at("host").add("the host must be 1-128 characters long");
        }
        String path = a.string("path", Action.Redirect.DEFAULT_PATH);
        if (path.isEmpty() || path.length() > 128 || !path.startsWith("/")) {
          a.at("path").add("'" + path + "' is not valid (expected 1-128 characters starting with '/')");
        }
        String query = a.string("query", Action.Redirect.DEFAULT_QUERY);
        if (query.length() > 128 || query.startsWith("?")) {
          a.at("query").add("'" + query + "' is not valid (expected at most 128 characters, without a leading '?')");
        }
        String status = a.string("status-code", null);
        int code = 0;
        if ("HTTP_301".equals(status) || "301".equals(status)) {
          code = 301;
        } else if ("HTTP_302".equals(status) || "302".equals(status)) {
          code = 302;
        } else if (status == null) {
          a.at("status-code").add("a status code is required (expected: HTTP_301 or HTTP_302)");
        } else {
          a.at("status-code").add("'" + status + "' is not one of: HTTP_301, HTTP_302");
        }
        if (protocol.equals(Action.Redirect.DEFAULT_PROTOCOL) && port.equals(Action.Redirect.DEFAULT_PORT)
            && host.equals(Action.Redirect.DEFAULT_HOST) && path.equals(Action.Redirect.DEFAULT_PATH)
            && query.equals(Action.Redirect.DEFAULT_QUERY)) {
          a.problems().add("a redirect must change at least one of protocol, port, host, path or query,"
              + " or it would redirect to itself");
        }
        return a.problems().size() > before ? null
            : new Action.Redirect(protocol, port, host, path, query, code);
      }
      default:
        a.at("type").add("'" + type + "' is not one of: forward, fixed-response, redirect");
        a.skipRest();
        return null;
    }
  }
}
