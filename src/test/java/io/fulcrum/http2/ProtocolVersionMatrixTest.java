package io.fulcrum.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.ElbResponses;
import io.fulcrum.grpc.GrpcWire;
import io.fulcrum.grpc.VertxTestService;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.TestServiceGrpc;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every cell of SPEC §7.1 (request protocol x target group protocol version) with real targets,
 * through an HTTPS listener as on ALB: HTTP/1.1 and HTTP/2 from the JDK's HttpClient, gRPC from
 * grpc-java. HTTP1 groups are reached over HTTP/1.1 (HTTP/2 requests downgraded), HTTP2 and GRPC
 * groups over HTTP/2; every incompatible pair is 464 and reaches no target.
 */
class ProtocolVersionMatrixTest {

  private static final Vertx VERTX = TestVertx.create();
  private static final Metadata.Key<String> GROUP = Metadata.Key.of("x-group", Metadata.ASCII_STRING_MARSHALLER);
  private static Backend h1;
  private static Backend plainH2;
  private static RawTarget raw;
  private static VertxTestService h2;
  private static VertxTestService grpc;
  private static Gateway gateway;
  private static TestCertificates.Pem cert;
  private static int port;
  private static int h2cPort;
  private static HttpClient http11;
  private static HttpClient http2;

  @BeforeAll
  static void start() throws Exception {
    cert = TestCertificates.pem(Files.createTempDirectory("matrix"), "lb", "127.0.0.1");
    h1 = Backend.start(VERTX, "h1");
    plainH2 = Backend.start(VERTX, "plain-h2");
    raw = RawTarget.start(VERTX, RawTarget.answerAndClose("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nraw"));
    h2 = VertxTestService.start(VERTX, "h2", null);
    grpc = VertxTestService.start(VERTX, "grpc", null);
    port = Ports.free();
    h2cPort = Ports.free();
    String rules = """
                  - {priority: 1, conditions: [{field: http-header, http-header-name: x-group, values: [h2]}],
                     actions: [{type: forward, target-group: h2}]}
                  - {priority: 2, conditions: [{field: http-header, http-header-name: x-group, values: [grpc]}],
                     actions: [{type: forward, target-group: grpc}]}
                  - {priority: 3, conditions: [{field: http-header, http-header-name: x-group, values: [raw]}],
                     actions: [{type: forward, target-group: raw}]}
                  - {priority: 4, conditions: [{field: http-header, http-header-name: x-group, values: [plain-h2]}],
                     actions: [{type: forward, target-group: plain-h2}]}
        """;
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: h1}]
                rules:
        %s
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: h1}]
                rules:
        %4$s
        target-groups:
          - {name: h1, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: raw, target-type: ip, protocol: HTTP, port: 80, protocol-version: HTTP1, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: h2, target-type: ip, protocol: HTTP, port: 80, protocol-version: HTTP2, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: plain-h2, target-type: ip, protocol: HTTP, port: 80, protocol-version: HTTP2, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: grpc, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, cert.certificate(), cert.privateKey(), rules, h2cPort, h1.port(), raw.port(), h2.port(),
        plainH2.port(), grpc.port()));
    javax.net.ssl.SSLContext trust = TestCertificates.trusting(cert.x509());
    http11 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(trust).build();
    http2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(trust).build();
  }

  @AfterAll
  static void stop() {
    gateway.close();
    h2.close();
    grpc.close();
    VERTX.close();
  }

  private static HttpResponse<String> send(HttpClient client, String method, String group, String body)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/cell"))
        .timeout(Duration.ofSeconds(30)).header("x-group", group).header("x-custom-thing", "Kept-As-Sent")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.version()).as("the client spoke what it was asked to")
        .isEqualTo(client == http2 ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1);
    return r;
  }

  private static void assert464(HttpResponse<String> r) {
    assertThat(r.statusCode()).isEqualTo(464);
    assertThat(r.headers().firstValue("server")).hasValue(ElbResponses.SERVER);
    assertThat(r.body()).isEqualTo(ElbResponses.page(ElbError.PROTOCOL_MISMATCH));
  }

  // --- HTTP/1.1 requests ---

  @ParameterizedTest
  @ValueSource(strings = {"GET", "POST"})
  void http11_toHttp1Group_isForwardedOverHttp11(String method) throws Exception {
    HttpResponse<String> r = send(http11, method, "h1", method.equals("POST") ? "hello" : null);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("h1");
    assertThat(h1.lastRequest().getString("method")).isEqualTo(method);
    assertThat(h1.lastRequest().getString("version")).isEqualTo("HTTP_1_1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"GET", "POST"})
  void http11_toHttp2Group_is464(String method) throws Exception {
    int before = h2.plainRequests.size();

    assert464(send(http11, method, "h2", method.equals("POST") ? "hello" : null));
    assertThat(h2.plainRequests).hasSize(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"GET", "POST"})
  void http11_toGrpcGroup_is464(String method) throws Exception {
    int before = grpc.plainRequests.size() + grpc.grpcCalls.size();

    assert464(send(http11, method, "grpc", method.equals("POST") ? "hello" : null));
    assertThat(grpc.plainRequests.size() + grpc.grpcCalls.size()).isEqualTo(before);
  }

  @Test
  void http11WithAGrpcContentType_isNotGrpc_andStill464AtAGrpcGroup() throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/grpc.testing.TestService/EmptyCall"))
        .header("x-group", "grpc").header("content-type", "application/grpc")
        .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[5])).build();

    assert464(http11.send(req, HttpResponse.BodyHandlers.ofString()));
  }

  // --- HTTP/2 requests that are not gRPC ---

  @ParameterizedTest
  @ValueSource(strings = {"GET", "POST", "PUT"})
  void http2_toHttp1Group_isDowngradedToHttp11(String method) throws Exception {
    HttpResponse<String> r = send(http2, method, "h1", method.equals("GET") ? null : "hello");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("h1");
    assertThat(h1.lastRequest().getString("version")).isEqualTo("HTTP_1_1");
    assertThat(h1.lastRequest().getString("method")).isEqualTo(method);
  }

  @Test
  void http2DowngradedToHttp11_writesAlbsHeadersInMixedCase_andTheOthersLowerCase() throws Exception {
    assertThat(send(http2, "GET", "raw", null).body()).isEqualTo("raw");

    String head = raw.heads().get(raw.heads().size() - 1);
    List<String> names = head.lines().skip(1).filter(l -> l.contains(":")).map(l -> l.substring(0, l.indexOf(':')))
        .toList();
    assertThat(head).startsWith("GET /cell HTTP/1.1\r\n");
    assertThat(names).contains("Host", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Port", "X-Amzn-Trace-Id",
        "x-custom-thing", "x-group");
    assertThat(head).contains("x-custom-thing: Kept-As-Sent\r\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"GET", "POST", "PUT", "DELETE"})
  void http2_toHttp2Group_isForwardedOverHttp2(String method) throws Exception {
    HttpResponse<String> r = send(http2, method, "h2", method.equals("POST") || method.equals("PUT") ? "hello" : null);

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(method + " HTTP_2 " + (method.equals("POST") || method.equals("PUT") ? 5 : 0));
    assertThat(r.headers().firstValue("x-target")).hasValue("h2");
  }

  @Test
  void http2Post_toGrpcGroup_isForwardedOverHttp2() throws Exception {
    HttpResponse<String> r = send(http2, "POST", "grpc", "not grpc, but a POST");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("POST HTTP_2 20");
    assertThat(r.headers().firstValue("x-target")).hasValue("grpc");
  }

  @ParameterizedTest
  @ValueSource(strings = {"GET", "PUT", "DELETE", "PATCH"})
  void http2NonPost_toGrpcGroup_is464(String method) throws Exception {
    int before = grpc.plainRequests.size();

    assert464(send(http2, method, "grpc", method.equals("PUT") || method.equals("PATCH") ? "x" : null));
    assertThat(grpc.plainRequests).hasSize(before);
  }

  // --- gRPC requests ---

  private static ManagedChannel grpcChannel(String group, AtomicReference<Metadata> headers) throws Exception {
    Metadata m = new Metadata();
    m.put(GROUP, group);
    AtomicReference<Metadata> trailers = new AtomicReference<>();
    return NettyChannelBuilder.forAddress("127.0.0.1", port)
        .sslContext(GrpcSslContexts.forClient().trustManager(cert.certificate().toFile()).build())
        .intercept(MetadataUtils.newAttachHeadersInterceptor(m), MetadataUtils.newCaptureMetadataInterceptor(headers,
            trailers))
        .build();
  }

  private static void unary(String group, AtomicReference<Metadata> headers) throws Exception {
    ManagedChannel ch = grpcChannel(group, headers);
    try {
      TestServiceGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
          .unaryCall(SimpleRequest.newBuilder().setResponseSize(5).build());
    } finally {
      ch.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void grpc_toHttp1Group_is464_asUnimplemented() {
    int before = h1.received().size();

    assertThatThrownBy(() -> unary("h1", new AtomicReference<>()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
          assertThat(e.getStatus().getDescription())
              .isEqualTo("464: request protocol incompatible with the target group protocol version");
        });
    assertThat(h1.received()).hasSize(before);
  }

  @Test
  void grpc_toHttp1Group_onTheWire_isHttp200TrailersOnlyWithGrpcStatus12() {
    try (GrpcWire wire = new GrpcWire(VERTX)) {
      GrpcWire.Answer a = wire.callAndWait(h2cPort, "/grpc.testing.TestService/EmptyCall", java.util.Map.of(),
          GrpcWire.emptyMessage());

      assertThat(a.status()).isEqualTo(200);
      assertThat(a.headers().get("content-type")).isEqualTo("application/grpc");
      assertThat(a.trailersOnly()).as("the status is in the head").isTrue();
      assertThat(a.grpcStatus()).isEqualTo("12");
      assertThat(a.grpcMessage()).isEqualTo("464: request protocol incompatible with the target group protocol version");
    }
  }

  @Test
  void grpc_toHttp2Group_isForwarded_whenTheTargetSpeaksGrpc() throws Exception {
    AtomicReference<Metadata> headers = new AtomicReference<>();

    unary("h2", headers);

    assertThat(headers.get().get(Metadata.Key.of("x-target", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("h2");
    assertThat(h2.grpcCalls).contains("/grpc.testing.TestService/UnaryCall HTTP_2");
  }

  @Test
  void grpc_toHttp2Group_whoseTargetDoesNotSpeakGrpc_reachesItOverHttp2_andFailsThere_not464() {
    int before = plainH2.received().size();

    assertThatThrownBy(() -> unary("plain-h2", new AtomicReference<>()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isNotEqualTo(Status.Code.UNIMPLEMENTED));
    assertThat(plainH2.received()).hasSize(before + 1);
    assertThat(plainH2.lastRequest().getString("version")).isEqualTo("HTTP_2");
  }

  @Test
  void grpc_toGrpcGroup_isForwarded() throws Exception {
    AtomicReference<Metadata> headers = new AtomicReference<>();

    unary("grpc", headers);

    assertThat(headers.get().get(Metadata.Key.of("x-target", Metadata.ASCII_STRING_MARSHALLER))).isEqualTo("grpc");
    assertThat(grpc.grpcCalls).contains("/grpc.testing.TestService/UnaryCall HTTP_2");
  }
}
