package io.fulcrum.model;

import java.util.List;

/** A rule or default action (ELBv2 {@code Action}): forward, fixed-response or redirect. */
public sealed interface Action {

  /** The AWS action type name. */
  String type();

  /**
   * Forward to one target group, or spread over 2-5 by weight (0-999), optionally with
   * target-group stickiness ({@code AWSALBTG}).
   */
  record Forward(List<WeightedTargetGroup> targetGroups, boolean stickinessEnabled, int stickinessDurationSeconds)
      implements Action {
    public static final int MAX_TARGET_GROUPS = 5;
    public static final int MAX_WEIGHT = 999;

    public Forward {
      targetGroups = List.copyOf(targetGroups);
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

    @Override
    public String type() {
      return "redirect";
    }
  }
}
