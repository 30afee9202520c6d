package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.tls.TlsEngine;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollChannelOption;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The native transports as Fulcrum runs them: connections accepted on the event loop that
 * listens (no acceptor thread), the socket options Vert.x asks for in force on real sockets, and
 * TLS servers working on both.
 */
class LeanTransportTest {

  private Vertx vertx;

  @AfterEach
  void close() {
    if (vertx != null) {
      Await.result(vertx.close());
    }
  }

  private void startNative(String name) {
    io.vertx.core.transport.Transport t = "io_uring".equals(name) ? io.vertx.core.transport.Transport.IO_URING
        : io.vertx.core.transport.Transport.EPOLL;
    assumeTrue(t != null && t.available(), name + " is not available here");
    vertx = NetworkTransport.vertx(Map.of(NetworkTransport.ENV, name));
  }

  /**
   * Where an HTTP server's connection was accepted and served, and its socket's options, seen from
   * its connection handler (an option its transport does not know is null).
   */
  private record Accepted(boolean onTheServingLoop, EventLoop acceptedOn, EventLoop servedOn, Boolean noDelay,
      Boolean keepAlive, Boolean cork) {

    static Accepted of(Channel ch) {
      return new Accepted(ch.parent().eventLoop() == ch.eventLoop() && ch.eventLoop().inEventLoop(),
          ch.parent().eventLoop(), ch.eventLoop(), ch.config().getOption(ChannelOption.TCP_NODELAY),
          ch.config().getOption(ChannelOption.SO_KEEPALIVE), ch.config().getOption(EpollChannelOption.TCP_CORK));
    }
  }

  /** Deploys {@code instances} verticles listening on one port; each connection says where it was accepted. */
  private int listen(int instances, HttpServerOptions options, List<Accepted> accepted) {
    Promise<Integer> port = Promise.promise();
    Await.result(vertx.deployVerticle(() -> new VerticleBase() {
      @Override
      public Future<?> start() {
        return vertx.createHttpServer(options)
            .connectionHandler(conn -> accepted.add(Accepted.of(((ConnectionBase) conn).channel())))
            .requestHandler(req -> req.response().end("ok"))
            .listen()
            .onSuccess(s -> port.tryComplete(s.actualPort()));
      }
    }, new io.vertx.core.DeploymentOptions().setInstances(instances)));
    return Await.result(port.future());
  }

  private String get(int port) {
    var client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false));
    try {
      return Await.result(client.request(HttpMethod.GET, port, "127.0.0.1", "/")
          .compose(r -> r.send().compose(resp -> resp.body())).map(Object::toString));
    } finally {
      client.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"epoll", "io_uring"})
  void aListenerWithOneInstance_acceptsEachConnectionOnTheLoopThatServesIt(String transport) {
    startNative(transport);
    List<Accepted> accepted = new CopyOnWriteArrayList<>();
    int port = listen(1, new HttpServerOptions().setHost("127.0.0.1").setPort(0), accepted);

    for (int i = 0; i < 5; i++) {
      assertThat(get(port)).isEqualTo("ok");
    }

    assertThat(accepted).hasSize(5).allMatch(Accepted::onTheServingLoop);
    // Not checked by thread name: another Vert.x of the test JVM (FULCRUM_TRANSPORT=nio) may have an acceptor thread.
    assertThat(((VertxInternal) vertx).acceptorEventLoopGroup()).isInstanceOf(AcceptingLoops.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"epoll", "io_uring"})
  void anHttpsServer_closesAClientThatSendsSomethingElseThanTls_andServesOneThatSpeaksIt(String transport)
      throws Exception {
    startNative(transport);
    Path dir = Files.createTempDirectory("lean-tls");
    TestCertificates.Pem cert = TestCertificates.pem(dir, "server", "localhost");
    // As an HTTPS listener is set up: SNI, ALPN, the engine FULCRUM_TLS_ENGINE picks (BoringSSL on Linux).
    int port = listen(1, new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true).setSni(true)
        .setUseAlpn(true).setSslEngineOptions(TlsEngine.current().vertxOptions())
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert.certificate().toString())
            .setKeyPath(cert.privateKey().toString())), new CopyOnWriteArrayList<>());

    try (RawConnection plain = RawConnection.open("127.0.0.1", port)) {
      plain.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
      assertThat(plain.readUntilClosed()).as("no TLS record: closed, no HTTP answer").doesNotContain("HTTP/1.1");
    }
    try (SSLSocket tls = (SSLSocket) TestCertificates.trusting(cert.x509()).getSocketFactory()
        .createSocket("127.0.0.1", port)) {
      tls.getOutputStream().write("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      assertThat(new String(tls.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
          .startsWith("HTTP/1.1 200").endsWith("ok");
    }
  }

  @Test
  void withTwoInstances_oneLoopAccepts_andBothServe() {
    startNative("epoll");
    List<Accepted> accepted = new CopyOnWriteArrayList<>();
    // A port of its own: servers on port 0 are not shared between instances.
    int port = listen(2, new HttpServerOptions().setHost("127.0.0.1").setPort(Ports.free()), accepted);

    for (int i = 0; i < 6; i++) {
      assertThat(get(port)).isEqualTo("ok");
    }

    assertThat(accepted).hasSize(6);
    assertThat(accepted.stream().map(Accepted::acceptedOn).distinct()).hasSize(1);
    assertThat(accepted.stream().map(Accepted::servedOn).distinct()).hasSize(2);
  }

  @Test
  void acceptedSockets_haveTheOptionsAskedFor_thoseRestatingADefaultAsWellAsTheOthers() {
    startNative("epoll");
    List<Accepted> plain = new CopyOnWriteArrayList<>();
    int plainPort = listen(1, new HttpServerOptions().setHost("127.0.0.1").setPort(0), plain);
    List<Accepted> changed = new CopyOnWriteArrayList<>();
    int changedPort = listen(1, new HttpServerOptions().setHost("127.0.0.1").setPort(0)
        .setTcpKeepAlive(true).setTcpNoDelay(false).setTcpCork(true), changed);

    assertThat(get(plainPort)).isEqualTo("ok");
    assertThat(get(changedPort)).isEqualTo("ok");

    assertThat(plain).singleElement().satisfies(a -> {
      assertThat(a.noDelay()).isTrue();
      assertThat(a.keepAlive()).isFalse();
      assertThat(a.cork()).isFalse();
    });
    assertThat(changed).singleElement().satisfies(a -> {
      assertThat(a.noDelay()).isFalse();
      assertThat(a.keepAlive()).isTrue();
      assertThat(a.cork()).isTrue();
    });
  }

  @Test
  void connectedSockets_haveTheOptionsAskedFor() {
    startNative("epoll");
    int port = Await.result(vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0))
        .connectHandler(so -> { }).listen()).actualPort();
    List<Channel> channels = new ArrayList<>();
    for (NetClientOptions options : List.of(new NetClientOptions(),
        (NetClientOptions) new NetClientOptions().setTcpKeepAlive(true).setTcpNoDelay(false).setTcpUserTimeout(5000))) {
      channels.add(((NetSocketInternal) Await.result(vertx.createNetClient(options).connect(port, "127.0.0.1")))
          .channelHandlerContext().channel());
    }

    assertThat(channels.get(0).config().getOption(ChannelOption.TCP_NODELAY)).isTrue();
    assertThat(channels.get(0).config().getOption(ChannelOption.SO_KEEPALIVE)).isFalse();
    assertThat(channels.get(0).config().getOption(EpollChannelOption.TCP_USER_TIMEOUT)).isZero();
    assertThat(channels.get(1).config().getOption(ChannelOption.TCP_NODELAY)).isFalse();
    assertThat(channels.get(1).config().getOption(ChannelOption.SO_KEEPALIVE)).isTrue();
    assertThat(channels.get(1).config().getOption(EpollChannelOption.TCP_USER_TIMEOUT)).isEqualTo(5000);
  }

  @Test
  void theNativeTransportIsMadeLean_nioAndTheSwitchLeaveItAsItIs() {
    startNative("epoll");
    assertThat(((VertxInternal) vertx).transport()).isInstanceOf(LeanTransport.class);
    assertThat(((VertxInternal) vertx).acceptorEventLoopGroup()).isInstanceOf(AcceptingLoops.class);

    assertThat(NetworkTransport.lean(io.vertx.core.transport.Transport.NIO)).isSameAs(io.vertx.core.transport.Transport.NIO);
    System.setProperty("fulcrum.leanTransport", "false");
    try {
      assertThat(NetworkTransport.lean(io.vertx.core.transport.Transport.EPOLL)).isSameAs(io.vertx.core.transport.Transport.EPOLL);
    } finally {
      System.clearProperty("fulcrum.leanTransport");
    }
  }

  @Test
  void anOptionIsDroppedOnlyWhenItRestatesANewSocketsValue() {
    assertThat(LeanTransport.isDefault(ChannelOption.TCP_NODELAY, true)).isTrue();
    assertThat(LeanTransport.isDefault(ChannelOption.TCP_NODELAY, false)).isFalse();
    assertThat(LeanTransport.isDefault(EpollChannelOption.TCP_CORK, false)).isTrue();
    assertThat(LeanTransport.isDefault(EpollChannelOption.TCP_QUICKACK, false)).isFalse();
    assertThat(LeanTransport.isDefault(ChannelOption.SO_KEEPALIVE, true)).isFalse();
    assertThat(LeanTransport.isDefault(ChannelOption.SO_SNDBUF, 0)).isFalse();
  }
}
