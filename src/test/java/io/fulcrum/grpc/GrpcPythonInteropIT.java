package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.tls.SelfSignedCertificate;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Debian's python3-grpcio (run with {@code /usr/bin/python3}) as an independent gRPC client of
 * the packaged jar, over TLS (trusting the self-signed certificate Fulcrum generated into its data
 * dir) and over h2c. No generated stubs (grpcio-tools is not installed): methods are called by
 * path with bytes in and out, the protobuf messages encoded by hand. The target is grpc-java's
 * interop TestService.
 */
@Tag("interop")
class GrpcPythonInteropIT {

  /** Prints one JSON object with what each call returned. */
  private static final String CLIENT = """
      import json, sys, grpc
      mode, port = sys.argv[1], int(sys.argv[2])
      if mode == 'tls':
          creds = grpc.ssl_channel_credentials(root_certificates=open(sys.argv[3], 'rb').read())
          ch = grpc.secure_channel('127.0.0.1:%d' % port, creds,
                                   options=[('grpc.ssl_target_name_override', 'localhost')])
      else:
          ch = grpc.insecure_channel('127.0.0.1:%d' % port)
      def md(pairs):
          return {k: (v if isinstance(v, str) else v.hex()) for k, v in pairs}
      out = {}
      # Identity serializers: bytes in, bytes out. b'' is the Empty message.
      empty = ch.unary_unary('/grpc.testing.TestService/EmptyCall')
      resp, call = empty.with_call(b'', timeout=20)
      out['empty'] = resp.hex()
      out['empty_code'] = call.code().name
      # SimpleRequest{response_size: 5}: field 2, varint 5.
      unary = ch.unary_unary('/grpc.testing.TestService/UnaryCall')
      resp, call = unary.with_call(bytes([0x10, 0x05]), timeout=20,
                                   metadata=[('x-grpc-test-echo-initial', 'from-python'),
                                             ('x-grpc-test-echo-trailing-bin', b'\\x00\\xffpy')])
      out['unary'] = resp.hex()
      out['initial'] = md(call.initial_metadata())
      out['trailing'] = md(call.trailing_metadata())
      # SimpleRequest{response_status: {code: 3, message: 'bad arg'}}: field 7.
      try:
          unary(bytes([0x3a, 11, 0x08, 0x03, 0x12, 7]) + b'bad arg', timeout=20)
          out['status'] = 'OK'
      except grpc.RpcError as e:
          out['status'] = e.code().name
          out['status_details'] = e.details()
      # StreamingOutputCallRequest with response_parameters sizes 1, 2, 3 (field 2, each {size: n}).
      stream = ch.unary_stream('/grpc.testing.TestService/StreamingOutputCall')
      out['stream'] = [r.hex() for r in stream(b''.join(bytes([0x12, 2, 0x08, n]) for n in (1, 2, 3)), timeout=20)]
      # Answers Fulcrum makes itself: no targets (503) and gRPC to an HTTP1 group (464).
      for group in ('none', 'h1'):
          try:
              empty(b'', timeout=20, metadata=[('x-group', group)])
              out[group] = 'OK'
          except grpc.RpcError as e:
              out[group] = e.code().name
              out[group + '_details'] = e.details()
      print(json.dumps(out))
      """;

  private static final Vertx TARGETS = TestVertx.create();
  private static Path work;
  private static GrpcJava.Target target;
  private static Backend h1;
  private static FulcrumProcess fulcrum;
  private static int httpsPort;
  private static int h2cPort;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("grpc-python");
    Files.writeString(work.resolve("client.py"), CLIENT);
    target = GrpcJava.testService("grpc-java");
    h1 = Backend.start(TARGETS, "h1");
    int control = Ports.free();
    httpsPort = Ports.free();
    h2cPort = Ports.free();
    String rules = """
                  - {priority: 1, conditions: [{field: http-header, http-header-name: x-group, values: [none]}], actions: [{type: forward, target-group: none}]}
                  - {priority: 2, conditions: [{field: http-header, http-header-name: x-group, values: [h1]}], actions: [{type: forward, target-group: h1}]}
        """;
    fulcrum = FulcrumProcess.start(work, """
        control: {address: 127.0.0.1, port: %d}
        reload: {enabled: false}
        load-balancers:
          - name: grpc-interop
            listeners:
              - protocol: HTTPS
                port: %d
                default-actions: [{type: forward, target-group: grpc}]
                rules:
        %s
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: grpc}]
                rules:
        %3$s
        target-groups:
          - {name: grpc, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: none, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: []}
          - {name: h1, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(control, httpsPort, rules, h2cPort, target.port(), h1.port()));
    fulcrum.waitReady(control);
  }

  @AfterAll
  static void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
    if (target != null) {
      target.close();
    }
    TARGETS.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"tls", "h2c"})
  void pythonGrpcio_callsThroughFulcrum_withMetadataStatusesAndStreams(String mode) {
    Path python = Interop.python3With("grpc", "python3-grpcio");
    Path cert = work.resolve("data").resolve("tls").resolve(SelfSignedCertificate.CERT_FILE);
    List<String> cmd = mode.equals("tls")
        ? List.of(python.toString(), "client.py", "tls", Integer.toString(httpsPort), cert.toString())
        : List.of(python.toString(), "client.py", "h2c", Integer.toString(h2cPort));

    Tool.Result r = Tool.run(work, Duration.ofSeconds(90), cmd);

    assertThat(r.exitCode()).as("python exited with\n%s\n%s", r.output(), fulcrum.describe()).isZero();
    JsonObject out = Interop.lastJsonLine(r);
    assertThat(out.getString("empty")).isEmpty();
    assertThat(out.getString("empty_code")).isEqualTo("OK");
    assertThat(out.getString("unary")).as("SimpleResponse{payload{body: 5 zero bytes}}").isEqualTo("0a0712050000000000");
    assertThat(out.getJsonObject("initial").getString("x-grpc-test-echo-initial")).isEqualTo("from-python");
    assertThat(out.getJsonObject("initial").getString("x-target")).isEqualTo("grpc-java");
    assertThat(out.getJsonObject("trailing").getString("x-grpc-test-echo-trailing-bin")).isEqualTo("00ff7079");
    assertThat(out.getString("status")).isEqualTo("INVALID_ARGUMENT");
    assertThat(out.getString("status_details")).isEqualTo("bad arg");
    assertThat(out.getJsonArray("stream").getList()).containsExactly("0a03120100", "0a0412020000", "0a051203000000");
    assertThat(out.getString("none")).isEqualTo("UNAVAILABLE");
    assertThat(out.getString("none_details")).isEqualTo("503 Service Temporarily Unavailable: no registered targets");
    assertThat(out.getString("h1")).isEqualTo("UNIMPLEMENTED");
    assertThat(out.getString("h1_details"))
        .isEqualTo("464: request protocol incompatible with the target group protocol version");
  }
}
