package io.fulcrum.listener;

import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.TargetSelector;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.DirectExchange;
import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.ElbResponses;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.forward.Grpc;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.forward.LaneExchange;
import io.fulcrum.forward.ProxySettings;
import io.fulcrum.forward.RelayExchange;
import io.fulcrum.forward.StreamExchange;
import io.fulcrum.forward.TraceIds;
import io.fulcrum.forward.Upgrades;
import io.fulcrum.listener.ListenerVerticle.Binding;
import io.fulcrum.listener.ListenerVerticle.GroupRuntime;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.observe.GroupMeters;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.routing.FixedRoute;
import io.fulcrum.routing.ForwardRoute;
import io.fulcrum.routing.RedirectRoute;
import io.fulcrum.routing.RouteAction;
import io.fulcrum.sticky.Stickiness;
import io.fulcrum.sticky.StickyRequest;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.SocketAddress;
import java.time.Clock;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The HTTP/1.x request path of one listener verticle: checks the request as ALB does, matches
 * the rules, and answers, redirects or forwards. Called on the owning event loop only.
 */
final class RequestHandler {

  private static final CharSequence SERVER = HttpHeaders.createOptimized(ElbResponses.SERVER);
  private static final CharSequence SERVER_NAME = HttpHeaders.createOptimized("Server");
  private static final CharSequence CONTENT_TYPE_NAME = HttpHeaders.createOptimized("Content-Type");
  private static final CharSequence LOCATION_NAME = HttpHeaders.createOptimized("Location");
  private static final CharSequence CONNECTION_NAME = HttpHeaders.createOptimized("Connection");

  /** ALB's limit on one HTTP/2 header field, compressed (SPEC §7.3). */
  static final int MAX_HTTP2_FIELD = 8 * 1024;

  private final ListenerVerticle verticle;
  private final HttpForwarder forwarder;
  private final DirectForwarder direct;
  private final Stickiness stickiness;
  private final Clock clock;
  private final RandomGenerator random;
  private final FunctionForwarder functions;

  RequestHandler(ListenerVerticle verticle, HttpForwarder forwarder, DirectForwarder direct, Stickiness stickiness,
      Clock clock, RandomGenerator random) {
    this.verticle = verticle;
    this.forwarder = forwarder;
    this.direct = direct;
    this.stickiness = stickiness;
    this.clock = clock;
    this.random = random;
    this.functions = new FunctionForwarder(verticle, random);
  }

  void handle(Binding binding, HttpServerRequest req) {
    ClientConnection client = verticle.client(req.connection());
    handle(binding, req, client);
  }

  private void handle(Binding binding, HttpServerRequest req, ClientConnection client) {
    if (client != null && client.refusesRequests()) {
      // Pipelined behind a request answered with Connection: close (an unsupported Transfer-Encoding, a
      // head too large): its bytes may be the earlier request's body, so it is never served. The same
      // behind an Ambiguous request (desync mitigation). The close waits for the earlier answer's write,
      // which an asynchronous transport (io_uring) completes later.
      req.connection().close();
      return;
    }
    if (client != null) {
      client.requestStarted(req.version() == HttpVersion.HTTP_2);
      req.response().endHandler(client);
      if (req.version() != HttpVersion.HTTP_2) {
        client.vertxResponse(req.response());
      }
    }
    ListenerPlan plan = binding.plan;
    MultiMap headers = req.headers();
    AccessEntry entry = binding.log == null ? null : entry(binding, req, client);

    LoadBalancerMeters meters = binding.meters;
    if (req.method() == HttpMethod.TRACE) {
      answer(meters, entry, req, ElbError.METHOD_NOT_ALLOWED);
      return;
    }
    boolean chunked = false;
    String te = headers.get(HttpHeaders.TRANSFER_ENCODING);
    if (te != null) {
      String t = te.trim().toLowerCase(Locale.ROOT);
      if (t.equals("chunked")) {
        chunked = true;
      } else {
        // Only chunked is accepted; anything else would leave the body's end unknown. (Netty's decoder
        // already refuses codings that do not end in chunked, identity included: see invalidStatus.)
        answerAndClose(meters, entry, req, client, ElbError.UNSUPPORTED_TRANSFER_ENCODING);
        return;
      }
    }
    boolean http2 = req.version() == HttpVersion.HTTP_2;
    if (http2 && req.uri().length() > MAX_HTTP2_FIELD && HpackSize.field(":path", req.uri()) > MAX_HTTP2_FIELD) {
      req.connection().close();
      return;
    }
    long headerBytes = headerBytes(headers, http2);
    if (headerBytes == HTTP2_FIELD_TOO_LARGE) {
      // ALB sends GOAWAY and closes the connection when a header passes 8 KB compressed (SPEC §7.3);
      // the request never reaches a target.
      req.connection().close();
      return;
    }
    if (headerBytes < 0) {
      answerAndClose(meters, entry, req, client, ElbError.HEADER_TOO_LARGE);
      return;
    }
    if (entry != null && http2) {
      entry.received = headerBytes;
      entry.sent = 0;
    }
    if (ForwardHeaders.xffAddressCount(headers) > ForwardHeaders.MAX_XFF_ADDRESSES) {
      answer(meters, entry, req, ElbError.XFF_TOO_LONG);
      return;
    }
    boolean last = false;
    if (!http2) {
      Desync.Mode mode = Desync.Mode.of(plan.proxy().desyncMode());
      Desync.Verdict verdict = Desync.verdict(mode, req.method().name(), req.uri(), headers);
      Desync.Tier tier = verdict.tier();
      if (tier != Desync.Tier.COMPLIANT) {
        meters.desyncNonCompliant();
        if (entry != null) {
          entry.classified(verdict);
        }
      }
      Desync.Action desync = Desync.action(mode, tier);
      if (desync == Desync.Action.BLOCK) {
        answerAndClose(meters, entry, req, client, ElbError.BAD_REQUEST);
        return;
      }
      if (desync == Desync.Action.FORWARD_THEN_CLOSE) {
        // Served, then the client connection closes, and the target connection with it.
        last = true;
        if (client != null) {
          client.lastRequest();
        }
        req.response().headers().set(CONNECTION_NAME, HttpHeaders.CLOSE);
      }
    }

    NodeRequest facts = new NodeRequest(req);
    RouteAction action = plan.routes().match(facts);
    if (entry != null) {
      entry.routed(action);
    }
    if (action instanceof ForwardRoute f) {
      forward(binding, plan, req, facts, f, chunked, headerBytes, client, last, entry);
    } else if (action instanceof FixedRoute f) {
      meters.fixedResponse(f.statusCode());
      fixed(req, f);
      if (entry != null) {
        entry.answered(f.statusCode());
      }
    } else if (action instanceof RedirectRoute r) {
      meters.redirect(r.statusCode());
      String location = redirect(req, plan, facts, r);
      if (entry != null) {
        entry.redirectUrl = location;
        entry.answered(r.statusCode());
      }
    }
  }

  /**
   * @param closeTarget the target connection is closed after the exchange (desync mitigation)
   * @param entry       the request's access log line, or null
   */
  private void forward(Binding binding, ListenerPlan plan, HttpServerRequest req, NodeRequest facts, ForwardRoute route,
      boolean chunked, long headerBytes, ClientConnection client, boolean closeTarget, AccessEntry entry) {
    long now = clock.millis();
    Choice choice = new Choice(route, req.headers(), now);
    GroupRuntime group = choice.group();
    if (group == null) {
      answer(binding.meters, entry, req, ElbError.NO_TARGET_GROUP);
      return;
    }
    if (entry != null) {
      entry.groupArn = group.plan().arn();
    }
    ProtocolVersion version = group.plan().protocolVersion();
    boolean grpc = Grpc.isGrpc(req);
    if (!compatible(req, grpc, version)) {
      answer(binding.meters, entry, req, ElbError.PROTOCOL_MISMATCH);
      return;
    }
    Upstream target = choice.target(binding);
    if (target == null) {
      answer(binding.meters, entry, req, verticle.noTarget(group));
      return;
    }
    HttpForwarder.ResponseHook hook = choice.chosen(target, req.headers());
    if (group.plan().lambda() != null) {
      functions.forward(req, facts, plan, group.plan(), target, headerBytes, now, hook, counted(binding, group, false),
          entry);
      return;
    }
    ProxySettings proxy = plan.proxy();
    String upgrade = Upgrades.webSocket(req); // read before the hop-by-hop headers leave
    if (upgrade != null && entry != null) {
      entry.type = plan.tls() == null ? "ws" : "wss";
    }
    InFlight.Node node = dispatch(binding, group, target, facts, req.headers(), req.remoteAddress(), client, headerBytes,
        now, grpc, entry);
    if (upgrade != null) {
      HttpConnection connection = req.connection();
      node.exchange = forwarder.tunnel(req, facts.originForm(), upgrade, target, group.protocol(), proxy, node, hook,
          new HttpForwarder.TunnelListener() {
            @Override
            public void opened() {
              if (client != null) {
                client.tunnelOpened();
              }
            }

            @Override
            public void closed() {
              verticle.clientClosed(connection);
            }
          });
      return;
    }
    node.exchange = forwarder.forward(req, facts.originForm(), chunked, target, group.protocol(), proxy, node, hook);
    if (closeTarget) {
      node.exchange.closeTargetAfter();
    }
    if (grpc) {
      long deadline = Grpc.timeoutMillis(req.headers().get("grpc-timeout"));
      if (deadline > 0) {
        node.deadline(verticle.vertx(), deadline);
      }
    }
  }

  /**
   * Where a forward action sends one request (SPEC §5): the target group (by the group-stickiness
   * cookie of a weighted action that has one, else weighted at random), then the target (by the
   * group's stickiness cookie when it has one, else by its algorithm). The Cookie header is parsed
   * only for sticky actions and groups. Choosing the target is the only step with an effect (a
   * round robin moves on), so a caller may give up before it.
   */
  private final class Choice {
    private final ForwardRoute route;
    private final MultiMap headers;
    private final long now;
    private StickyRequest sticky;
    private GroupRuntime group;

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
      String zone = binding.node.zone();
      TargetSelector selector = group.selector(zone);
      if (selector == null) {
        return null;
      }
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
     * hook (null without stickiness) sets them on the response.
     */
    HttpForwarder.ResponseHook chosen(Upstream target, MultiMap requestHeaders) {
      if (sticky == null) {
        return null;
      }
      sticky.chosen(target);
      sticky.stripCookies(requestHeaders);
      return sticky::addCookies;
    }
  }

  /**
   * What every forwarded request goes through once its target is chosen: its headers rewritten for
   * the target (SPEC §11.1-11.2), the target's outstanding count, and its entry among the
   * requests in flight, which the caller gives the exchange.
   */
  private InFlight.Node dispatch(Binding binding, GroupRuntime group, Upstream target, NodeRequest facts,
      MultiMap headers, SocketAddress remote, ClientConnection client, long headerBytes, long now, boolean grpc,
      AccessEntry entry) {
    ForwardHeaders.Values values = forwardHeaders(binding, facts, headers, remote, client, headerBytes, now);
    values.setOn(headers);
    return dispatched(binding, group, target, facts, grpc, entry, values);
  }

  /**
   * The request's headers rewritten for the target (SPEC §11.1-11.2), but for those the load
   * balancer sets, which are returned (see {@link ForwardHeaders#rewrite}).
   */
  private ForwardHeaders.Values forwardHeaders(Binding binding, NodeRequest facts, MultiMap headers,
      SocketAddress remote, ClientConnection client, long headerBytes, long now) {
    ListenerPlan plan = binding.plan;
    ProxySettings proxy = plan.proxy();
    String host = ForwardHeaders.targetHost(facts.hostHeader(), plan.port(), proxy);
    boolean xffPort = proxy.xffClientPort();
    String forwardedFor = client != null ? client.forwardedFor(remote, xffPort) : ForwardHeaders.forwardedFor(remote, xffPort);
    ForwardHeaders.Tls tls = proxy.tlsHeaders() && plan.tls() != null && client != null ? client.tls() : null;
    ForwardHeaders.Values values = ForwardHeaders.rewrite(headers, proxy, host, forwardedFor,
        plan.tls() == null ? "http" : "https", binding.portText, tls, headerBytes, now / 1000, random);
    if (values.droppedInvalid()) {
      binding.meters.droppedInvalidHeader();
    }
    return values;
  }

  /**
   * The target has the request: its outstanding count, the request's entry among those in flight,
   * and the request counted.
   */
  private InFlight.Node dispatched(Binding binding, GroupRuntime group, Upstream target, NodeRequest facts,
      boolean grpc, AccessEntry entry, ForwardHeaders.Values forwarded) {
    target.dispatched();
    InFlight.Node node =
        verticle.inFlight().add(group.plan().arn(), target, binding.plan.lbName(), facts.method(), facts.uri(), false);
    node.meters = counted(binding, group, grpc);
    node.sentAt = System.nanoTime();
    if (entry != null) {
      entry.traceId = forwarded.traceId();
      node.entry = entry;
    }
    return node;
  }

  /**
   * Counts a request for which a target of {@code group} was chosen ({@code RequestCount}), in its
   * load balancer's zone; returns where the rest of its exchange is counted.
   */
  private static GroupMeters counted(Binding binding, GroupRuntime group, boolean grpc) {
    GroupMeters meters = binding.meters.group(group.plan().arn());
    Scope scope = group.plan().scope(binding.node.zone());
    meters.request(grpc, scope != null && scope.unhealthyRouting());
    return meters;
  }

  /** The load balancer answers {@code error} itself; the connection stays open. */
  private static void answer(LoadBalancerMeters meters, AccessEntry entry, HttpServerRequest req, ElbError error) {
    meters.elbStatus(error.status());
    ElbResponses.send(req, error, false);
    if (entry != null) {
      entry.answered(error.status());
    }
  }

  /**
   * A new access log line for a request Vert.x's server parsed, from what it says of itself; its
   * bytes over HTTP/2 are those of its body and the response's, to which the caller adds its headers'.
   */
  private AccessEntry entry(Binding binding, HttpServerRequest req, ClientConnection client) {
    boolean http2 = req.version() == HttpVersion.HTTP_2;
    String version = switch (req.version()) {
      case HTTP_1_0 -> "HTTP/1.0";
      case HTTP_1_1 -> "HTTP/1.1";
      case HTTP_2 -> "HTTP/2.0";
    };
    HostAndPort authority = req.authority();
    String type = http2 ? Grpc.isGrpc(req) ? "grpcs" : "h2" : binding.plan.tls() == null ? "http" : "https";
    AccessEntry e = entry(binding, client, type, req.remoteAddress(), req.method().name(),
        authority == null ? null : authority.host(), req.uri(), version, req.headers().get(HttpHeaders.USER_AGENT));
    e.traceId = req.headers().get(TraceIds.HEADER);
    if (http2) {
      e.http2 = req;
    }
    return e;
  }

  private AccessEntry entry(Binding binding, ClientConnection client, String type, SocketAddress remote, String method,
      String host, String uri, String version, String userAgent) {
    boolean tls = binding.plan.tls() != null;
    return new AccessEntry(binding.log, client, clock.millis(), client == null ? "-" : client.traceId(random), type,
        remote, AccessEntry.request(method, tls, host, binding.plan.port(), uri, version), userAgent,
        tls && client != null ? client.tls() : null, client == null ? null : client.serverName());
  }

  /**
   * The direct path (see {@link FastLane}): forwards an HTTP/1.1 request that Netty has parsed,
   * before Vert.x sees it, when it is the common case: a request that passes every check of
   * {@link #handle}, routed to an HTTP/1.1 target group (HTTP or HTTPS, stickiness included), on a keep-alive
   * connection. Returns the exchange, or null (nothing done, no target chosen) when the request is
   * to take the usual path, which then answers it whatever it is: an ELB error, a fixed response,
   * a redirect, a Lambda call, an HTTP/2 or gRPC target group, HEAD, Expect, Upgrade or a
   * connection the client closes after it.
   */
  DirectExchange direct(Binding binding, DirectExchange.Client lane, HttpRequest req, ClientConnection client,
      SocketAddress remote) {
    io.netty.handler.codec.http.HttpMethod method = req.method();
    if (method == io.netty.handler.codec.http.HttpMethod.HEAD || method == io.netty.handler.codec.http.HttpMethod.TRACE
        || method == io.netty.handler.codec.http.HttpMethod.CONNECT
        || req.protocolVersion() != io.netty.handler.codec.http.HttpVersion.HTTP_1_1
        || req.decoderResult().isFailure() || !(req.headers() instanceof MultiMap headers)
        || !HttpUtil.isKeepAlive(req) || headers.contains(HttpHeaders.EXPECT) || headers.contains(HttpHeaders.UPGRADE)) {
      return null;
    }
    String te = headers.get(HttpHeaders.TRANSFER_ENCODING);
    if (te != null && !te.trim().equalsIgnoreCase("chunked")) {
      return null;
    }
    long headerBytes = headerBytes(headers, false);
    if (headerBytes < 0 || ForwardHeaders.xffAddressCount(headers) > ForwardHeaders.MAX_XFF_ADDRESSES
        || client != null && client.refusesRequests()) {
      return null; // the usual path answers it
    }
    Desync.Mode mode = Desync.Mode.of(binding.plan.proxy().desyncMode());
    Desync.Verdict verdict = Desync.verdict(mode, method.name(), req.uri(), headers);
    Desync.Tier tier = verdict.tier();
    if (Desync.action(mode, tier) != Desync.Action.FORWARD) {
      return null; // the usual path blocks it, or serves it and closes
    }
    NodeRequest facts = new NodeRequest(method.name(), req.uri(), headers, remote);
    if (!(binding.plan.routes().match(facts) instanceof ForwardRoute route)) {
      return null;
    }
    long now = clock.millis();
    Choice choice = new Choice(route, headers, now);
    GroupRuntime group = choice.group();
    if (group == null || group.protocol().http2() || group.plan().lambda() != null) {
      return null;
    }
    Upstream target = choice.target(binding);
    if (target == null) {
      return null;
    }
    if (tier != Desync.Tier.COMPLIANT) {
      binding.meters.desyncNonCompliant();
    }
    HttpForwarder.ResponseHook hook = choice.chosen(target, headers);
    // The headers the load balancer sets are written after the others as the request goes out, not set in the map.
    ForwardHeaders.Values forwarded = forwardHeaders(binding, facts, headers, remote, client, headerBytes, now);
    AccessEntry entry = null;
    if (binding.log != null) {
      entry = entry(binding, client, binding.plan.tls() == null ? "http" : "https", remote, method.name(), facts.host(),
          req.uri(), "HTTP/1.1", headers.get(HttpHeaders.USER_AGENT));
      entry.routed(route);
      if (tier != Desync.Tier.COMPLIANT) {
        entry.classified(verdict);
      }
    }
    InFlight.Node node = dispatched(binding, group, target, facts, false, entry, forwarded);
    req.setUri(facts.originForm());
    if (client != null) {
      client.requestStarted(false);
    }
    DirectExchange ex = direct.forward(lane, req, forwarded, te != null, target, group.protocol().tls(),
        binding.plan.proxy(), node, hook);
    node.exchange = ex;
    return ex;
  }

  /**
   * The direct path for HTTP/2 (see {@link StreamLane}): forwards a new stream whose HEADERS frame
   * Netty has decoded, before Vert.x sees it, when it is the common case: a request that passes
   * every check of {@link #handle}, routed to an HTTP/1.1 target group (HTTP or HTTPS) that takes
   * it (not gRPC), or to an HTTP2 or GRPC target group that takes it (gRPC's deadline
   * included); stickiness included. Returns the exchange, or null (nothing done, {@code h2}
   * untouched, no target chosen) when the stream is to take the usual path, which then answers it
   * whatever it is.
   *
   * @param endStream whether the HEADERS frame ended the stream (no body follows)
   */
  LaneExchange directStream(Binding binding, LaneExchange.Client lane, Http2Stream stream, Http2Headers h2,
      boolean endStream, ClientConnection client, SocketAddress remote) {
    CharSequence methodName = h2.method();
    CharSequence path = h2.path();
    CharSequence authorityValue = h2.authority();
    if (methodName == null || path == null || h2.scheme() == null || authorityValue == null || path.length() == 0
        || path.charAt(0) != '/' || path.length() > MAX_HTTP2_FIELD) {
      return null; // malformed (Vert.x resets the stream), or a check of handle()'s
    }
    io.netty.handler.codec.http.HttpMethod method =
        io.netty.handler.codec.http.HttpMethod.valueOf(methodName.toString());
    if (method == io.netty.handler.codec.http.HttpMethod.TRACE
        || method == io.netty.handler.codec.http.HttpMethod.CONNECT) {
      return null;
    }
    HostAndPort authority = HostAndPort.parseAuthority(authorityValue.toString(), -1);
    if (authority == null) {
      return null;
    }
    HeadersMultiMap headers = HeadersMultiMap.httpHeaders();
    String cookie = null;
    boolean grpc = false;
    try {
      for (Map.Entry<CharSequence, CharSequence> h : h2) {
        CharSequence name = h.getKey();
        if (name.length() > 0 && name.charAt(0) == ':') {
          continue;
        }
        if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaders.HOST)
            || AsciiString.contentEqualsIgnoreCase(name, HttpHeaders.EXPECT)) {
          return null; // Host beside :authority must agree with it; Expect is answered
        }
        if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaders.CONTENT_TYPE)) {
          grpc = Grpc.isGrpc(h.getValue());
        }
        if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaders.COOKIE)) {
          // HTTP/2 may split Cookie into several fields; HTTP/1.1 has one (RFC 9113 §8.2.3).
          cookie = cookie == null ? h.getValue().toString() : cookie + "; " + h.getValue();
          continue;
        }
        headers.add(name, h.getValue());
      }
      if (cookie != null) {
        headers.add(HttpHeaders.COOKIE, cookie);
      }
    } catch (IllegalArgumentException invalid) {
      return null; // a value HTTP/1.1 cannot carry: the usual path deals with it
    }
    long headerBytes = headerBytes(headers, true);
    if (headerBytes < 0 || ForwardHeaders.xffAddressCount(headers) > ForwardHeaders.MAX_XFF_ADDRESSES) {
      return null;
    }
    NodeRequest facts = new NodeRequest(method.name(), path.toString(), headers, remote, authority);
    if (!(binding.plan.routes().match(facts) instanceof ForwardRoute route)) {
      return null;
    }
    long now = clock.millis();
    Choice choice = new Choice(route, headers, now);
    GroupRuntime group = choice.group();
    if (group == null || group.plan().lambda() != null) {
      return null;
    }
    boolean toHttp2 = group.protocol().http2();
    boolean post = method == io.netty.handler.codec.http.HttpMethod.POST;
    if (!compatible(true, grpc, post, group.plan().protocolVersion())) {
      return null; // 464
    }
    Upstream target = choice.target(binding);
    if (target == null) {
      return null;
    }
    HttpForwarder.ResponseHook hook = choice.chosen(target, headers);
    ForwardHeaders.Values forwarded = forwardHeaders(binding, facts, headers, remote, client, headerBytes, now);
    AccessEntry entry = null;
    if (binding.log != null) {
      entry = entry(binding, client, grpc ? "grpcs" : "h2", remote, method.name(), authority.host(), facts.uri(),
          "HTTP/2.0", headers.get(HttpHeaders.USER_AGENT));
      entry.routed(route);
      entry.received = headerBytes;
      entry.sent = 0;
    }
    InFlight.Node node = dispatched(binding, group, target, facts, grpc, entry, forwarded);
    if (client != null) {
      client.requestStarted(true);
    }
    if (toHttp2) {
      forwarded.setOn(headers);
      Http2Headers out = RelayExchange.requestHeaders(methodName, facts.originForm(), headers, grpc);
      RelayExchange relay = direct.relay(lane, stream, out, endStream, grpc, target, group.protocol().tls(),
          binding.plan.proxy(), node, hook);
      node.exchange = relay;
      if (grpc) {
        long deadline = Grpc.timeoutMillis(headers.get("grpc-timeout"));
        if (deadline > 0) {
          node.deadline(verticle.vertx(), deadline);
        }
      }
      return relay;
    }
    var head = new DefaultHttpRequest(io.netty.handler.codec.http.HttpVersion.HTTP_1_1, method, facts.originForm(),
        headers);
    // To an HTTP/1.1 target, the headers the load balancer sets are written after the others as the request goes out.
    StreamExchange ex = direct.forward(lane, stream, head, forwarded, !endStream, target, group.protocol().tls(),
        binding.plan.proxy(), node, hook);
    node.exchange = ex;
    return ex;
  }

  /** {@link #headerBytes}'s answer for an HTTP/2 header field over {@link #MAX_HTTP2_FIELD} as HPACK sends it. */
  static final long HTTP2_FIELD_TOO_LARGE = -2;

  /**
   * The size of the header block ({@code name: value\r\n} per header, plus 2 per header as ALB
   * counts), -1 when one header line is over {@link ListenerVerticle#MAX_HEADER_LINE}, or
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
      if (line > ListenerVerticle.MAX_HEADER_LINE) {
        return -1;
      }
      total += line + 2;
    }
    return total;
  }

  /**
   * The request protocol against the target group's protocol version (SPEC §7.1): HTTP1 groups take
   * HTTP/1.x and HTTP/2 but not gRPC; HTTP2 groups take HTTP/2 (gRPC included); GRPC groups take
   * gRPC, and other HTTP/2 requests only when they are POSTs. Anything else is 464.
   */
  static boolean compatible(HttpServerRequest req, boolean grpc, ProtocolVersion version) {
    return compatible(req.version() == HttpVersion.HTTP_2, grpc, req.method() == HttpMethod.POST, version);
  }

  static boolean compatible(boolean http2, boolean grpc, boolean post, ProtocolVersion version) {
    return switch (version) {
      case HTTP1 -> !grpc;
      case HTTP2 -> http2;
      case GRPC -> grpc || http2 && post;
    };
  }

  private static void fixed(HttpServerRequest req, FixedRoute f) {
    HttpServerResponse response = req.response();
    response.setStatusCode(f.statusCode());
    response.headers().set(SERVER_NAME, SERVER).set(CONTENT_TYPE_NAME, f.contentType());
    end(req, response, f.body());
  }

  /** Answers with the redirect; returns its location. */
  private static String redirect(HttpServerRequest req, ListenerPlan plan, NodeRequest facts, RedirectRoute r) {
    String host = facts.host();
    String location = r.location(plan.protocol().wire(), host == null ? "" : host.toLowerCase(Locale.ROOT), plan.port(),
        facts.path(), req.query());
    HttpServerResponse response = req.response();
    String phrase = r.statusCode() == 301 ? "Moved Permanently" : "Found";
    response.setStatusCode(r.statusCode()).setStatusMessage(phrase);
    response.headers().set(SERVER_NAME, SERVER).set(LOCATION_NAME, location).set(CONTENT_TYPE_NAME, "text/html");
    end(req, response, Buffer.buffer(ElbResponses.page(r.statusCode() + " " + phrase)));
    return location;
  }

  private static void end(HttpServerRequest req, HttpServerResponse response, Buffer body) {
    // Any request body is read and discarded; the connection stays usable.
    if (req.method() == HttpMethod.HEAD) {
      response.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.length())).end();
    } else {
      response.end(body.copy());
    }
  }

  /** A request Vert.x's decoder could not read: the ELB status, and the connection closes. */
  void invalid(Binding binding, HttpServerRequest req) {
    ClientConnection client = verticle.client(req.connection());
    answerAndClose(binding.meters, binding.log == null ? null : entry(binding, req, client), req, client,
        invalidStatus(req));
  }

  /**
   * Answers with the ELB page and, over HTTP/1.x, closes the connection: nothing after this request
   * on it is served (HTTP/2 answers the stream only).
   */
  private static void answerAndClose(LoadBalancerMeters meters, AccessEntry entry, HttpServerRequest req,
      ClientConnection client, ElbError error) {
    meters.elbStatus(error.status());
    if (client != null && req.version() != HttpVersion.HTTP_2) {
      client.closeAfterResponse();
    }
    ElbResponses.send(req, error, true);
    if (entry != null) {
      entry.answered(error.status());
    }
  }

  /** Whether the request has a Transfer-Encoding other than a lone {@code chunked}. */
  private static boolean unsupportedCoding(HttpServerRequest req) {
    List<String> codings = req.headers().getAll(HttpHeaders.TRANSFER_ENCODING);
    return !codings.isEmpty() && !(codings.size() == 1 && codings.get(0).trim().equalsIgnoreCase("chunked"));
  }

  /**
   * The status for a request the HTTP decoder rejected: 400, 505 for an unexpected version, 501 for
   * a transfer coding it refused.
   */
  ElbError invalidStatus(HttpServerRequest req) {
    Throwable cause = req.decoderResult() == null ? null : req.decoderResult().cause();
    if (cause instanceof TooLongFrameException) {
      return ElbError.HEADER_TOO_LARGE;
    }
    if (cause != null && cause.getMessage() != null && cause.getMessage().toLowerCase(Locale.ROOT).contains("version")) {
      return ElbError.VERSION_NOT_SUPPORTED;
    }
    if (cause instanceof IllegalArgumentException && req.version() == HttpVersion.HTTP_1_1 && unsupportedCoding(req)) {
      // Netty's decoder refuses an HTTP/1.1 request whose last transfer coding is not chunked (RFC 9112
      // §6.3, a 400 there); ALB answers 501 for a Transfer-Encoding it does not support.
      return ElbError.UNSUPPORTED_TRANSFER_ENCODING;
    }
    return ElbError.BAD_REQUEST;
  }
}
