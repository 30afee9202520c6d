package io.fulcrum.optimizer;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.AgentChannelChange;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.time.Timers;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The load balancer's side of the target optimizer (SPEC §9): for every registered target of a
 * target group with a {@code TargetControlPort}, one control channel ({@link ControlMessages}) to
 * the agent on the target, over which the agent grants credits; a request goes to a target only
 * with one of them ({@link io.fulcrum.balancer.OptimizerChoice}). Credits land on the target's
 * {@link Upstream}, which every event loop reads; when a channel ends they are void, and it is
 * opened again after a back-off (0.5 s doubling to 8 s, on the injected clock). Channels follow
 * the data-plane snapshots: a target that leaves its group loses its channel.
 */
public final class TargetControlVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(TargetControlVerticle.class);
  static final long FIRST_BACKOFF_MILLIS = 500;
  static final long MAX_BACKOFF_MILLIS = 8_000;
  /** How often each open channel reports the credits it spent. */
  static final long REPORT_MILLIS = 1_000;

  /** The channel counters of one target group (CloudWatch's {@code TargetControl*Channel*} metrics). */
  public record ChannelCounts(String targetGroup, long active, long opened, long errors, long processedBytes) {
  }

  /**
   * What the dashboard shows of one target's agent: whether its channel is open, the credits
   * Fulcrum holds now, and the agent's maximum and requests in flight as its last message said.
   */
  public record AgentState(boolean connected, int credits, int maxConcurrency, int inFlight) {
  }

  private final Timers timers;
  private final String node;
  private final Map<String, Channel> channels = new HashMap<>();
  private final Map<String, Counters> counters = new ConcurrentHashMap<>();
  /** Every channel by group and target, for readers on other threads. */
  private final Map<String, Channel> agents = new ConcurrentHashMap<>();
  private HttpClient client;
  private long version = -1;

  public TargetControlVerticle(Timers timers) {
    this.timers = timers;
    this.node = "fulcrum/" + ManagementFactory.getRuntimeMXBean().getName();
  }

  @Override
  public Future<?> start() {
    client = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setSsl(true)
        .setUseAlpn(true).setTrustAll(true).setVerifyHost(false).setConnectTimeout(5_000));
    var updates = vertx.eventBus().<DataPlaneSnapshot>localConsumer(Addresses.SNAPSHOT, m -> apply(m.body()));
    return updates.completion()
        .compose(v -> vertx.eventBus().<DataPlaneSnapshot>request(Addresses.SNAPSHOT_CURRENT, null))
        .onSuccess(m -> apply(m.body()));
  }

  @Override
  public Future<?> stop() {
    channels.values().forEach(Channel::close);
    channels.clear();
    return client.close();
  }

  /** The channel counters by target group; readable from any thread. */
  public List<ChannelCounts> channelCounts() {
    List<ChannelCounts> out = new ArrayList<>();
    counters.forEach((arn, c) -> out.add(new ChannelCounts(arn, c.active.get(), c.opened.get(), c.errors.get(),
        c.bytes.get())));
    out.sort(java.util.Comparator.comparing(ChannelCounts::targetGroup));
    return out;
  }

  /** The agent of target {@code key} ({@code id:port}) in group {@code arn}, or null; readable from any thread. */
  public AgentState agent(String arn, String key) {
    Channel c = agents.get(arn + "\n" + key);
    if (c == null) {
      return null;
    }
    boolean open = c.connected;
    return new AgentState(open, open ? c.target.credits() : 0, c.maxConcurrency, c.inFlight);
  }

  /** Opens the channels the snapshot's groups need, and closes those it no longer needs. */
  void apply(DataPlaneSnapshot snapshot) {
    if (snapshot.version() <= version) {
      return;
    }
    version = snapshot.version();
    Map<String, Upstream> wanted = new HashMap<>();
    Map<String, TargetGroupPlan> groupOf = new HashMap<>();
    for (TargetGroupPlan plan : snapshot.groups().values()) {
      TargetGroupPlan.Optimizer o = plan.optimizer();
      if (o == null) {
        continue;
      }
      counters.computeIfAbsent(plan.arn(), a -> new Counters());
      for (Upstream u : o.targets()) {
        String key = plan.arn() + "\n" + u.key() + "\n" + o.controlPort();
        wanted.put(key, u);
        groupOf.put(key, plan);
      }
    }
    for (Iterator<Map.Entry<String, Channel>> it = channels.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Channel> e = it.next();
      if (wanted.get(e.getKey()) != e.getValue().target) {
        e.getValue().close();
        it.remove();
      }
    }
    wanted.forEach((key, u) -> {
      Channel c = channels.get(key);
      if (c == null) {
        TargetGroupPlan plan = groupOf.get(key);
        c = new Channel(plan.arn(), u, plan.optimizer().controlPort());
        c.queueing = plan.optimizer().queueMillis() > 0;
        channels.put(key, c);
        agents.put(c.agentKey, c);
        c.open();
      } else {
        c.queueing = groupOf.get(key).optimizer().queueMillis() > 0;
      }
    });
    counters.keySet().retainAll(groupOf.values().stream().map(TargetGroupPlan::arn).toList());
  }

  private static final class Counters {
    final AtomicLong active = new AtomicLong();
    final AtomicLong opened = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
  }

  /** One control channel, to one target's agent, for one target group. Runs on this verticle's context. */
  private final class Channel {
    final String arn;
    final Upstream target;
    final int port;
    final String agentKey;
    boolean queueing;
    HttpClientRequest request;
    boolean closed;
    boolean counted;
    /** Written on this verticle's context, read by {@link #agent} from any thread. */
    volatile boolean connected;
    volatile int maxConcurrency;
    volatile int inFlight;
    long backoff = FIRST_BACKOFF_MILLIS;
    /** Ends and failed opens since the channel was last open (the first is logged as a warning, the rest at debug). */
    int failures;
    /** Failed opens since the channel was last open. */
    int failedOpens;
    /** The channel opened and the journal has not heard of it yet (it does with the agent's first message). */
    boolean journalOpen;
    long retryTimer = -1;
    long reportTimer = -1;

    Channel(String arn, Upstream target, int port) {
      this.arn = arn;
      this.target = target;
      this.port = port;
      this.agentKey = arn + "\n" + target.key();
    }

    void open() {
      RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(target.address())
          .setPort(port).setURI(ControlMessages.PATH).putHeader("content-type", "application/grpc")
          .putHeader("te", "trailers");
      client.request(options).onComplete(ar -> {
        if (closed) {
          if (ar.succeeded()) {
            ar.result().reset();
          }
          return;
        }
        if (ar.failed()) {
          ended(null, "cannot connect: " + ar.cause().getMessage(), true);
          return;
        }
        HttpClientRequest req = ar.result();
        request = req;
        req.exceptionHandler(e -> ended(req, e.toString(), true));
        if (req.version() != HttpVersion.HTTP_2) {
          ended(req, "the agent does not speak HTTP/2 (ALPN h2)", true);
          req.reset();
          return;
        }
        Buffer hello = ControlMessages.hello(node);
        req.setChunked(true); // a stream without an end: no Content-Length (HTTP/2 sends no chunk framing)
        req.write(hello);
        req.response().onComplete(r -> {
          if (r.failed()) {
            ended(req, r.cause().toString(), true);
          } else {
            opened(req, r.result(), hello.length());
          }
        });
      });
    }

    void opened(HttpClientRequest req, HttpClientResponse resp, int helloBytes) {
      if (closed || request != req) {
        return;
      }
      String type = resp.getHeader("content-type");
      if (resp.statusCode() != 200 || type == null || !type.startsWith("application/grpc")) {
        ended(req, "the agent answered " + resp.statusCode() + " " + type, true);
        req.reset();
        return;
      }
      Counters c = counters.get(arn);
      if (c != null) {
        c.active.incrementAndGet();
        c.opened.incrementAndGet();
        c.bytes.addAndGet(helloBytes);
      }
      counted = true;
      backoff = FIRST_BACKOFF_MILLIS;
      connected = true;
      LOG.info("target optimizer: channel open to {}:{} for {}{}", target.address(), port, target.key(),
          failedOpens > 0 ? " after " + failedOpens + " failed attempt" + (failedOpens == 1 ? "" : "s") : "");
      failures = 0;
      failedOpens = 0;
      journalOpen = true;
      report(req, c);
      ControlMessages.Deframer deframer = new ControlMessages.Deframer();
      resp.handler(data -> {
        if (request != req) {
          return;
        }
        if (c != null) {
          c.bytes.addAndGet(data.length());
        }
        try {
          deframer.feed(data, message -> ready(ControlMessages.parseReady(message)));
        } catch (IllegalArgumentException e) {
          ended(req, "malformed message: " + e.getMessage(), true);
          req.reset();
        }
      });
      resp.endHandler(v -> {
        String status = resp.getTrailer("grpc-status");
        ended(req, "the agent ended the channel (grpc-status " + status + ")", status != null && !status.equals("0"));
      });
      resp.exceptionHandler(e -> ended(req, e.toString(), true));
    }

    /**
     * Every {@value #REPORT_MILLIS} ms while {@code req} is the channel's stream: the credits spent,
     * with which the agent finds those whose requests never arrived.
     */
    void report(HttpClientRequest req, Counters c) {
      reportTimer = timers.setTimer(REPORT_MILLIS, id -> {
        reportTimer = -1;
        if (closed || request != req) {
          return;
        }
        Buffer report = ControlMessages.report(target.creditsSpent());
        req.write(report);
        if (c != null) {
          c.bytes.addAndGet(report.length());
        }
        report(req, c);
      });
    }

    void ready(ControlMessages.Ready r) {
      if (journalOpen) {
        journalOpen = false;
        vertx.eventBus().publish(Addresses.OPTIMIZER_CHANNELS, new AgentChannelChange(arn, target.key(), true,
            "agent at " + target.address() + ":" + port + ", max concurrency " + r.maxConcurrency(), timers.now()));
      }
      if (!r.channel().isEmpty()) {
        target.creditChannel(r.channel());
      }
      if (r.ready() > 0) {
        target.grantCredits(r.ready());
        if (queueing) {
          vertx.eventBus().publish(Addresses.OPTIMIZER_CREDITS, arn);
        }
      }
      maxConcurrency = r.maxConcurrency();
      inFlight = r.inFlight();
    }

    /**
     * The channel's stream {@code req} (null: none was made) is over; its credits go, and the
     * channel opens again after the back-off. Reports of a stream already over (its error and its
     * end both report) change nothing.
     */
    void ended(HttpClientRequest req, String why, boolean error) {
      if (closed || req != request || retryTimer != -1) {
        return;
      }
      request = null;
      if (reportTimer != -1) {
        timers.cancelTimer(reportTimer);
        reportTimer = -1;
      }
      target.revokeCredits();
      connected = false;
      Counters c = counters.get(arn);
      if (c != null) {
        if (counted) {
          c.active.decrementAndGet();
        }
        if (error) {
          c.errors.incrementAndGet();
        }
      }
      if (!counted) {
        failedOpens++;
      }
      counted = false;
      failures++;
      if (failures == 1) {
        vertx.eventBus().publish(Addresses.OPTIMIZER_CHANNELS,
            new AgentChannelChange(arn, target.key(), false, why, timers.now()));
        LOG.warn("target optimizer: channel to {}:{} for {}: {}; again in {} ms", target.address(), port,
            target.key(), why, backoff);
      } else {
        LOG.debug("target optimizer: channel to {}:{} for {}: {} (attempt {}); again in {} ms", target.address(),
            port, target.key(), why, failures, backoff);
      }
      long delay = backoff;
      backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
      retryTimer = timers.setTimer(delay, id -> {
        retryTimer = -1;
        if (!closed) {
          open();
        }
      });
    }

    /** The target left its group (or Fulcrum stops): the channel closes for good. */
    void close() {
      if (closed) {
        return;
      }
      closed = true;
      if (retryTimer != -1) {
        timers.cancelTimer(retryTimer);
      }
      if (reportTimer != -1) {
        timers.cancelTimer(reportTimer);
      }
      HttpClientRequest req = request;
      request = null;
      if (req != null) {
        req.reset();
      }
      Counters c = counters.get(arn);
      if (counted && c != null) {
        c.active.decrementAndGet();
      }
      target.revokeCredits();
      connected = false;
      agents.remove(agentKey, this);
    }
  }
}
