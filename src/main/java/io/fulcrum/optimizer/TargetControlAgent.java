package io.fulcrum.optimizer;

import io.fulcrum.forward.HopByHop;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.tls.SelfSignedCertificate;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fulcrum's target control agent (SPEC §9), run on each target of a target group with a
 * {@code TargetControlPort}: an inline HTTP proxy on the data address in front of the application
 * at the destination, which counts the requests in flight, and a control server on the control
 * address where load balancers hold {@link ControlMessages channels}. Whenever requests in flight
 * plus credits granted and not yet used are below the maximum concurrency, it grants the difference,
 * one at a time to the open channel holding the fewest; a request arriving uses up a credit of the
 * channel its {@link ControlMessages#CREDIT_HEADER} names (a request without one, a health check
 * say, is counted in flight all the same, and uses up none). When a channel ends, its unused
 * credits return to the pool. Everything runs on the verticle's one
 * event loop: no locks.
 */
public final class TargetControlAgent extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(TargetControlAgent.class);

  /**
   * @param maxConcurrency the most requests the application gets at once (1-1000)
   * @param tls            the control server's certificate and key; null: a self-signed one made in memory
   */
  public record Settings(HostAndPort data, HostAndPort control, HostAndPort destination, int maxConcurrency,
      KeyCertOptions tls) {
  }

  private final Settings settings;
  private final List<Channel> channels = new ArrayList<>();
  private final Map<String, Channel> byName = new HashMap<>();
  private long channelsOpened;
  private HttpServer dataServer;
  private HttpServer controlServer;
  private HttpClient client;
  private int inFlight;
  private boolean grantScheduled;
  /** What waits for the next grant to be written: the ends of answers whose requests freed room. */
  private final List<Runnable> afterGrant = new ArrayList<>();
  /** {@code channels.size()}, for readers on other threads. */
  private volatile int openChannels;
  /** Requests whose load balancer left before the application had answered; written on the loop only. */
  private volatile long abandoned;

  public TargetControlAgent(Settings settings) {
    if (settings.maxConcurrency() < 1 || settings.maxConcurrency() > 1000) {
      throw new IllegalArgumentException("max concurrency " + settings.maxConcurrency() + " is outside 1-1000");
    }
    this.settings = settings;
  }

  @Override
  public Future<?> start() {
    client = vertx.createHttpClient(new PoolOptions().setHttp1MaxSize(Math.max(8, settings.maxConcurrency() * 2)));
    Future<KeyCertOptions> tls = settings.tls() != null ? Future.succeededFuture(settings.tls())
        : vertx.executeBlocking(TargetControlAgent::selfSigned, false);
    return tls.compose(keyCert -> {
      controlServer = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setUseAlpn(true)
          .setKeyCertOptions(keyCert).setHost(settings.control().host()).setPort(settings.control().port()));
      controlServer.requestHandler(this::channel);
      dataServer = vertx.createHttpServer(new HttpServerOptions().setHost(settings.data().host())
          .setPort(settings.data().port()));
      dataServer.requestHandler(this::data);
      return controlServer.listen().compose(s -> dataServer.listen());
    }).onSuccess(s -> LOG.info("target control agent: data {}:{} to {}:{}, control {}:{}, max concurrency {}",
        settings.data().host(), dataServer.actualPort(), settings.destination().host(), settings.destination().port(),
        settings.control().host(), controlServer.actualPort(), settings.maxConcurrency()));
  }

  /** The data port bound (the one given, or a free one for 0). */
  public int dataPort() {
    return dataServer.actualPort();
  }

  /** Control channels open now; readable from any thread. */
  public int openChannels() {
    return openChannels;
  }

  /**
   * Requests whose load balancer went (its client left, or it timed out) before the application had
   * answered them; each stayed in flight until the application did. Readable from any thread.
   */
  public long abandoned() {
    return abandoned;
  }

  /** The control port bound (the one given, or a free one for 0). */
  public int controlPort() {
    return controlServer.actualPort();
  }

  private static KeyCertOptions selfSigned() throws Exception {
    KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(256, new SecureRandom());
    KeyPair pair = gen.generateKeyPair();
    X509Certificate cert = SelfSignedCertificate.certificate(pair, List.of("target-control-agent"),
        Instant.now().minus(Duration.ofDays(1)), Instant.now().plus(Duration.ofDays(825)));
    return new PemKeyCertOptions().addCertValue(Buffer.buffer(SelfSignedCertificate.pem(cert)))
        .addKeyValue(Buffer.buffer(SelfSignedCertificate.pkcs8(pair.getPrivate())));
  }

  // ---- the data path: an inline proxy that counts what is in flight

  /**
   * A request from a load balancer, proxied to the application. It is in flight until the
   * application has answered it in full (or its connection to the application failed), whether or
   * not the load balancer still listens: one that has gone (its client left, or it timed out) leaves
   * the application at work, so its room is not granted again before then, and the answer is read
   * and dropped. The room of an answered request is granted before the answer's end is written, so
   * that the load balancer mostly has the credit back by the time its client can ask again.
   */
  private void data(HttpServerRequest in) {
    arrived(in.getHeader(ControlMessages.CREDIT_HEADER));
    in.pause();
    boolean[] over = {false};
    Consumer<Runnable> doneThen = then -> {
      if (!over[0]) {
        over[0] = true;
        finished(then);
      } else if (then != null) {
        then.run();
      }
    };
    Runnable done = () -> doneThen.accept(null);
    HttpServerResponse out = in.response();
    boolean[] gone = {false};
    out.closeHandler(v -> {
      if (!over[0]) {
        abandoned++;
      }
      gone[0] = true;
    });
    MultiMap headers = MultiMap.caseInsensitiveMultiMap().addAll(in.headers());
    HopByHop.strip(headers);
    headers.remove(ControlMessages.CREDIT_HEADER);
    RequestOptions options = new RequestOptions().setMethod(in.method()).setURI(in.uri())
        .setHost(settings.destination().host()).setPort(settings.destination().port()).setHeaders(headers);
    boolean body = HttpForwarder.hasBody(in, in.getHeader("transfer-encoding") != null);
    if (!body) {
      in.resume(); // nothing to read but its end
    }
    client.request(options)
        .compose(req -> body ? req.send(in) : req.send())
        .onComplete(ar -> {
          if (ar.failed()) {
            done.run();
            if (!gone[0]) {
              if (!out.headWritten()) {
                out.setStatusCode(502).end();
              } else {
                out.reset();
              }
            }
            return;
          }
          HttpClientResponse resp = ar.result();
          if (gone[0]) {
            resp.end().onComplete(read -> done.run());
            return;
          }
          out.setStatusCode(resp.statusCode()).setStatusMessage(resp.statusMessage());
          out.headers().addAll(resp.headers());
          HopByHop.strip(out.headers());
          if (resp.getHeader("content-length") == null) {
            out.setChunked(true);
          }
          resp.pipe().endOnSuccess(false).to(out).onComplete(piped -> {
            if (piped.succeeded()) {
              doneThen.accept(out::end);
            } else {
              // The load balancer went mid-answer (what is left is read and dropped), or the application did:
              // the load balancer's connection is cut, not ended as if the answer were whole.
              out.reset();
              resp.end().onComplete(read -> done.run());
            }
          });
        });
  }

  /**
   * A request arrived: it is in flight, and it used up a credit of the channel it names, if that
   * channel is still open (a request without one, a health check say, uses up none).
   */
  private void arrived(String channel) {
    inFlight++;
    Channel c = channel == null ? null : byName.get(channel);
    if (c != null) {
      c.arrived++;
      if (c.outstanding > 0) {
        c.outstanding--;
      }
    }
  }

  /**
   * The load balancer of {@code c} says it has spent {@code spent} of its credits. When that has not
   * moved since its last report (a second ago), every request it sent has arrived: any credit spent
   * beyond those that arrived was lost on the way (its connection failed before this agent read
   * it), and is granted again.
   */
  private void spent(Channel c, long spent) {
    if (spent == c.lastSpent) {
      long lost = spent - c.arrived - c.lost;
      if (lost > 0) {
        c.lost += lost;
        c.outstanding = (int) Math.max(0, c.outstanding - lost);
        LOG.info("target control agent: {} credit(s) of the channel from {} never came back with a request;"
            + " granted again", lost, c.node);
        grant();
      }
    }
    c.lastSpent = spent;
  }

  /**
   * A request is done: its room is granted again once the loop has run what it has in hand, so
   * that requests ending together go out in one message per channel; {@code then} (the end of the
   * request's answer, or null) runs after that message has been written.
   */
  private void finished(Runnable then) {
    inFlight--;
    if (then != null) {
      afterGrant.add(then);
    }
    if (!grantScheduled) {
      grantScheduled = true;
      vertx.runOnContext(v -> {
        grantScheduled = false;
        grant();
        List<Runnable> ends = List.copyOf(afterGrant);
        afterGrant.clear();
        ends.forEach(Runnable::run);
      });
    }
  }

  /** Grants the room left, one credit at a time to the channel holding the fewest, and tells them. */
  private void grant() {
    int outstanding = 0;
    for (Channel c : channels) {
      outstanding += c.outstanding;
    }
    int room = settings.maxConcurrency() - inFlight - outstanding;
    for (; room > 0 && !channels.isEmpty(); room--) {
      Channel fewest = channels.get(0);
      for (Channel c : channels) {
        if (c.outstanding < fewest.outstanding) {
          fewest = c;
        }
      }
      fewest.outstanding++;
      fewest.pending++;
    }
    for (Channel c : channels) {
      if (c.pending > 0) {
        c.response.write(ControlMessages.ready(
            new ControlMessages.Ready(c.pending, settings.maxConcurrency(), inFlight, c.name)));
        c.pending = 0;
      }
    }
  }

  // ---- the control path: one channel per load balancer and target group

  private static final class Channel {
    final HttpServerResponse response;
    /** What requests sent with its credits carry in {@link ControlMessages#CREDIT_HEADER}. */
    final String name;
    String node = "";
    /** Credits granted on this channel and not yet used by a request. */
    int outstanding;
    /** Credits granted and not yet written. */
    int pending;
    /** Requests that arrived with this channel's credit. */
    long arrived;
    /** Credits the load balancer spent that never arrived, granted again. */
    long lost;
    /** The spent credits of the load balancer's last report; -1 before the first. */
    long lastSpent = -1;

    Channel(HttpServerResponse response, String name) {
      this.response = response;
      this.name = name;
    }
  }

  private boolean remove(Channel channel) {
    byName.remove(channel.name);
    boolean removed = channels.remove(channel);
    openChannels = channels.size();
    return removed;
  }

  private void channel(HttpServerRequest req) {
    HttpServerResponse resp = req.response();
    if (!req.path().equals(ControlMessages.PATH)) {
      resp.putHeader("content-type", "application/grpc").putHeader("grpc-status", "12")
          .putHeader("grpc-message", "unknown method " + req.path()).end();
      return;
    }
    String type = req.getHeader("content-type");
    if (type == null || !type.startsWith("application/grpc")) {
      resp.setStatusCode(415).end();
      return;
    }
    Channel channel = new Channel(resp, "c" + (++channelsOpened));
    channels.add(channel);
    byName.put(channel.name, channel);
    openChannels = channels.size();
    resp.putHeader("content-type", "application/grpc");
    resp.writeHead();
    ControlMessages.Deframer deframer = new ControlMessages.Deframer();
    req.handler(data -> {
      try {
        deframer.feed(data, m -> {
          ControlMessages.Hello hello = ControlMessages.parseHello(m);
          if (!hello.node().isEmpty()) {
            channel.node = hello.node();
            LOG.info("target control agent: channel from {} ({})", channel.node, req.remoteAddress());
          }
          if (hello.spent() >= 0) {
            spent(channel, hello.spent());
          }
        });
      } catch (IllegalArgumentException e) {
        if (remove(channel)) {
          resp.putTrailer("grpc-status", "3").putTrailer("grpc-message", e.getMessage()).end();
          grant();
        }
      }
    });
    req.endHandler(v -> {
      if (remove(channel)) {
        resp.putTrailer("grpc-status", "0").end();
        grant();
      }
    });
    resp.closeHandler(v -> {
      if (remove(channel)) {
        LOG.info("target control agent: channel from {} closed", channel.node);
        grant();
      }
    });
    grant();
  }
}
