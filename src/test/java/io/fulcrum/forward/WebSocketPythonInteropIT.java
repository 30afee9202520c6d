package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.testing.WebSocketTarget;
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
 * Debian's python3-websockets (run with {@code /usr/bin/python3}) as an independent WebSocket
 * client of the packaged jar: ws:// through an HTTP listener and wss:// through an HTTPS listener
 * (trusting the self-signed certificate Fulcrum generated into its data dir), to a Vert.x
 * WebSocket target: the subprotocol, text and a 512 KB binary message echoed, a ping answered, and
 * the target's close code and reason.
 */
@Tag("interop")
class WebSocketPythonInteropIT {

  /** Prints one JSON object with what the client saw. */
  private static final String CLIENT = """
      import asyncio, json, ssl, sys
      import websockets

      async def main():
          mode, port = sys.argv[1], int(sys.argv[2])
          kwargs = {}
          if mode == 'wss':
              ctx = ssl.create_default_context(cafile=sys.argv[3])
              kwargs = {'ssl': ctx, 'server_hostname': 'localhost'}
          uri = '%s://127.0.0.1:%d/py?x=1' % (mode, port)
          out = {}
          async with websockets.connect(uri, subprotocols=['superchat'], open_timeout=20, **kwargs) as ws:
              out['subprotocol'] = ws.subprotocol
              out['greeting'] = await ws.recv()
              await ws.send('from python')
              out['echo'] = await ws.recv()
              data = bytes(range(256)) * 2048
              await ws.send(data)
              out['binary_echoed'] = (await ws.recv()) == data
              await asyncio.wait_for(await ws.ping(b'py'), 20)
              out['pong'] = True
              await ws.send('close')
              try:
                  await ws.recv()
              except websockets.ConnectionClosed as e:
                  out['close'] = [e.rcvd.code, e.rcvd.reason] if e.rcvd else None
          print(json.dumps(out))

      asyncio.run(main())
      """;

  private static final Vertx TARGETS = TestVertx.create();
  private static Path work;
  private static WebSocketTarget target;
  private static FulcrumProcess fulcrum;
  private static int httpPort;
  private static int httpsPort;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("websocket-python");
    Files.writeString(work.resolve("client.py"), CLIENT);
    target = WebSocketTarget.start(TARGETS, "vertx", null);
    int control = Ports.free();
    httpPort = Ports.free();
    httpsPort = Ports.free();
    fulcrum = FulcrumProcess.start(work, """
        control: {address: 127.0.0.1, port: %d}
        reload: {enabled: false}
        load-balancers:
          - name: ws-interop
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: ws}]}
              - {protocol: HTTPS, port: %d, default-actions: [{type: forward, target-group: ws}]}
        target-groups:
          - {name: ws, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(control, httpPort, httpsPort, target.port()));
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
  @ValueSource(strings = {"ws", "wss"})
  void pythonWebsockets_talksToTheTargetThroughFulcrum(String mode) {
    Path python = Interop.python3With("websockets", "python3-websockets");
    Path cert = work.resolve("data").resolve("tls").resolve(SelfSignedCertificate.CERT_FILE);
    List<String> cmd = mode.equals("wss")
        ? List.of(python.toString(), "client.py", "wss", Integer.toString(httpsPort), cert.toString())
        : List.of(python.toString(), "client.py", "ws", Integer.toString(httpPort));

    Tool.Result r = Tool.run(work, Duration.ofSeconds(90), cmd);

    assertThat(r.exitCode()).as("python exited with\n%s\n%s", r.output(), fulcrum.describe()).isZero();
    JsonObject out = Interop.lastJsonLine(r);
    assertThat(out.getString("subprotocol")).isEqualTo("superchat");
    assertThat(out.getString("greeting")).isEqualTo("hello from vertx");
    assertThat(out.getString("echo")).isEqualTo("from python");
    assertThat(out.getBoolean("binary_echoed")).isTrue();
    assertThat(out.getBoolean("pong")).isTrue();
    assertThat(out.getJsonArray("close").getList()).containsExactly(4000, "bye");
    JsonObject seen = target.handshakes().get(target.handshakes().size() - 1);
    assertThat(seen.getString("uri")).isEqualTo("/py?x=1");
    assertThat(seen.getString("x-forwarded-proto")).isEqualTo(mode.equals("wss") ? "https" : "http");
    assertThat(target.nextClose()).startsWith("4000");
  }
}
