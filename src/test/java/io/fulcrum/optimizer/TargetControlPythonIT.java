package io.fulcrum.optimizer;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's control channel as a gRPC client nobody here wrote sees it: Debian's python3-grpcio
 * (with {@code /usr/bin/python3}) opens two channels over TLS to an agent of maximum concurrency 2,
 * reads the messages as raw protocol buffers, and sees the credits move: the first channel gets
 * both, the second none until the first ends, then both.
 */
class TargetControlPythonIT {

  private static final String CLIENT = """
      import grpc, json, sys, threading

      port, cert = int(sys.argv[1]), open(sys.argv[2], 'rb').read()
      channel = grpc.secure_channel('127.0.0.1:%d' % port, grpc.ssl_channel_credentials(root_certificates=cert),
                                    options=[('grpc.ssl_target_name_override', 'localhost')])
      method = channel.stream_stream('/fulcrum.targetcontrol.v1.TargetControl/Channel',
                                     request_serializer=lambda b: b, response_deserializer=lambda b: b)

      def varint(m, i):
          v, shift = 0, 0
          while True:
              b = m[i]; i += 1
              v |= (b & 0x7f) << shift; shift += 7
              if b < 0x80:
                  return v, i

      def fields(m):
          out, i = {}, 0
          while i < len(m):
              key, i = varint(m, i)
              if key & 7 == 0:
                  out[str(key >> 3)], i = varint(m, i)
              elif key & 7 == 2:
                  n, i = varint(m, i)
                  out[str(key >> 3)], i = m[i:i + n].decode(), i + n
              else:
                  raise ValueError('unexpected wire type %d' % (key & 7))
          return out

      def requests(node, stop):
          b = node.encode()
          yield bytes([0x0a, len(b)]) + b
          stop.wait(30)

      stop1, stop2 = threading.Event(), threading.Event()
      first = method(requests('python-1', stop1), timeout=20)
      got1 = fields(next(first))
      second = method(requests('python-2', stop2), timeout=20)
      first.cancel()
      got2 = fields(next(second))
      second.cancel()
      stop1.set(); stop2.set()
      print(json.dumps({'first': got1, 'second': got2}))
      """;

  private final Vertx vertx = TestVertx.create();

  @AfterEach
  void tearDown() {
    vertx.close();
  }

  @Test
  void pythonGrpcio_opensTheControlChannel_andCreditsReturnWhenAChannelEnds() throws Exception {
    Path python = Interop.python3With("grpc", "python3-grpcio");
    Path work = Files.createTempDirectory("target-control-python");
    TestCertificates.Pem pem = TestCertificates.pem(work, "agent", "localhost");
    Files.writeString(work.resolve("client.py"), CLIENT);
    TargetControlAgent agent = new TargetControlAgent(new TargetControlAgent.Settings(
        HostAndPort.create("127.0.0.1", 0), HostAndPort.create("127.0.0.1", 0), HostAndPort.create("127.0.0.1", 9), 2,
        new PemKeyCertOptions().setCertPath(pem.certificate().toString()).setKeyPath(pem.privateKey().toString())));
    Await.result(vertx.deployVerticle(agent));

    Tool.Result r = Tool.run(work, Duration.ofSeconds(60), List.of(python.toString(), "client.py",
        Integer.toString(agent.controlPort()), pem.certificate().toString()));

    assertThat(r.exitCode()).as("python exited with\n%s", r.output()).isZero();
    JsonObject out = Interop.lastJsonLine(r);
    // ready = 2, max_concurrency = 2, in_flight = 0 (left out, as protocol buffers leave out zeros),
    // channel = the name requests sent with its credits carry
    assertThat(out.getJsonObject("first").getMap()).containsExactlyInAnyOrderEntriesOf(
        java.util.Map.of("1", 2, "2", 2, "4", "c1"));
    assertThat(out.getJsonObject("second").getMap()).containsExactlyInAnyOrderEntriesOf(
        java.util.Map.of("1", 2, "2", 2, "4", "c2"));
  }
}
