package io.fulcrum.listener;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.ExchangeOutcome;
import io.fulcrum.bus.FunctionReply;
import io.fulcrum.bus.FunctionRequest;
import io.fulcrum.bus.LambdaError;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.ClientCertHeaders;
import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.ElbResponses;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.forward.ListenerHeaders;
import io.fulcrum.forward.ProxySettings;
import io.fulcrum.forward.Upgrades;
import io.fulcrum.function.FunctionRequests;
import io.fulcrum.model.FunctionDefinition;
import io.fulcrum.model.Protocol;
import io.fulcrum.observe.GroupMeters;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The Lambda path of one listener verticle (SPEC §6): reads the request body (at most 1 MB, else
 * 413), sends the request to the function invoker over the event bus and writes the response it
 * makes of the function's answer, or ALB's error page. A WebSocket upgrade gets 400. Every outcome
 * is recorded with its {@code error_reason}. Called on the owning event loop only.
 */
final class FunctionForwarder {

  /**
   * The invoker always answers within its function's timeout; this bound only covers an invoker
   * that is gone.
   */
  static final long SEND_TIMEOUT_MILLIS = (FunctionDefinition.MAX_TIMEOUT_SECONDS + 60L) * 1000L;
  private static final DeliveryOptions INVOKE = new DeliveryOptions().setLocalOnly(true)
      .setSendTimeout(SEND_TIMEOUT_MILLIS);

  private final ListenerVerticle verticle;
  private final RandomGenerator random;

  FunctionForwarder(ListenerVerticle verticle, RandomGenerator random) {
    this.verticle = verticle;
    this.random = random;
  }

  /**
   * Invokes the group's function for {@code req} (the target chosen is the function).
   *
   * @param hook  adds to the response head (stickiness cookies); may be null
   * @param entry the request's access log line, or null
   */
  void forward(HttpServerRequest req, NodeRequest facts, ListenerPlan plan, TargetGroupPlan group, Upstream target,
      long headerBytes, long now, HttpForwarder.ResponseHook hook, GroupMeters meters, AccessEntry entry) {
    String uri = req.uri();
    if (Upgrades.webSocket(req) != null) {
      // A WebSocket upgrade as the proxy path reads one (GET, Connection: upgrade, Upgrade: websocket).
      reject(req, plan, group, uri, LambdaError.WEBSOCKET_NOT_SUPPORTED, true, meters, entry, hook);
      return;
    }
    String length = req.headers().get(HttpHeaders.CONTENT_LENGTH);
    if (length != null && declaredLength(length) > FunctionRequest.MAX_BODY_BYTES) {
      // The body is not read: the connection closes after the page.
      reject(req, plan, group, uri, LambdaError.REQUEST_TOO_LARGE, true, meters, entry, hook);
      return;
    }
    // ALB's event keeps the client's Connection header (SPEC §6.1), which preparing for a target drops.
    String connection = req.headers().get(HttpHeaders.CONNECTION);
    ProxySettings proxy = plan.proxy();
    String host = ForwardHeaders.targetHost(facts.targetHostHeader(), plan.port(), proxy);
    String scheme = plan.protocol() == Protocol.HTTPS ? "https" : "http";
    ForwardHeaders.Tls tls = proxy.tlsHeaders() ? ForwardHeaders.Tls.of(req.connection().sslSession()) : null;
    if (tls != null) {
      tls = tls.named(plan.tlsNames());
    }
    ClientCertHeaders clientCert = plan.clientCertNames() == null ? null
        : ClientCertHeaders.of(req.connection().sslSession(), plan.mutualTls(), plan.clientCertNames());
    ForwardHeaders.Values forwarded = ForwardHeaders.prepare(req.headers(), proxy, host,
        ForwardHeaders.forwardedFor(req.remoteAddress(), proxy.xffClientPort()), scheme, Integer.toString(plan.port()),
        tls, clientCert, headerBytes, now / 1000, random);
    if (forwarded.droppedInvalid()) {
      meters.loadBalancer().droppedInvalidHeader();
    }
    if (forwarded.forwardedInvalid()) {
      meters.loadBalancer().forwardedInvalidHeader();
    }
    if (entry != null) {
      entry.traceId = forwarded.traceId().toString();
    }
    if (connection != null) {
      req.headers().set(HttpHeaders.CONNECTION, connection);
    }
    target.dispatched();
    InFlight.Node node = verticle.inFlight().add(group.arn(), target, plan.lbName(), req.method().name(), uri, true);
    node.meters = meters;
    node.entry = entry;
    Exchange ex = new Exchange(req, facts.originForm(), group, target, node, hook);
    node.exchange = ex;
    req.response().closeHandler(v -> ex.clientClosed());
    if (req.isEnded()) {
      ex.invoke();
      return;
    }
    req.handler(ex::chunk);
    req.endHandler(v -> ex.invoke());
    req.exceptionHandler(e -> ex.clientClosed());
  }

  private static long declaredLength(String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }


  /** Answers an error before anything was sent to the function, and records it. */
  private void reject(HttpServerRequest req, ListenerPlan plan, TargetGroupPlan group, String uri, LambdaError error,
      boolean close, GroupMeters meters, AccessEntry entry, HttpForwarder.ResponseHook hook) {
    meters.lambdaError(error.userError());
    meters.loadBalancer().elbStatus(error.status());
    ElbResponses.send(req, error.elbError(), close, ListenerHeaders.of(hook));
    if (entry != null) {
      entry.groupArn = group.arn();
      entry.errorReason = error.code();
      entry.answered(error.status());
    }
    if (verticle.outcomesListened()) {
      verticle.outcome(new ExchangeOutcome(plan.lbName(), group.arn(), null, req.method().name(), uri, error.status(),
          -1, error.code()));
    }
  }

  /** One request to a function, from its first body byte to the response's end. Owning loop only. */
  private final class Exchange implements HttpForwarder.Handle {
    final HttpServerRequest request;
    final String originForm;
    final TargetGroupPlan group;
    final Upstream target;
    final InFlight.Node node;
    final HttpForwarder.ResponseHook hook;
    Buffer body;
    boolean done;

    Exchange(HttpServerRequest request, String originForm, TargetGroupPlan group, Upstream target, InFlight.Node node,
        HttpForwarder.ResponseHook hook) {
      this.request = request;
      this.originForm = originForm;
      this.group = group;
      this.target = target;
      this.node = node;
      this.hook = hook;
    }

    void chunk(Buffer chunk) {
      if (done) {
        return;
      }
      if (body == null) {
        body = Buffer.buffer(Math.min(FunctionRequest.MAX_BODY_BYTES, Math.max(chunk.length(), 1024)));
      }
      if (body.length() + chunk.length() > FunctionRequest.MAX_BODY_BYTES) {
        // A chunked body that grows past the limit: the rest is not read.
        fail(LambdaError.REQUEST_TOO_LARGE, true);
        return;
      }
      body.appendBuffer(chunk);
    }

    void invoke() {
      if (done) {
        return;
      }
      FunctionRequest r = FunctionRequests.of(request, originForm, group.arn(), target.id(),
          group.lambda().multiValueHeaders(), body);
      node.sentAt = System.nanoTime();
      EventBus bus = verticle.eventBus();
      bus.<FunctionReply>request(Addresses.FUNCTION_INVOKE, r, INVOKE).onComplete(ar -> {
        FunctionReply reply = ar.succeeded() ? ar.result().body() : FunctionReply.failed(LambdaError.UNHANDLED_EXCEPTION);
        node.meters.lambdaProcessed(reply.processedBytes());
        if (done) {
          return;
        }
        if (reply.ok()) {
          respond(reply);
        } else {
          fail(reply.error(), false);
        }
      });
    }

    private void respond(FunctionReply reply) {
      done = true;
      HttpServerResponse response = request.response();
      response.setStatusCode(reply.statusCode());
      if (reply.statusMessage() != null) {
        response.setStatusMessage(reply.statusMessage());
      }
      MultiMap headers = response.headers();
      for (Map.Entry<String, String> h : reply.headers()) {
        headers.add(h.getKey(), h.getValue());
      }
      if (hook != null) {
        hook.beforeHead(headers);
      }
      Buffer body = reply.body();
      node.responseHead(reply.statusCode());
      if (ElbResponses.bodyless(reply.statusCode())) {
        response.end(); // no body and no Content-Length, whatever the function answered
      } else {
        headers.set(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.length()));
        if (request.method() == HttpMethod.HEAD) {
          response.end();
        } else {
          response.end(body);
        }
      }
      node.finished(true);
    }

    private void fail(LambdaError error, boolean close) {
      done = true;
      node.lambdaFailed(error);
      ElbResponses.send(request, error.elbError(), close || !request.isEnded(), ListenerHeaders.of(hook));
      node.finished(false);
    }

    @Override
    public void cut(ElbError error) {
      if (done) {
        return;
      }
      // The function was deregistered with the request in flight (SPEC §2.4: the client gets a 5xx).
      done = true;
      node.failed(error);
      ElbResponses.send(request, error, !request.isEnded(), ListenerHeaders.of(hook));
      node.finished(false);
    }

    void clientClosed() {
      if (!done) {
        done = true;
        node.finished(false);
      }
    }
  }
}
