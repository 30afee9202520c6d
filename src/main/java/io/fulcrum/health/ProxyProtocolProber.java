package io.fulcrum.health;

import io.fulcrum.forward.ProxyProtocolV2;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.time.Timers;
import io.fulcrum.tls.TlsEngine;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;

/**
 * Health checks of a network load balancer's group with {@code proxy_protocol_v2.enabled}: every
 * check connection starts with a PROXY protocol v2 header without client information (command
 * {@code LOCAL}), as AWS's do (SPEC §1.5), so that a target that requires the header (NGINX's
 * {@code listen ... proxy_protocol}, HAProxy's {@code accept-proxy}) answers its checks. A TCP check
 * passes once the connection is open and the header written; an HTTP or HTTPS check then sends
 * {@code GET <path>} (HTTPS: TLS after the header, the certificate not checked) and is judged on
 * the status line. The only failure reason is {@code Target.FailedHealthChecks}.
 */
final class ProxyProtocolProber implements Prober {

  /** How much of the answer is read for its status line before the check gives up on it. */
  static final int MAX_STATUS_LINE = 8 * 1024;

  private static final Buffer LOCAL = Buffer.buffer(ProxyProtocolV2.local());

  private final Timers timers;
  private final NetClient client;

  ProxyProtocolProber(Vertx vertx, Timers timers) {
    this.timers = timers;
    this.client = vertx.createNetClient(new NetClientOptions().setTrustAll(true).setHostnameVerificationAlgorithm("")
        .setSslEngineOptions(TlsEngine.current().vertxOptions()));
  }

  @Override
  public void probe(String address, int port, HealthCheck check, boolean nlb, Handler<CheckResult> result) {
    Attempt attempt = new Attempt(check.timeoutSeconds() * 1000L, result);
    client.connect(port, address).onComplete(ar -> {
      if (ar.failed()) {
        attempt.finish(CheckResult.fail(TargetHealth.FAILED, -1, attempt.elapsed()));
        return;
      }
      NetSocket socket = ar.result();
      attempt.socket = socket;
      if (attempt.done()) {
        socket.close();
        return;
      }
      socket.write(LOCAL);
      if (check.protocol() == Protocol.TCP) {
        socket.close();
        attempt.finish(CheckResult.pass(-1, attempt.elapsed()));
        return;
      }
      if (check.protocol() == Protocol.HTTPS) {
        socket.upgradeToSsl().onComplete(tls -> {
          if (tls.failed()) {
            attempt.finish(CheckResult.fail(TargetHealth.FAILED, -1, attempt.elapsed()));
          } else {
            request(socket, address, port, check, attempt);
          }
        });
      } else {
        request(socket, address, port, check, attempt);
      }
    });
  }

  private void request(NetSocket socket, String address, int port, HealthCheck check, Attempt attempt) {
    String host = address.indexOf(':') >= 0 ? "[" + address + "]:" + port : address + ":" + port;
    Buffer answer = Buffer.buffer();
    socket.handler(data -> {
      answer.appendBuffer(data);
      String head = answer.toString(StandardCharsets.ISO_8859_1);
      int end = head.indexOf("\r\n");
      if (end < 0 && answer.length() < MAX_STATUS_LINE) {
        return;
      }
      int code = end < 0 ? -1 : status(head.substring(0, end));
      long latency = attempt.elapsed();
      if (code < HttpProber.MIN_STATUS || code > HttpProber.MAX_STATUS) {
        attempt.finish(CheckResult.fail(TargetHealth.FAILED, code, latency)); // not an HTTP status line
      } else {
        attempt.finish(check.matcher().matches(code) ? CheckResult.pass(code, latency)
            : CheckResult.fail(TargetHealth.FAILED, code, latency));
      }
    });
    socket.closeHandler(v -> attempt.finish(CheckResult.fail(TargetHealth.FAILED, -1, attempt.elapsed())));
    socket.write("GET " + check.path() + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: " + HttpProber.USER_AGENT
        + "\r\nConnection: close\r\n\r\n");
  }

  /** The code of an HTTP/1.x status line, or -1. */
  static int status(String line) {
    if (!line.startsWith("HTTP/1.") || line.length() < 12 || line.charAt(8) != ' ') {
      return -1;
    }
    String code = line.substring(9, 12);
    for (int i = 0; i < 3; i++) {
      if (!Character.isDigit(code.charAt(i))) {
        return -1;
      }
    }
    return Integer.parseInt(code);
  }

  /** One check in flight; its connection is closed once it has its result. */
  private final class Attempt extends CheckAttempt {
    NetSocket socket;

    Attempt(long timeoutMillis, Handler<CheckResult> result) {
      super(timers, timeoutMillis, result, elapsed -> CheckResult.fail(TargetHealth.FAILED, -1, elapsed));
    }

    @Override
    void ended() {
      if (socket != null) {
        socket.close();
      }
    }
  }
}
