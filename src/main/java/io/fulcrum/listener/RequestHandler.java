package io.fulcrum.listener;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.ElbResponses;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.forward.Grpc;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.forward.ListenerHeaders;
import io.fulcrum.forward.ProxySettings;
import io.fulcrum.forward.TraceIds;
import io.fulcrum.forward.Upgrades;
import io.fulcrum.jwt.JwkSet;
import io.fulcrum.jwt.TokenCheck;
import io.fulcrum.listener.HttpListeners.Binding;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.routing.FixedRoute;
import io.fulcrum.routing.ForwardRoute;
import io.fulcrum.routing.JwtRoute;
import io.fulcrum.routing.OidcCallbackRoute;
import io.fulcrum.routing.OidcRoute;
import io.fulcrum.routing.RedirectRoute;
import io.fulcrum.routing.RouteAction;
import io.netty.handler.codec.TooLongFrameException;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.HostAndPort;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request path of one listener verticle for requests Vert.x's server has parsed (those the
 * direct paths, {@link DirectRequests}, leave to it, whatever they are): checks the request as ALB
 * does, matches the rules, and answers, redirects, invokes a function or forwards. Called on the
 * owning event loop only.
 */
final class RequestHandler {

  private static final CharSequence CONTENT_TYPE_NAME = HttpHeaders.createOptimized("Content-Type");
  private static final CharSequence LOCATION_NAME = HttpHeaders.createOptimized("Location");
  private static final CharSequence CONNECTION_NAME = HttpHeaders.createOptimized("Connection");
  private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);

  private final ListenerVerticle verticle;
  private final HttpForwarder forwarder;
  private final Clock clock;
  private final FunctionForwarder functions;
  private final Dispatcher dispatcher;

  private final OptimizerQueue optimizerQueue;
  private final Authenticator authenticator;

  RequestHandler(ListenerVerticle verticle, HttpForwarder forwarder, Dispatcher dispatcher, Authenticator authenticator,
      Clock clock, RandomGenerator random) {
    this.verticle = verticle;
    this.forwarder = forwarder;
    this.dispatcher = dispatcher;
    this.clock = clock;
    this.functions = new FunctionForwarder(verticle, random);
    this.optimizerQueue = new OptimizerQueue(verticle.vertx());
    this.authenticator = authenticator;
  }

  /** An agent of the target group {@code arn} granted credits: requests waiting for one try again. */
  void optimizerCredits(String arn) {
    optimizerQueue.credits(arn);
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
      answer(binding, entry, req, ElbError.METHOD_NOT_ALLOWED);
      return;
    }
    boolean http2 = req.version() == HttpVersion.HTTP_2;
    if (req.uri() == null || !NodeRequest.servedTarget(req.method().name(), req.uri(), http2)) {
      // An HTTP/2 :path in none of the forms served (HTTP/1.x request lines are refused as they are
      // decoded: RequestDecoder), or CONNECT's lack of one: never passed on as a path no rule saw.
      answerAndClose(binding, entry, req, client, ElbError.BAD_REQUEST);
      return;
    }
    if (!NodeRequest.validHost(headers.get(HttpHeaders.HOST), req.version() == HttpVersion.HTTP_1_1)) {
      answerAndClose(binding, entry, req, client, ElbError.BAD_REQUEST);
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
        answerAndClose(binding, entry, req, client, ElbError.UNSUPPORTED_TRANSFER_ENCODING);
        return;
      }
    }
    if (http2 && req.uri().length() > Dispatcher.MAX_HTTP2_FIELD
        && HpackSize.field(":path", req.uri()) > Dispatcher.MAX_HTTP2_FIELD) {
      req.connection().close();
      return;
    }
    long headerBytes = Dispatcher.headerBytes(headers, http2);
    if (headerBytes == Dispatcher.HTTP2_FIELD_TOO_LARGE) {
      // ALB sends GOAWAY and closes the connection when a header passes 8 KB compressed (SPEC §7.3);
      // the request never reaches a target.
      req.connection().close();
      return;
    }
    if (headerBytes < 0) {
      answerAndClose(binding, entry, req, client, ElbError.HEADER_TOO_LARGE);
      return;
    }
    if (entry != null && http2) {
      entry.received = headerBytes;
      entry.sent = 0;
    }
    if (ForwardHeaders.xffAddressCount(headers) > ForwardHeaders.MAX_XFF_ADDRESSES) {
      answer(binding, entry, req, ElbError.XFF_TOO_LONG);
      return;
    }
    boolean last = false;
    if (!http2) {
      Desync.Mode mode = Desync.Mode.of(plan.proxy().desyncMode());
      Desync.Verdict verdict = Desync.verdict(req.method().name(), req.uri(), headers);
      Desync.Tier tier = verdict.tier();
      if (tier != Desync.Tier.COMPLIANT) {
        meters.desyncNonCompliant();
        if (entry != null) {
          entry.classified(verdict);
        }
      }
      Desync.Action desync = Desync.action(mode, tier);
      if (desync == Desync.Action.BLOCK) {
        answerAndClose(binding, entry, req, client, ElbError.BAD_REQUEST);
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
    if (action instanceof JwtRoute j) {
      Request r = new Request(binding, req, facts, chunked, headerBytes, client, last, entry);
      validate(r, j, true, false);
    } else if (action instanceof OidcRoute o) {
      authenticate(new Request(binding, req, facts, chunked, headerBytes, client, last, entry), o);
    } else if (action instanceof OidcCallbackRoute c) {
      authenticator.callback(req, c, entry, binding.listenerHeaders, meters);
    } else {
      route(binding, req, facts, action, chunked, headerBytes, client, last, entry);
    }
  }

  /** What {@link #validate} needs of a request to route it once its token passed. */
  private record Request(Binding binding, HttpServerRequest req, NodeRequest facts, boolean chunked, long headerBytes,
      ClientConnection client, boolean last, AccessEntry entry) {
  }

  /**
   * A rule's jwt-validation action: the request goes on to the routing action with a valid token,
   * and is answered 401 otherwise (500 while the JWKS endpoint's keys cannot be read). A token signed
   * by a key the set lacks, or a set not read yet, waits (body paused) for the keys to be fetched again,
   * once: a key rotated in at the issuer is taken up without a restart.
   *
   * @param mayRefresh whether the keys may be fetched again for this request
   * @param paused     whether the request's body is paused (it waited for the keys)
   */
  private void validate(Request r, JwtRoute j, boolean mayRefresh, boolean paused) {
    HttpServerRequest req = r.req();
    JwkSet keys = j.keys().keys();
    TokenCheck.Outcome outcome = j.check().check(req.headers().get(HttpHeaders.AUTHORIZATION),
        keys == null ? JwkSet.EMPTY : keys, clock.millis());
    if (outcome == TokenCheck.Outcome.UNKNOWN_KEY && mayRefresh && j.keys().mayFetchSoon()) {
      boolean body = HttpForwarder.hasBody(req, r.chunked());
      if (body) {
        req.pause();
      }
      j.keys().refresh(Vertx.currentContext(), () -> {
        if (!req.response().ended() && !req.response().closed()) { // else the client went away meanwhile
          validate(r, j, false, body);
        }
      });
      return;
    }
    boolean valid = outcome == TokenCheck.Outcome.VALID;
    if (paused && !(valid && j.then() instanceof ForwardRoute)) {
      req.resume(); // to be read and dropped; a forward's exchange resumes the body when its target takes it
    }
    if (valid) {
      route(r.binding(), req, r.facts(), j.then(), r.chunked(), r.headerBytes(), r.client(), r.last(), r.entry());
      return;
    }
    ElbError error = outcome == TokenCheck.Outcome.MISSING ? ElbError.TOKEN_MISSING
        : outcome == TokenCheck.Outcome.UNKNOWN_KEY && keys == null ? ElbError.JWKS_UNAVAILABLE
        : ElbError.TOKEN_INVALID;
    if (LOG.isDebugEnabled()) {
      LOG.debug("{} {} refused by the jwt-validation action of rule {}: {}{}", req.method(), req.uri(), j.priority(),
          outcome.reason(), error == ElbError.JWKS_UNAVAILABLE ? " (JWKS " + j.keys().endpoint() + ": "
              + j.keys().failure() + ")" : "");
    }
    if (r.entry() != null) {
      r.entry().refusedByCheck(JwtValidation.TYPE);
    }
    answer(r.binding(), r.entry(), req, error);
  }

  /**
   * A rule's authenticate-oidc action: a request with a session goes on to the routing action with
   * the user's claims; one without is sent to sign in, denied or allowed, as the action says. One
   * whose session is being renewed with its refresh token waits for that (body paused).
   */
  private void authenticate(Request r, OidcRoute o) {
    HttpServerRequest req = r.req();
    Future<Authenticator.Verdict> verdict = authenticator.check(req, o, r.entry(), r.binding().listenerHeaders,
        r.binding().meters);
    if (verdict.isComplete()) {
      authenticated(r, o, verdict.result());
      return;
    }
    boolean body = HttpForwarder.hasBody(req, r.chunked());
    if (body) {
      req.pause();
    }
    verdict.onComplete(ar -> {
      if (req.response().ended() || req.response().closed()) {
        return; // the client went away meanwhile
      }
      if (ar.failed()) {
        LOG.warn("authenticate-oidc: renewing a session failed unexpectedly", ar.cause());
        if (body) {
          req.resume();
        }
        answer(r.binding(), r.entry(), req, ElbError.AUTH_FAILED);
        return;
      }
      Authenticator.Verdict v = ar.result();
      boolean proceeds = v == Authenticator.Verdict.SIGNED_IN || v == Authenticator.Verdict.ALLOWED;
      if (body && !(proceeds && o.then() instanceof ForwardRoute)) {
        req.resume(); // to be read and dropped; a forward's exchange resumes the body when its target takes it
      }
      authenticated(r, o, v);
    });
  }

  private void authenticated(Request r, OidcRoute o, Authenticator.Verdict verdict) {
    Binding binding = r.binding();
    switch (verdict) {
      case SIGNED_IN, ALLOWED -> route(binding, r.req(), r.facts(), o.then(), r.chunked(), r.headerBytes(),
          r.client(), r.last(), r.entry());
      case DENIED -> {
        if (r.entry() != null) {
          r.entry().refusedByCheck(OidcRoute.EXECUTED);
        }
        answer(binding, r.entry(), r.req(), ElbError.AUTH_DENIED);
      }
      case ANSWERED -> {
        // sent to the IdP, or refused
      }
    }
  }

  /** The routing action: forward, answer with a fixed response, or redirect. */
  private void route(Binding binding, HttpServerRequest req, NodeRequest facts, RouteAction action, boolean chunked,
      long headerBytes, ClientConnection client, boolean last, AccessEntry entry) {
    ListenerPlan plan = binding.plan;
    LoadBalancerMeters meters = binding.meters;
    if (action instanceof ForwardRoute f) {
      if (f.rewrites() != null && !rewrite(binding, req, facts, f, entry)) {
        return;
      }
      forward(binding, plan, req, facts, f, chunked, headerBytes, client, last, entry, false);
    } else if (action instanceof FixedRoute f) {
      meters.fixedResponse(f.statusCode());
      fixed(req, f, binding.listenerHeaders);
      if (entry != null) {
        entry.answered(f.statusCode());
      }
    } else if (action instanceof RedirectRoute r) {
      meters.redirect(r.statusCode());
      String location = redirect(req, plan, facts, r, binding.listenerHeaders);
      if (entry != null) {
        entry.redirectUrl = location;
        entry.answered(r.statusCode());
      }
    }
  }

  /**
   * Applies the forwarding rule's transforms to the request; false when one failed, and the request
   * was answered 500 (AWS's answer to a rewrite that matched and could not be applied).
   */
  private boolean rewrite(Binding binding, HttpServerRequest req, NodeRequest facts, ForwardRoute route,
      AccessEntry entry) {
    NodeRequest.Rewritten done = facts.rewrite(route.rewrites());
    if (entry != null) {
      entry.transformed(done, facts);
    }
    if (done == NodeRequest.Rewritten.FAILED) {
      answer(binding, entry, req, ElbError.TRANSFORM_FAILED);
      return false;
    }
    return true;
  }

  /**
   * @param closeTarget the target connection is closed after the exchange (desync mitigation)
   * @param entry       the request's access log line, or null
   * @param waiting     whether the request waits for a target optimizer credit already
   * @return false only for a waiting request that still finds no credit (it keeps waiting)
   */
  private boolean forward(Binding binding, ListenerPlan plan, HttpServerRequest req, NodeRequest facts,
      ForwardRoute route, boolean chunked, long headerBytes, ClientConnection client, boolean closeTarget,
      AccessEntry entry, boolean waiting) {
    long now = clock.millis();
    Dispatcher.Choice choice = dispatcher.choice(route, req.headers(), now);
    GroupRuntime group = choice.group();
    if (group == null) {
      answer(binding, entry, req, ElbError.NO_TARGET_GROUP);
      return true;
    }
    if (entry != null) {
      entry.groupArn = group.plan().arn();
      entry.errorReason = choice.groupError();
    }
    ProtocolVersion version = group.plan().protocolVersion();
    boolean grpc = Grpc.isGrpc(req);
    if (!compatible(req, grpc, version)) {
      answer(binding, entry, req, ElbError.PROTOCOL_MISMATCH);
      return true;
    }
    Upstream target = choice.target(binding);
    if (target == null) {
      if (!choice.unready()) {
        answer(binding, entry, req, verticle.noTarget(group));
        return true;
      }
      if (waiting) {
        return false;
      }
      long wait = group.plan().optimizer().queueMillis();
      if (wait > 0) {
        optimizerQueue.park(group.plan().arn(), wait, binding.meters, req, HttpForwarder.hasBody(req, chunked),
            () -> forward(binding, plan, req, facts,
            route, chunked, headerBytes, client, closeTarget, entry, true), () -> rejectUnready(binding, entry, req));
      } else {
        rejectUnready(binding, entry, req);
      }
      return true;
    }
    HttpForwarder.ResponseHook hook = choice.chosen(target, req.headers());
    if (group.plan().lambda() != null) {
      functions.forward(req, facts, plan, group.plan(), target, headerBytes, now, hook,
          Dispatcher.counted(binding, group, false), entry);
      return true;
    }
    ProxySettings proxy = plan.proxy();
    String upgrade = Upgrades.webSocket(req); // read before the hop-by-hop headers leave
    if (upgrade != null && entry != null) {
      entry.type = plan.tls() == null ? "ws" : "wss";
    }
    InFlight.Node node = dispatcher.dispatch(binding, group, target, facts, req.headers(), req.remoteAddress(), client,
        headerBytes, now, grpc, entry);
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
      return true;
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
    return true;
  }

  /** No target's agent has room for the request (SPEC §9): 503, counted as rejected. */
  private static void rejectUnready(Binding binding, AccessEntry entry, HttpServerRequest req) {
    binding.meters.targetControlReject();
    answer(binding, entry, req, ElbError.NO_TARGET_READY);
  }

  /** The load balancer answers {@code error} itself; the connection stays open. */
  private static void answer(Binding binding, AccessEntry entry, HttpServerRequest req, ElbError error) {
    binding.meters.elbStatus(error.status());
    ElbResponses.send(req, error, false, binding.listenerHeaders);
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
    String uri = req.uri();
    if (uri == null) {
      // HTTP/2's CONNECT has no :path: its target is the authority, as HTTP/1.1's authority form has it.
      uri = authority == null ? "-" : authority.host() + (authority.port() >= 0 ? ":" + authority.port() : "");
    }
    AccessEntry e = dispatcher.entry(binding, client, type, req.remoteAddress(), req.method().name(),
        authority == null ? null : authority.host(), uri, version, req.headers().get(HttpHeaders.USER_AGENT));
    e.traceId = req.headers().get(TraceIds.HEADER);
    if (http2) {
      e.http2 = req;
    }
    return e;
  }

  /** {@link Dispatcher#compatible} for a request Vert.x's server parsed. */
  private static boolean compatible(HttpServerRequest req, boolean grpc, ProtocolVersion version) {
    return Dispatcher.compatible(req.version() == HttpVersion.HTTP_2, grpc, req.method() == HttpMethod.POST, version);
  }

  private static void fixed(HttpServerRequest req, FixedRoute f, ListenerHeaders listenerHeaders) {
    HttpServerResponse response = req.response();
    response.setStatusCode(f.statusCode());
    listenerHeaders.server(response.headers()).set(CONTENT_TYPE_NAME, f.contentType());
    listenerHeaders.beforeHead(response.headers());
    end(req, response, f.body());
  }

  /** Answers with the redirect; returns its location. */
  private static String redirect(HttpServerRequest req, ListenerPlan plan, NodeRequest facts, RedirectRoute r,
      ListenerHeaders listenerHeaders) {
    String host = facts.host();
    String location = r.location(plan.protocol().wire(), host == null ? "" : host.toLowerCase(Locale.ROOT), plan.port(),
        facts.path(), req.query());
    HttpServerResponse response = req.response();
    String phrase = r.statusCode() == 301 ? "Moved Permanently" : "Found";
    response.setStatusCode(r.statusCode()).setStatusMessage(phrase);
    listenerHeaders.server(response.headers()).set(LOCATION_NAME, location).set(CONTENT_TYPE_NAME, "text/html");
    listenerHeaders.beforeHead(response.headers());
    end(req, response, Buffer.buffer(ElbResponses.page(r.statusCode() + " " + phrase)));
    return location;
  }

  private static void end(HttpServerRequest req, HttpServerResponse response, Buffer body) {
    // Any request body is read and discarded; the connection stays usable.
    if (ElbResponses.bodyless(response.getStatusCode())) {
      response.end(); // a fixed response's 204 goes without its message body
    } else if (req.method() == HttpMethod.HEAD) {
      response.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.length())).end();
    } else {
      response.end(body.copy());
    }
  }

  /** A request Vert.x's decoder could not read: the ELB status, and the connection closes. */
  void invalid(Binding binding, HttpServerRequest req) {
    ClientConnection client = verticle.client(req.connection());
    answerAndClose(binding, binding.log == null ? null : entry(binding, req, client), req, client,
        invalidStatus(req));
  }

  /**
   * Answers with the ELB page and, over HTTP/1.x, closes the connection: nothing after this request
   * on it is served (HTTP/2 answers the stream only).
   */
  private static void answerAndClose(Binding binding, AccessEntry entry, HttpServerRequest req,
      ClientConnection client, ElbError error) {
    binding.meters.elbStatus(error.status());
    if (client != null && req.version() != HttpVersion.HTTP_2) {
      client.closeAfterResponse();
    }
    ElbResponses.send(req, error, true, binding.listenerHeaders);
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
    ElbError status = decodeFailure(cause);
    if (status == ElbError.BAD_REQUEST && cause instanceof IllegalArgumentException
        && req.version() == HttpVersion.HTTP_1_1 && unsupportedCoding(req)) {
      // Netty's decoder refuses an HTTP/1.1 request whose last transfer coding is not chunked (RFC 9112
      // §6.3, a 400 there); ALB answers 501 for a Transfer-Encoding it does not support.
      return ElbError.UNSUPPORTED_TRANSFER_ENCODING;
    }
    return status;
  }

  /**
   * The status for a request head the HTTP decoder failed with {@code cause}, whatever its headers:
   * 400, 505 for an unexpected version. Also what explaining a request says of a request line the
   * decoder refuses ({@link RequestFactsOf#refusal}).
   */
  static ElbError decodeFailure(Throwable cause) {
    if (cause instanceof TooLongFrameException) {
      return ElbError.HEADER_TOO_LARGE;
    }
    if (cause instanceof RequestDecoder.UnsupportedVersion
        || cause != null && cause.getMessage() != null && cause.getMessage().toLowerCase(Locale.ROOT).contains("version")) {
      // A version not served, or one Netty's parser could not read (a space in the URI shifts the words).
      return ElbError.VERSION_NOT_SUPPORTED;
    }
    return ElbError.BAD_REQUEST;
  }
}
