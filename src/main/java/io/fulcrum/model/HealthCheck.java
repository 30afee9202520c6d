package io.fulcrum.model;

/**
 * A target group's health check settings, resolved: every field has its value, defaults applied
 * per target type and load balancer type (SPEC §1.2) and every range and cross-field rule checked
 * (SPEC §1.3, §1.4). Immutable.
 *
 * @param enabled            whether checks run (only lambda target groups can turn them off)
 * @param protocol           HTTP, HTTPS or TCP
 * @param port               {@code traffic-port} or a port number, as a string (the AWS shape)
 * @param path               the request path for HTTP/HTTPS checks, or {@code null} for TCP
 * @param intervalSeconds    5-300
 * @param timeoutSeconds     2-120
 * @param healthyThreshold   2-10
 * @param unhealthyThreshold 2-10
 * @param matcher            the HTTP or gRPC code matcher, or {@code null} for TCP checks
 * @param grpc               whether {@code matcher} is a {@code GrpcCode} matcher
 */
public record HealthCheck(
    boolean enabled,
    Protocol protocol,
    String port,
    String path,
    int intervalSeconds,
    int timeoutSeconds,
    int healthyThreshold,
    int unhealthyThreshold,
    CodeMatcher matcher,
    boolean grpc) {

  public static final String TRAFFIC_PORT = "traffic-port";
  public static final String DEFAULT_PATH = "/";
  public static final String DEFAULT_GRPC_PATH = "/AWS.ALB/healthcheck";
  public static final String DEFAULT_HTTP_CODE = "200";
  public static final String DEFAULT_NLB_HTTP_CODE = "200-399";
  public static final String DEFAULT_GRPC_CODE = "12";
  public static final int MIN_INTERVAL = 5;
  public static final int MAX_INTERVAL = 300;
  public static final int MIN_TIMEOUT = 2;
  public static final int MAX_TIMEOUT = 120;
  public static final int MIN_THRESHOLD = 2;
  public static final int MAX_THRESHOLD = 10;
  public static final int MAX_PATH_LENGTH = 1024;
  /** What target groups of type alb cannot change (AWS's console offers none of these). */
  private static final String ALB_FIXED = "target groups of type alb keep the default ";

  /**
   * What a user gave; every field may be {@code null} (not given). Keys are the config keys;
   * the API maps its parameter names onto the same fields.
   */
  public record Input(
      Boolean enabled,
      String protocol,
      String port,
      String path,
      Integer intervalSeconds,
      Integer timeoutSeconds,
      Integer healthyThreshold,
      Integer unhealthyThreshold,
      String httpCode,
      String grpcCode) {

    public static final Input EMPTY = new Input(null, null, null, null, null, null, null, null, null, null);
  }

  /** The port number probed for a target whose traffic port is {@code trafficPort}. */
  public int portFor(int trafficPort) {
    return TRAFFIC_PORT.equals(port) ? trafficPort : Integer.parseInt(port);
  }

  /** The inputs that would reproduce these settings (used when only some fields change). */
  public Input toInput() {
    return new Input(enabled, protocol.wire(), port, path, intervalSeconds, timeoutSeconds,
        healthyThreshold, unhealthyThreshold,
        matcher == null || grpc ? null : matcher.text(),
        matcher != null && grpc ? matcher.text() : null);
  }

  /**
   * Resolves the settings of a target group. Problems are recorded at the keys of the config
   * ({@code protocol}, {@code interval-seconds}, ...) below {@code problems}.
   *
   * @return the settings, or {@code null} when a problem was recorded
   */
  public static HealthCheck resolve(Input in, TargetType targetType, Protocol tgProtocol,
      ProtocolVersion version, Problems problems) {
    int before = problems.size();
    TargetGroupKind kind = TargetGroupKind.of(targetType, tgProtocol);
    boolean grpc = version == ProtocolVersion.GRPC;

    boolean enabled = true;
    if (in.enabled() != null) {
      enabled = in.enabled();
      if (!enabled && kind != TargetGroupKind.ALB_LAMBDA) {
        problems.at("enabled").add(Problem.INVALID_CONFIGURATION,
            "health checks cannot be disabled for target groups with target type '" + targetType.wire() + "'");
      }
    } else if (kind == TargetGroupKind.ALB_LAMBDA) {
      enabled = false;
    }

    boolean alb = targetType == TargetType.ALB;
    Protocol protocol = switch (kind) {
      case ALB, ALB_LAMBDA -> Protocol.HTTP;
      case NLB, GWLB -> alb ? Protocol.HTTP : Protocol.TCP;
    };
    if (in.protocol() != null) {
      Protocol p = WireEnum.parse(Protocol.class, in.protocol(), problems.at("protocol"));
      if (p != null) {
        if (p != Protocol.HTTP && p != Protocol.HTTPS && p != Protocol.TCP) {
          problems.at("protocol").add("health checks over " + p.wire() + " are not supported (expected: HTTP, HTTPS or TCP)");
        } else if (p == Protocol.TCP && alb) {
          problems.at("protocol").add(Problem.INVALID_CONFIGURATION, "target groups of type alb are checked over HTTP"
              + " or HTTPS (the check goes through the application load balancer to its targets)");
        } else if (p == Protocol.TCP && (kind == TargetGroupKind.ALB || kind == TargetGroupKind.ALB_LAMBDA)) {
          problems.at("protocol").add(Problem.INVALID_CONFIGURATION,
              "TCP health checks are not supported for target groups with the "
                  + (tgProtocol == null ? "HTTP" : tgProtocol.wire()) + " protocol (expected: HTTP or HTTPS)");
        } else if (kind == TargetGroupKind.ALB_LAMBDA && p != Protocol.HTTP) {
          problems.at("protocol").add(Problem.INVALID_CONFIGURATION,
              "lambda target groups are checked by invoking the function; the protocol cannot be set");
        } else {
          protocol = p;
        }
      }
    }
    boolean http = protocol != Protocol.TCP;

    String port = kind == TargetGroupKind.GWLB ? "80" : TRAFFIC_PORT;
    if (in.port() != null) {
      if (kind == TargetGroupKind.ALB_LAMBDA) {
        // traffic-port is what these settings resolve to (toInput() gives it back), and means no port.
        if (!in.port().equals(TRAFFIC_PORT)) {
          problems.at("port").add("a health check port cannot be specified for target groups with target type 'lambda'");
        }
      } else if (!in.port().equals(TRAFFIC_PORT)) {
        try {
          int n = Integer.parseInt(in.port());
          if (problems.at("port").checkRange(n, 1, 65535)) {
            port = Integer.toString(n);
          }
        } catch (NumberFormatException e) {
          problems.at("port").add("'" + in.port() + "' is not a port (expected: traffic-port or 1-65535)");
        }
      }
    }

    String path = null;
    if (http) {
      path = grpc ? DEFAULT_GRPC_PATH : DEFAULT_PATH;
      if (in.path() != null) {
        String p = in.path();
        Problems pp = problems.at("path");
        if (p.isEmpty() || p.length() > MAX_PATH_LENGTH) {
          pp.add("the path must be 1-" + MAX_PATH_LENGTH + " characters long");
        } else if (!p.startsWith("/")) {
          pp.add("'" + p + "' must start with '/'");
        } else if (grpc && !p.matches("/[^/?#\\s]+/[^/?#\\s]+")) {
          pp.add("'" + p + "' is not a gRPC method path (expected: /package.service/method)");
        } else if (p.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
          pp.add("'" + p + "' contains whitespace or control characters");
        } else {
          path = p;
        }
      }
    } else if (in.path() != null) {
      problems.at("path").add(Problem.INVALID_CONFIGURATION, "a health check path cannot be set for TCP health checks");
    }

    int interval = switch (kind) {
      case ALB_LAMBDA -> 35;
      case GWLB -> 10;
      default -> 30;
    };
    if (in.intervalSeconds() != null && problems.at("interval-seconds").checkRange(in.intervalSeconds(), MIN_INTERVAL, MAX_INTERVAL)) {
      interval = in.intervalSeconds();
    }

    int timeout = switch (kind) {
      case ALB -> 5;
      case ALB_LAMBDA -> 30;
      case NLB -> protocol == Protocol.HTTP ? 6 : 10;
      case GWLB -> 5;
    };
    boolean timeoutGiven = false;
    if (in.timeoutSeconds() != null && problems.at("timeout-seconds").checkRange(in.timeoutSeconds(), MIN_TIMEOUT, MAX_TIMEOUT)) {
      timeout = in.timeoutSeconds();
      timeoutGiven = true;
    }
    if (alb && timeoutGiven && in.timeoutSeconds() != (protocol == Protocol.HTTP ? 6 : 10)) {
      problems.at("timeout-seconds").add(Problem.INVALID_CONFIGURATION, ALB_FIXED + "timeout ("
          + (protocol == Protocol.HTTP ? 6 : 10) + " s for " + protocol.wire() + " checks)");
    }
    boolean strict = kind == TargetGroupKind.ALB || kind == TargetGroupKind.ALB_LAMBDA;
    if (strict ? timeout >= interval : timeout > interval) {
      // Only blame the timeout when the user set one of the two; defaults never conflict.
      if (timeoutGiven || in.intervalSeconds() != null) {
        problems.at("timeout-seconds").add(Problem.INVALID_CONFIGURATION,
            "Health check timeout '" + timeout + "' must be smaller than " + (strict ? "" : "or equal to ")
                + "the interval '" + interval + "'");
      }
    }

    int healthy = 5;
    if (in.healthyThreshold() != null
        && problems.at("healthy-threshold-count").checkRange(in.healthyThreshold(), MIN_THRESHOLD, MAX_THRESHOLD)) {
      healthy = in.healthyThreshold();
    }
    int unhealthy = kind == TargetGroupKind.ALB_LAMBDA ? 5 : 2;
    if (in.unhealthyThreshold() != null
        && problems.at("unhealthy-threshold-count").checkRange(in.unhealthyThreshold(), MIN_THRESHOLD, MAX_THRESHOLD)) {
      if (alb && in.unhealthyThreshold() != unhealthy) {
        problems.at("unhealthy-threshold-count").add(Problem.INVALID_CONFIGURATION, ALB_FIXED + "unhealthy threshold ("
            + unhealthy + ")");
      }
      unhealthy = in.unhealthyThreshold();
    }

    CodeMatcher matcher = null;
    Problems mp = problems.at("matcher");
    if (grpc) {
      if (in.httpCode() != null) {
        mp.at("http-code").add(Problem.INVALID_CONFIGURATION,
            "target groups with protocol version GRPC use a grpc-code matcher, not http-code");
      }
      matcher = CodeMatcher.parse(in.grpcCode() == null ? DEFAULT_GRPC_CODE : in.grpcCode(), 0, 99, mp.at("grpc-code"));
    } else {
      if (in.grpcCode() != null) {
        mp.at("grpc-code").add(Problem.INVALID_CONFIGURATION,
            "a grpc-code matcher needs protocol version GRPC");
      }
      if (http) {
        int lo = 200;
        int hi = switch (kind) {
          case NLB -> 599;
          case GWLB -> 399;
          default -> 499;
        };
        String def = kind == TargetGroupKind.NLB || kind == TargetGroupKind.GWLB ? DEFAULT_NLB_HTTP_CODE : DEFAULT_HTTP_CODE;
        matcher = CodeMatcher.parse(in.httpCode() == null ? def : in.httpCode(), lo, hi, mp.at("http-code"));
        if (matcher != null && kind == TargetGroupKind.GWLB && !matcher.text().equals(DEFAULT_NLB_HTTP_CODE)) {
          mp.at("http-code").add("GENEVE target groups require the matcher 200-399");
        }
        if (matcher != null && alb && !matcher.text().equals(DEFAULT_NLB_HTTP_CODE)) {
          mp.at("http-code").add(Problem.INVALID_CONFIGURATION, ALB_FIXED + "success codes (" + DEFAULT_NLB_HTTP_CODE
              + ")");
        }
      } else if (in.httpCode() != null) {
        mp.at("http-code").add(Problem.INVALID_CONFIGURATION, "a matcher cannot be set for TCP health checks");
      }
    }

    if (problems.size() > before) {
      return null;
    }
    return new HealthCheck(enabled, protocol, port, path, interval, timeout, healthy, unhealthy, matcher, grpc);
  }
}
