package io.fulcrum.model;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A rule or default action (ELBv2 {@code Action}): the routing actions forward, fixed-response and
 * redirect, and the checks that run before one, {@link JwtValidation} and {@link AuthenticateOidc}.
 */
public sealed interface Action
    permits Action.Forward, Action.FixedResponse, Action.Redirect, JwtValidation, AuthenticateOidc {

  /** The AWS action type name. */
  String type();

  /** The action as a message names it: "a jwt-validation action", "an authenticate-oidc action". */
  default String described() {
    return (type().startsWith("a") ? "an " : "a ") + type() + " action";
  }

  /** Whether it is a routing action (forward, fixed-response, redirect), which ends a rule's actions. */
  default boolean routing() {
    return !(this instanceof JwtValidation || this instanceof AuthenticateOidc);
  }

  /**
   * Checks the order of a rule's (or a listener's default) actions: at most one check
   * (jwt-validation or authenticate-oidc), first, and exactly one routing action (forward,
   * fixed-response or redirect), last.
   *
   * @param actions the actions in the order they run; none is null
   */
  static void checkSequence(List<Action> actions, Problems p) {
    List<Action> checks = actions.stream().filter(a -> !a.routing()).toList();
    long routing = actions.size() - checks.size();
    if (checks.size() > 1) {
      p.add("InvalidLoadBalancerAction", checks.size() + " actions of types "
          + String.join(", ", checks.stream().map(Action::type).toList())
          + ": at most one jwt-validation or authenticate-oidc action is allowed");
    } else if (routing != 1 && !actions.isEmpty()) {
      p.add("InvalidLoadBalancerAction", routing == 0
          ? checks.get(0).described() + " must be followed by a forward, fixed-response or redirect action"
          : routing + " routing actions: exactly one forward, fixed-response or redirect action is allowed");
    } else if (checks.size() == 1 && actions.get(0).routing()) {
      p.at(1).add("InvalidLoadBalancerAction", "the " + checks.get(0).type() + " action must come first, before the "
          + actions.get(0).type() + " action");
    }
  }

  /**
   * Forward to one target group, or spread over 2-5 by weight (0-999), optionally with
   * target-group stickiness ({@code AWSALBTG}).
   */
  record Forward(List<WeightedTargetGroup> targetGroups, boolean stickinessEnabled, int stickinessDurationSeconds)
      implements Action {
    public static final int MAX_TARGET_GROUPS = 5;
    public static final int MAX_WEIGHT = 999;

    public static final int MAX_STICKINESS_SECONDS = 604_800;

    public Forward {
      targetGroups = List.copyOf(targetGroups);
    }

    /**
     * Checks a forward action: at most {@value #MAX_TARGET_GROUPS} groups ({@code TooManyTargetGroups}),
     * weights 0-{@value #MAX_WEIGHT} (at {@code target-groups[i].weight}), and a stickiness duration of
     * 1-604800 seconds, required when stickiness is enabled (at {@code stickiness.duration-seconds}).
     * Which target groups exist is for the caller to check.
     *
     * @return the action, or {@code null} when a problem was recorded
     */
    public static Forward of(List<WeightedTargetGroup> groups, boolean stickinessEnabled, Integer durationSeconds,
        Problems p) {
      int before = p.size();
      if (groups.size() > MAX_TARGET_GROUPS) {
        p.at("target-groups").add("TooManyTargetGroups", groups.size() + " target groups is above the maximum "
            + MAX_TARGET_GROUPS + " per action");
      }
      for (int i = 0; i < groups.size(); i++) {
        p.at("target-groups").at(i).at("weight").checkRange(groups.get(i).weight(), 0, MAX_WEIGHT);
      }
      Problems d = p.at("stickiness").at("duration-seconds");
      if (stickinessEnabled && durationSeconds == null) {
        d.add("a duration (1-" + MAX_STICKINESS_SECONDS + " seconds) is required when target group stickiness is"
            + " enabled");
      } else if (durationSeconds != null) {
        d.checkRange(durationSeconds, 1, MAX_STICKINESS_SECONDS);
      }
      return p.size() > before ? null
          : new Forward(groups, stickinessEnabled, durationSeconds == null ? 0 : durationSeconds);
    }

    @Override
    public String type() {
      return "forward";
    }
  }

  /** A target group in a forward action; {@code name} is kept for messages and the config view. */
  record WeightedTargetGroup(String arn, String name, int weight) {
  }

  /** A response made by the load balancer. */
  record FixedResponse(int statusCode, String contentType, String messageBody) implements Action {
    public static final List<String> CONTENT_TYPES =
        List.of("text/plain", "text/css", "text/html", "application/javascript", "application/json");
    public static final int MAX_BODY = 1024;
    public static final String DEFAULT_CONTENT_TYPE = "text/plain";
    private static final Pattern STATUS = Pattern.compile("[245]\\d\\d");

    /**
     * Checks and builds a fixed response: a 2XX, 4XX or 5XX status (at {@code status-code}), one of
     * {@link #CONTENT_TYPES} (at {@code content-type}; {@code null} is text/plain) and a body of at most
     * {@value #MAX_BODY} characters (at {@code message-body}; {@code null} is empty).
     *
     * @return the action, or {@code null} when a problem was recorded
     */
    public static FixedResponse of(String statusCode, String contentType, String messageBody, Problems p) {
      int before = p.size();
      if (statusCode == null) {
        p.at("status-code").add("a status code is required (expected a 2XX, 4XX or 5XX code)");
      } else if (!STATUS.matcher(statusCode).matches()) {
        p.at("status-code").add("'" + statusCode + "' is not valid (expected a 2XX, 4XX or 5XX code)");
      }
      String type = contentType == null ? DEFAULT_CONTENT_TYPE : contentType;
      if (!CONTENT_TYPES.contains(type)) {
        p.at("content-type").add("'" + type + "' is not one of: " + String.join(", ", CONTENT_TYPES));
      }
      String body = messageBody == null ? "" : messageBody;
      if (body.length() > MAX_BODY) {
        p.at("message-body").add(body.length() + " characters is above the maximum " + MAX_BODY);
      }
      return p.size() > before ? null : new FixedResponse(Integer.parseInt(statusCode), type, body);
    }

    @Override
    public String type() {
      return "fixed-response";
    }
  }

  /**
   * A redirect; each component may use {@code #{protocol}}, {@code #{host}}, {@code #{port}},
   * {@code #{path}} and {@code #{query}}.
   */
  record Redirect(String protocol, String port, String host, String path, String query, int statusCode)
      implements Action {
    public static final String DEFAULT_PROTOCOL = "#{protocol}";
    public static final String DEFAULT_PORT = "#{port}";
    public static final String DEFAULT_HOST = "#{host}";
    public static final String DEFAULT_PATH = "/#{path}";
    public static final String DEFAULT_QUERY = "#{query}";
    public static final int MAX_COMPONENT = 128;

    /**
     * Checks and builds a redirect. A {@code null} component keeps the request's own
     * ({@code #{protocol}}, ...). The status is {@code HTTP_301} or {@code HTTP_302} (also {@code 301},
     * {@code 302}); at least one component must change, or the redirect would loop. Problems are recorded at
     * {@code protocol}, {@code port}, {@code host}, {@code path}, {@code query} and {@code status-code}.
     *
     * @return the action, or {@code null} when a problem was recorded
     */
    public static Redirect of(String protocol, String port, String host, String path, String query,
        String statusCode, Problems p) {
      int before = p.size();
      protocol = protocol == null ? DEFAULT_PROTOCOL : protocol;
      port = port == null ? DEFAULT_PORT : port;
      host = host == null ? DEFAULT_HOST : host;
      path = path == null ? DEFAULT_PATH : path;
      query = query == null ? DEFAULT_QUERY : query;
      if (!List.of("HTTP", "HTTPS", DEFAULT_PROTOCOL).contains(protocol)) {
        p.at("protocol").add("'" + protocol + "' is not one of: HTTP, HTTPS, #{protocol}");
      }
      if (!port.equals(DEFAULT_PORT)) {
        try {
          p.at("port").checkRange(Integer.parseInt(port), 1, 65535);
        } catch (NumberFormatException e) {
          p.at("port").add("'" + port + "' is not a port (expected 1-65535 or #{port})");
        }
      }
      if (host.isEmpty() || host.length() > MAX_COMPONENT) {
        p.at("host").add("the host must be 1-" + MAX_COMPONENT + " characters long");
      }
      if (path.isEmpty() || path.length() > MAX_COMPONENT || !path.startsWith("/")) {
        p.at("path").add("'" + path + "' is not valid (expected 1-" + MAX_COMPONENT + " characters starting with '/')");
      }
      if (query.length() > MAX_COMPONENT || query.startsWith("?")) {
        p.at("query").add("'" + query + "' is not valid (expected at most " + MAX_COMPONENT
            + " characters, without a leading '?')");
      }
      int code = 0;
      if ("HTTP_301".equals(statusCode) || "301".equals(statusCode)) {
        code = 301;
      } else if ("HTTP_302".equals(statusCode) || "302".equals(statusCode)) {
        code = 302;
      } else if (statusCode == null) {
        p.at("status-code").add("a status code is required (expected: HTTP_301 or HTTP_302)");
      } else {
        p.at("status-code").add("'" + statusCode + "' is not one of: HTTP_301, HTTP_302");
      }
      if (protocol.equals(DEFAULT_PROTOCOL) && port.equals(DEFAULT_PORT) && host.equals(DEFAULT_HOST)
          && path.equals(DEFAULT_PATH) && query.equals(DEFAULT_QUERY)) {
        p.add("a redirect must change at least one of protocol, port, host, path or query, or it would redirect to"
            + " itself");
      }
      return p.size() > before ? null : new Redirect(protocol, port, host, path, query, code);
    }

    @Override
    public String type() {
      return "redirect";
    }
  }
}
