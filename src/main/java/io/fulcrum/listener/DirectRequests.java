package io.fulcrum.listener;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.DirectExchange;
import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.forward.Grpc;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.forward.LaneExchange;
import io.fulcrum.forward.RelayExchange;
import io.fulcrum.forward.StreamExchange;
import io.fulcrum.jwt.JwkSet;
import io.fulcrum.jwt.TokenCheck;
import io.fulcrum.listener.HttpListeners.Binding;
import io.fulcrum.routing.ForwardRoute;
import io.fulcrum.routing.JwtRoute;
import io.fulcrum.routing.OidcRoute;
import io.fulcrum.routing.RouteAction;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.SocketAddress;
import java.time.Clock;
import java.util.Map;

/**
 * The direct paths of one listener verticle: requests that Netty has decoded are forwarded before
 * Vert.x sees them ({@link FastLane} for HTTP/1.1, {@link StreamLane} for HTTP/2) when they are
 * the common case (a rule's jwt-validation action included, for a valid token, and its
 * authenticate-oidc action, for a live session); anything else is left
 * to {@link RequestHandler}, which answers it whatever it is. Both paths make the same checks as that
 * one and share its {@link Dispatcher}. Called on the owning event loop only.
 */
final class DirectRequests {

  private final ListenerVerticle verticle;
  private final DirectForwarder direct;
  private final Dispatcher dispatcher;
  private final Authenticator authenticator;
  private final Clock clock;

  DirectRequests(ListenerVerticle verticle, DirectForwarder direct, Dispatcher dispatcher, Authenticator authenticator,
      Clock clock) {
    this.verticle = verticle;
    this.direct = direct;
    this.dispatcher = dispatcher;
    this.authenticator = authenticator;
    this.clock = clock;
  }

  /**
   * The direct path (see {@link FastLane}): forwards an HTTP/1.1 request that Netty has parsed,
   * before Vert.x sees it, when it is the common case: a request that passes every check of
   * {@link RequestHandler#handle}, routed to an HTTP/1.1 target group (HTTP or HTTPS, stickiness
   * included), whether the connection is kept alive after it or closed ({@code Connection: close}:
   * the lane closes it). Returns the exchange, or null (nothing done, no target chosen) when the
   * request is to take the usual path, which then answers it whatever it is: an ELB error, a fixed
   * response, a redirect, a Lambda call, an HTTP/2 or gRPC target group, HTTP/1.0, HEAD, Expect or
   * Upgrade.
   */
  DirectExchange direct(Binding binding, DirectExchange.Client lane, HttpRequest req, ClientConnection client,
      SocketAddress remote) {
    io.netty.handler.codec.http.HttpMethod method = req.method();
    if (method == io.netty.handler.codec.http.HttpMethod.HEAD || method == io.netty.handler.codec.http.HttpMethod.TRACE
        || method == io.netty.handler.codec.http.HttpMethod.CONNECT
        || req.protocolVersion() != io.netty.handler.codec.http.HttpVersion.HTTP_1_1
        || req.decoderResult().isFailure() || !(req.headers() instanceof MultiMap headers)
        || headers.contains(HttpHeaders.EXPECT) || headers.contains(HttpHeaders.UPGRADE)
        || !NodeRequest.validHost(headers.get(HttpHeaders.HOST), true)) {
      return null;
    }
    String te = headers.get(HttpHeaders.TRANSFER_ENCODING);
    if (te != null && !te.trim().equalsIgnoreCase("chunked")) {
      return null;
    }
    long headerBytes = Dispatcher.headerBytes(headers, false);
    if (headerBytes < 0 || ForwardHeaders.xffAddressCount(headers) > ForwardHeaders.MAX_XFF_ADDRESSES
        || client != null && client.refusesRequests()) {
      return null; // the usual path answers it
    }
    Desync.Mode mode = Desync.Mode.of(binding.plan.proxy().desyncMode());
    Desync.Verdict verdict = Desync.verdict(method.name(), req.uri(), headers);
    Desync.Tier tier = verdict.tier();
    if (Desync.action(mode, tier) != Desync.Action.FORWARD) {
      return null; // the usual path blocks it, or serves it and closes
    }
    NodeRequest facts = new NodeRequest(method.name(), req.uri(), headers, remote);
    RouteAction matched = binding.plan.routes().match(facts);
    if (!(checked(matched, headers) instanceof ForwardRoute route) || route.rewrites() != null) {
      return null; // a rule's transforms are applied on the usual path
    }
    long now = clock.millis();
    Dispatcher.Choice choice = dispatcher.choice(route, headers, now);
    GroupRuntime group = choice.group();
    if (group == null || group.protocol().http2() || group.plan().lambda() != null || waits(group)) {
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
    ForwardHeaders.Values forwarded =
        dispatcher.forwardHeaders(binding, facts, headers, remote, client, headerBytes, now);
    Dispatcher.creditHeader(group, target, headers);
    AccessEntry entry = null;
    if (binding.log != null) {
      entry = dispatcher.entry(binding, client, binding.plan.tls() == null ? "http" : "https", remote, method.name(),
          facts.host(), req.uri(), "HTTP/1.1", headers.get(HttpHeaders.USER_AGENT));
      entry.routed(matched);
      entry.errorReason = choice.groupError();
      if (tier != Desync.Tier.COMPLIANT) {
        entry.classified(verdict);
      }
    }
    InFlight.Node node = dispatcher.dispatched(binding, group, target, facts, false, entry, forwarded);
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
   * every check of {@link RequestHandler#handle}, routed to an HTTP/1.1 target group (HTTP or HTTPS) that takes
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
        || path.charAt(0) != '/' || path.length() > Dispatcher.MAX_HTTP2_FIELD || !NodeRequest.cleanPath(path, 0)) {
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
    long headerBytes = Dispatcher.headerBytes(headers, true);
    if (headerBytes < 0 || ForwardHeaders.xffAddressCount(headers) > ForwardHeaders.MAX_XFF_ADDRESSES) {
      return null;
    }
    NodeRequest facts = new NodeRequest(method.name(), path.toString(), headers, remote, authority);
    RouteAction matched = binding.plan.routes().match(facts);
    if (!(checked(matched, headers) instanceof ForwardRoute route) || route.rewrites() != null) {
      return null; // a rule's transforms are applied on the usual path
    }
    long now = clock.millis();
    Dispatcher.Choice choice = dispatcher.choice(route, headers, now);
    GroupRuntime group = choice.group();
    if (group == null || group.plan().lambda() != null || waits(group)) {
      return null;
    }
    boolean toHttp2 = group.protocol().http2();
    boolean post = method == io.netty.handler.codec.http.HttpMethod.POST;
    if (!Dispatcher.compatible(true, grpc, post, group.plan().protocolVersion())) {
      return null; // 464
    }
    Upstream target = choice.target(binding);
    if (target == null) {
      return null;
    }
    HttpForwarder.ResponseHook hook = choice.chosen(target, headers);
    ForwardHeaders.Values forwarded =
        dispatcher.forwardHeaders(binding, facts, headers, remote, client, headerBytes, now);
    Dispatcher.creditHeader(group, target, headers);
    AccessEntry entry = null;
    if (binding.log != null) {
      entry = dispatcher.entry(binding, client, grpc ? "grpcs" : "h2", remote, method.name(), authority.host(),
          facts.uri(), "HTTP/2.0", headers.get(HttpHeaders.USER_AGENT));
      entry.routed(matched);
      entry.errorReason = choice.groupError();
      entry.received = headerBytes;
      entry.sent = 0;
    }
    InFlight.Node node = dispatcher.dispatched(binding, group, target, facts, grpc, entry, forwarded);
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

  /**
   * The routing action a request takes here: the matched one; behind a jwt-validation action, its
   * routing action when the request's token is valid with the keys at hand; behind an
   * authenticate-oidc action, its routing action when the request has a live session (the user's
   * claims are then in its headers). Null when the usual path is to judge the request: it answers a
   * refused token, waits for keys not fetched yet, and sends a user without a session to sign in.
   */
  private RouteAction checked(RouteAction matched, MultiMap headers) {
    if (matched instanceof OidcRoute o) {
      return authenticator.signedIn(headers, o) ? o.then() : null;
    }
    if (!(matched instanceof JwtRoute j)) {
      return matched;
    }
    JwkSet keys = j.keys().keys();
    return keys != null && j.check().check(headers.get(HttpHeaders.AUTHORIZATION), keys, clock.millis())
        == TokenCheck.Outcome.VALID ? j.then() : null;
  }

  /**
   * Whether a request to the group may have to wait for a target optimizer credit
   * ({@code fulcrum.target_optimizer.queue_timeout_ms} above 0): only the usual path parks requests.
   * Without a wait, a request that finds no credit goes to the usual path too, which answers it 503.
   */
  private static boolean waits(GroupRuntime group) {
    TargetGroupPlan.Optimizer o = group.plan().optimizer();
    return o != null && o.queueMillis() > 0;
  }
}
