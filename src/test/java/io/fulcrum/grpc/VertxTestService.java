package io.fulcrum.grpc;

import com.google.protobuf.ByteString;
import io.fulcrum.testing.Await;
import io.grpc.testing.integration.EmptyProtos;
import io.grpc.testing.integration.Messages.EchoStatus;
import io.grpc.testing.integration.Messages.Payload;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingInputCallRequest;
import io.grpc.testing.integration.Messages.StreamingInputCallResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * grpc.testing.TestService written with vertx-grpc-server, behaving as grpc-java's interop
 * {@code TestServiceImpl} does: payloads of the requested sizes, {@code response_status} echoed as
 * the call's status, {@code x-grpc-test-echo-initial} echoed in the response headers and
 * {@code x-grpc-test-echo-trailing-bin} in the trailers, and an {@code x-target} header naming the
 * server. Other HTTP requests (not gRPC) are answered with their method, version and body length,
 * so the same server is a target of HTTP2 groups too. It speaks HTTP/1.1 and HTTP/2 (h2c prior
 * knowledge, or ALPN over TLS when started with a certificate).
 */
public final class VertxTestService implements AutoCloseable {

  static final ServiceName SERVICE = ServiceName.create("grpc.testing.TestService");
  static final String ECHO_INITIAL = "x-grpc-test-echo-initial";
  static final String ECHO_TRAILING = "x-grpc-test-echo-trailing-bin";
  /** grpc-java's default; vertx-grpc's own is 256 KiB. */
  static final long MAX_MESSAGE = 4 * 1024 * 1024;

  private final HttpServer server;
  /** What plain (non-gRPC) requests looked like: method, path, version, headers by lower-case name. */
  public final List<JsonObject> plainRequests = new CopyOnWriteArrayList<>();
  /** Every gRPC call's method path and the version it came in. */
  public final List<String> grpcCalls = new CopyOnWriteArrayList<>();

  private VertxTestService(HttpServer server) {
    this.server = server;
  }

  /** Starts on a free loopback port; with {@code tls} (PEM files) it speaks TLS with ALPN h2 and http/1.1. */
  public static VertxTestService start(Vertx vertx, String id, PemKeyCertOptions tls) {
    HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(0)
        .setHttp2ClearTextEnabled(true);
    if (tls != null) {
      options.setSsl(true).setUseAlpn(true).setKeyCertOptions(tls);
    }
    HttpServer http = vertx.createHttpServer(options);
    VertxTestService service = new VertxTestService(http);
    GrpcServer grpc = GrpcServer.server(vertx, new GrpcServerOptions().setMaxMessageSize(MAX_MESSAGE));
    service.register(grpc, id);
    http.requestHandler(req -> {
      String ct = req.getHeader("content-type");
      if (ct != null && ct.toLowerCase(Locale.ROOT).startsWith("application/grpc")) {
        service.grpcCalls.add(req.path() + " " + req.version());
        grpc.handle(req);
      } else {
        service.plain(req, id);
      }
    });
    Await.result(http.listen());
    return service;
  }

  public int port() {
    return server.actualPort();
  }

  private void plain(HttpServerRequest req, String id) {
    JsonObject r = new JsonObject().put("method", req.method().name()).put("path", req.path())
        .put("version", req.version().name());
    JsonObject h = new JsonObject();
    req.headers().forEach(e -> h.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue()));
    r.put("headers", h);
    plainRequests.add(r);
    req.body().onSuccess(b -> req.response().putHeader("x-target", id).putHeader("content-type", "text/plain")
        .end(req.method() + " " + req.version() + " " + b.length()));
  }

  private static <Req extends com.google.protobuf.Message> ServiceMethod<Req, com.google.protobuf.MessageLite> method(
      String name, com.google.protobuf.Message.Builder requestBuilder) {
    return ServiceMethod.server(SERVICE, name, GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(requestBuilder));
  }

  private void register(GrpcServer grpc, String id) {
    grpc.callHandler(VertxTestService.<EmptyProtos.Empty>method("EmptyCall", EmptyProtos.Empty.newBuilder()), req -> {
      start(req, id);
      req.handler(m -> req.response().end(EmptyProtos.Empty.getDefaultInstance()));
    });
    grpc.callHandler(VertxTestService.<SimpleRequest>method("UnaryCall", SimpleRequest.newBuilder()), req -> {
      start(req, id);
      req.handler(m -> {
        if (m.hasResponseStatus()) {
          fail(req.response(), m.getResponseStatus());
          return;
        }
        SimpleResponse.Builder r = SimpleResponse.newBuilder();
        if (m.getResponseSize() > 0) {
          r.setPayload(payload(m.getResponseSize()));
        }
        req.response().end(r.build());
      });
    });
    grpc.callHandler(VertxTestService.<StreamingOutputCallRequest>method("StreamingOutputCall",
        StreamingOutputCallRequest.newBuilder()), req -> {
          start(req, id);
          req.handler(m -> {
            for (ResponseParameters p : m.getResponseParametersList()) {
              req.response().write(StreamingOutputCallResponse.newBuilder().setPayload(payload(p.getSize())).build());
            }
            if (m.hasResponseStatus()) {
              fail(req.response(), m.getResponseStatus());
            } else {
              req.response().end();
            }
          });
        });
    grpc.callHandler(VertxTestService.<StreamingInputCallRequest>method("StreamingInputCall",
        StreamingInputCallRequest.newBuilder()), req -> {
          start(req, id);
          int[] total = {0};
          req.handler(m -> total[0] += m.getPayload().getBody().size());
          req.endHandler(v -> req.response()
              .end(StreamingInputCallResponse.newBuilder().setAggregatedPayloadSize(total[0]).build()));
        });
    grpc.callHandler(VertxTestService.<StreamingOutputCallRequest>method("FullDuplexCall",
        StreamingOutputCallRequest.newBuilder()), req -> {
          start(req, id);
          req.handler(m -> {
            if (m.hasResponseStatus()) {
              fail(req.response(), m.getResponseStatus());
              return;
            }
            // Each request is answered at once, before the client half-closes: true bidirectional streaming.
            for (ResponseParameters p : m.getResponseParametersList()) {
              req.response().write(StreamingOutputCallResponse.newBuilder().setPayload(payload(p.getSize())).build());
            }
          });
          req.endHandler(v -> endIfOpen(req.response()));
        });
  }

  private static void endIfOpen(GrpcServerResponse<?, ?> response) {
    try {
      response.end();
    } catch (IllegalStateException alreadyEnded) {
      // A response_status already ended the call.
    }
  }

  /** Echoes the interop metadata: the initial one into the headers, the trailing one into the trailers. */
  private static void start(GrpcServerRequest<?, ?> req, String id) {
    GrpcServerResponse<?, ?> response = req.response();
    response.headers().set("x-target", id);
    String initial = req.headers().get(ECHO_INITIAL);
    if (initial != null) {
      response.headers().set(ECHO_INITIAL, initial);
    }
    String trailing = req.headers().get(ECHO_TRAILING);
    if (trailing != null) {
      response.trailers().set(ECHO_TRAILING, trailing);
    }
  }

  private static void fail(GrpcServerResponse<?, ?> response, EchoStatus status) {
    response.status(GrpcStatus.valueOf(status.getCode())).statusMessage(status.getMessage()).end();
  }

  private static Payload payload(int size) {
    return Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])).build();
  }

  @Override
  public void close() {
    Await.result(server.close());
  }
}
