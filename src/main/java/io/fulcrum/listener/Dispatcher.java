package io.fulcrum.listener;

import io.fulcrum.balancer.OptimizerChoice;
import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.TargetSelector;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.ClientCertHeaders;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.forward.ProxySettings;
import io.fulcrum.listener.HttpListeners.Binding;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.observe.GroupMeters;
import io.fulcrum.optimizer.ControlMessages;
import io.fulcrum.routing.ForwardRoute;
import io.fulcrum.sticky.Stickiness;
import io.fulcrum.sticky.StickyRequest;
import io.vertx.core.MultiMap;
import io.vertx.core.net.SocketAddress;
import java.time.Clock;
import java.util.Iterator;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * What every request path of one listener verticle shares once the rules have sent a request to a
 * forward action (Vert.x's, {@link RequestHandler}, and the direct paths, {@link DirectRequests}):
 * the choice of target group and target, the headers rewritten for the target, the bookkeeping of
 * a dispatched request, its access log line, and the checks of its head that every path makes the
 * same way. Called on the owning event loop only.
 */
final class Dispatcher {

  /** ALB's limit on one HTTP/2 header field, compressed (SPEC §7.3). */
  static final int MAX_HTTP2_FIELD = 8 * 1024;

  /** {@link #headerBytes}'s answer for an HTTP/2 header field over {@link #MAX_HTTP2_FIELD} as HPACK sends it. */
  static final long HTTP2_FIELD_TOO_LARGE = -2;

  /**
   * The size of the header block ({@code name: value\r\n} per header, plus 2 per header as ALB
   * counts), -1 when one header line is over {@link HttpListeners#MAX_HEADER_LINE}, or
   * {@link #HTTP2_FIELD_TOO_LARGE}. HTTP/1.x headers are read as they are stored, without making a
   * String of each name and value.
   */
  static long headerBytes(MultiMap headers, boolean http2) {
    long total = 0;
    Iterator<? extends Map.Entry<? extends CharSequence, ? extends CharSequence>> it =
        headers instanceof io.netty.handler.codec.http.HttpHeaders stored ? stored.iteratorCharSequence()
            : headers.iterator();
    while (it.hasNext()) {
      Map.Entry<? extends CharSequence, ? extends CharSequence> h = it.next();
      int line = h.getKey().length() + h.getValue().length() + 2;
      if (http2 && line - 2 > MAX_HTTP2_FIELD
          && HpackSize.field(h.getKey(), h.getValue()) > MAX_HTTP2_FIELD) {
        return HTTP2_FIELD_TOO_LARGE;
      }
      if (line > HttpListeners.MAX_HEADER_LINE) {
        return -1;
      }
      total += line + 2;
    }
    return total;
  }

  private final ListenerVerticle verticle;
  private final Stickiness stickiness;
  private final Clock clock;
  private final RandomGenerator random;

  Dispatcher(ListenerVerticle verticle, Stickiness stickiness, Clock clock, RandomGenerator random) {
    this.verticle = verticle;
    this.stickiness = stickiness;
    this.clock = clock;
    this.random = random;
  }

  /** The access log's {@code error_reason} for a target-group stickiness cookie that could not be read. */
  static final String AWSALBTG_COOKIE_INVALID = "AWSALBTGCookieInvalid";

  /** The choice of where a forward action sends a request with {@code headers}, at {@code now}. */
  Choice choice(ForwardRoute route, MultiMap headers, long now) {
    return new Choice(route, headers, now);
  }

  /**
   * Where a forward action sends one request (SPEC §5): the target group (by the group-stickiness
   * cookie of a weighted action that has one, else weighted at random), then the target (by the
   * group's stickiness cookie when it has one, else by its algorithm). The Cookie header is parsed
   * only for sticky actions and groups. Choosing the target is the only step with an effect (a
   * round robin moves on), so a caller may give up before it.
   */
  final class Choice {
    private final ForwardRoute route;
    private final MultiMap headers;
    private final long now;
    private StickyRequest sticky;
    private GroupRuntime group;
    private boolean unready;
    private Binding binding;

    Choice(ForwardRoute route, MultiMap headers, long now) {
      this.route = route;
      this.headers = headers;
      this.now = now;
    }

    /** The target group, or null when there is none to forward to. */
    GroupRuntime group() {
      String arn;
      if (route.stickiness() && route.weighted()) {
        sticky = stickiness.request(headers, now);
        arn = sticky.chooseGroup(route, random);
      } else {
        arn = route.choose(random);
      }
      group = arn == null ? null : verticle.group(arn);
      return group;
    }

    /**
     * The access log's {@code error_reason} from choosing the group: {@code AWSALBTGCookieInvalid}
     * when the request's target-group stickiness cookie could not be read (it was chosen by weight);
     * else null.
     */
    String groupError() {
      return sticky != null && sticky.groupCookieInvalid() ? AWSALBTG_COOKIE_INVALID : null;
    }

    /** Whether the group chooses targets by a stickiness cookie. */
    boolean stickyGroup() {
      TargetGroupPlan.Stickiness s = group.plan().stickiness();
      return s.lbCookie() || s.appCookie();
    }

    /**
     * The target in the group for a request arriving on {@code binding}'s node, or null when none
     * can take it. A sticky group's request that its cookie cannot send to a target counts as
     * non-sticky.
     */
    Upstream target(Binding binding) {
      this.binding = binding;
      String zone = binding.node.zone();
      TargetSelector selector = group.selector(zone);
      if (selector == null) {
        return null;
      }
      Upstream target = preferredTarget(binding, zone, selector);
      TargetGroupPlan plan = group.plan();
      if (plan.optimizer() == null || target == null) {
        return target;
      }
      target = OptimizerChoice.take(target, plan.scope(zone), plan.algorithm(), random);
      unready = target == null;
      return target;
    }

    /**
     * Whether {@link #target} found no target only because the target optimizer's agents had
     * granted no credit (SPEC §9: 503, counted as rejected).
     */
    boolean unready() {
      return unready;
    }

    private Upstream preferredTarget(Binding binding, String zone, TargetSelector selector) {
      if (stickyGroup()) {
        if (sticky == null) {
          sticky = stickiness.request(headers, now);
        }
        Upstream target = sticky.stickyTarget(group.plan(), group.plan().scope(zone), route.weighted());
        if (target != null) {
          return target;
        }
        target = selector.choose(now);
        if (target != null) {
          binding.meters.nonSticky();
        }
        return target;
      }
      return selector.choose(now);
    }

    /**
     * The request goes to {@code target}: stickiness cookies leave the request, and the returned
     * hook sets them on the response, and the headers the listener inserts (null when there is
     * neither).
     */
    HttpForwarder.ResponseHook chosen(Upstream target, MultiMap requestHeaders) {
      if (sticky == null) {
        return binding.listenerHeaders.after(null);
      }
      sticky.chosen(target);
      sticky.stripCookies(requestHeaders);
      return binding.listenerHeaders.after(sticky::addCookies);
    }
  }

  /**
   * What every forwarded request goes through once its target is chosen: its headers rewritten for
   * the target (SPEC §11.1-11.2), the target's outstanding count, and its entry among the
   * requests in flight, which the caller gives the exchange.
   */
  InFlight.Node dispatch(Binding binding, GroupRuntime group, Upstream target, NodeRequest facts,
      MultiMap headers, SocketAddress remote, ClientConnection client, long headerBytes, long now, boolean grpc,
      AccessEntry entry) {
    ForwardHeaders.Values values = forwardHeaders(binding, facts, headers, remote, client, headerBytes, now);
    values.setOn(headers);
    creditHeader(group, target, headers);
    return dispatched(binding, group, target, facts, grpc, entry, values);
  }

  /**
   * The request's headers rewritten for the target (SPEC §11.1-11.2), but for those the load
   * balancer sets, which are returned (see {@link ForwardHeaders#rewrite}).
   */
  ForwardHeaders.Values forwardHeaders(Binding binding, NodeRequest facts, MultiMap headers,
      SocketAddress remote, ClientConnection client, long headerBytes, long now) {
    ListenerPlan plan = binding.plan;
    ProxySettings proxy = plan.proxy();
    String host = ForwardHeaders.targetHost(facts.targetHostHeader(), plan.port(), proxy);
    boolean xffPort = proxy.xffClientPort();
    String forwardedFor = client != null ? client.forwardedFor(remote, xffPort) : ForwardHeaders.forwardedFor(remote, xffPort);
    ForwardHeaders.Tls tls = proxy.tlsHeaders() && plan.tls() != null && client != null ? client.tls() : null;
    if (tls != null) {
      tls = tls.named(plan.tlsNames());
    }
    ClientCertHeaders clientCert = plan.clientCertNames() == null ? null
        : client != null ? client.clientCert(plan.mutualTls(), plan.clientCertNames())
        : ClientCertHeaders.of(null, plan.mutualTls(), plan.clientCertNames());
    ForwardHeaders.Values values = ForwardHeaders.rewrite(headers, proxy, host, forwardedFor,
        plan.tls() == null ? "http" : "https", binding.portText, tls, clientCert, headerBytes, now / 1000, random);
    if (values.droppedInvalid()) {
      binding.meters.droppedInvalidHeader();
    }
    if (values.forwardedInvalid()) {
      binding.meters.forwardedInvalidHeader();
    }
    return values;
  }

  /**
   * For a target optimizer group, names in the request the channel whose credit it spends, for the
   * agent (a value the client sent is not kept); nothing for other groups.
   */
  static void creditHeader(GroupRuntime group, Upstream target, MultiMap headers) {
    if (group.plan().optimizer() != null) {
      String channel = target.creditChannel();
      if (channel != null) {
        headers.set(ControlMessages.CREDIT_HEADER, channel);
      } else {
        headers.remove(ControlMessages.CREDIT_HEADER);
      }
    }
  }

  /**
   * The target has the request: its outstanding count, the request's entry among those in flight,
   * and the request counted.
   */
  InFlight.Node dispatched(Binding binding, GroupRuntime group, Upstream target, NodeRequest facts,
      boolean grpc, AccessEntry entry, ForwardHeaders.Values forwarded) {
    target.dispatched();
    InFlight.Node node =
        verticle.inFlight().add(group.plan().arn(), target, binding.plan.lbName(), facts.method(), facts.uri(), false);
    node.meters = counted(binding, group, grpc);
    node.sentAt = System.nanoTime();
    if (group.plan().optimizer() != null) {
      binding.meters.targetControlRequest();
      node.creditEpoch = target.creditEpoch();
    }
    if (entry != null) {
      entry.traceId = forwarded.traceId().toString();
      node.entry = entry;
    }
    return node;
  }

  /**
   * Counts a request for which a target of {@code group} was chosen ({@code RequestCount}), in its
   * load balancer's zone; returns where the rest of its exchange is counted.
   */
  static GroupMeters counted(Binding binding, GroupRuntime group, boolean grpc) {
    GroupMeters meters = binding.meters.group(group.plan().arn());
    Scope scope = group.plan().scope(binding.node.zone());
    meters.request(grpc, scope != null && scope.unhealthyRouting());
    return meters;
  }

  /** A new access log line for a request on {@code binding} from {@code client}. */
  AccessEntry entry(Binding binding, ClientConnection client, String type, SocketAddress remote, String method,
      String host, String uri, String version, String userAgent) {
    boolean tls = binding.plan.tls() != null;
    return new AccessEntry(binding.log, client, clock.millis(), client == null ? "-" : client.traceId(random), type,
        remote, AccessEntry.request(method, tls, host, binding.plan.port(), uri, version), userAgent,
        tls && client != null ? client.tls() : null, client == null ? null : client.serverName(),
        tls && client != null ? client.chosenCertificate(binding.certificates) : null);
  }
  /**
   * The request protocol against the target group's protocol version (SPEC §7.1): HTTP1 groups take
   * HTTP/1.x and HTTP/2 but not gRPC; HTTP2 groups take HTTP/2 (gRPC included); GRPC groups take
   * gRPC, and other HTTP/2 requests only when they are POSTs. Anything else is 464.
   */
  static boolean compatible(boolean http2, boolean grpc, boolean post, ProtocolVersion version) {
    return switch (version) {
      case HTTP1 -> !grpc;
      case HTTP2 -> http2;
      case GRPC -> grpc || http2 && post;
    };
  }
}
