package io.fulcrum.testing;

import io.fulcrum.bootstrap.Fulcrum;
import io.fulcrum.config.ConfigParser;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problems;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Fulcrum deployed in-process exactly as {@code Main} deploys it, from a YAML config given as
 * text. The control plane, and the DNS responder unless the config gives its port, bind free ports.
 */
public final class Gateway implements AutoCloseable {

  private final Vertx vertx;
  private final Fulcrum fulcrum;

  private Gateway(Vertx vertx, Fulcrum fulcrum) {
    this.vertx = vertx;
    this.fulcrum = fulcrum;
  }

  /**
   * A gateway for data-path tests: real clock, one listener instance, and the control plane's
   * timers frozen, so no health check reaches the test's backends (targets stay initial and the
   * group fails open to all of them). Tests of health and draining pass a {@link VirtualTime}.
   */
  public static Gateway start(Vertx vertx, String yaml) {
    return start(vertx, yaml, 1, Clock.systemUTC());
  }

  /** Like {@link #start(Vertx, String)} with {@code instances} listener verticles and the given clock. */
  public static Gateway start(Vertx vertx, String yaml, int instances, Clock clock) {
    return new Gateway(vertx, Await.result(Fulcrum.start(vertx, fresh(config(yaml)), instances, clock,
        new VirtualTime())));
  }

  /** A gateway whose control plane runs on virtual time (health checks, deregistration delays). */
  public static Gateway start(Vertx vertx, String yaml, int instances, VirtualTime time) {
    return new Gateway(vertx, Await.result(Fulcrum.start(vertx, fresh(config(yaml)), instances, time, time)));
  }

  /**
   * The config, its journal started afresh when its data dir is the one tests share (each test's
   * gateway would otherwise begin with the events of the tests before it).
   */
  private static FulcrumConfig fresh(FulcrumConfig config) {
    if (config.dataDir().equals(SHARED_DATA_DIR)) {
      try {
        java.nio.file.Files.deleteIfExists(SHARED_DATA_DIR.resolve("journal.jsonl"));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    return config;
  }

  private static final Path SHARED_DATA_DIR = Path.of("target", "test-data");

  /**
   * Waits until the registry has taken in every health decision made so far and every listener
   * verticle routes by the resulting snapshot.
   */
  public void awaitDataPlane() {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
        .until(fulcrum::registryCaughtUpWithHealth);
    long version = Await.result(fulcrum.snapshotVersion());
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
        .until(() -> fulcrum.appliedVersion() >= version);
  }

  /** Parses and validates a config; throws {@link InvalidModelException} listing the problems. */
  public static FulcrumConfig config(String yaml) {
    JsonObject json = yamlToJson(yaml);
    if (!json.containsKey("control")) {
      json.put("control", new JsonObject().put("port", 0));
    }
    // Not the fixed 8053: tests (and builds in other checkouts) run side by side.
    JsonObject dns = json.getValue("dns") instanceof JsonObject o ? o : new JsonObject();
    if (!dns.containsKey("port")) {
      json.put("dns", dns.put("port", 0));
    }
    // Shared for generated certificates and keys; but when the API owns the resources each gateway
    // gets a data dir of its own, or one test's persisted state would be the next one's start.
    Path dataDir = SHARED_DATA_DIR;
    if (!json.containsKey("data-dir") && json.getValue("resources") instanceof JsonObject r
        && "api".equals(r.getString("source"))) {
      try {
        dataDir = java.nio.file.Files.createTempDirectory(Path.of("target").toAbsolutePath(), "test-state");
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    Problems problems = new Problems();
    FulcrumConfig config = ConfigParser.parse(json, problems, dataDir);
    if (!problems.isEmpty()) {
      throw new InvalidModelException(problems.list());
    }
    return config;
  }

  /** YAML text as the JSON the config parser reads (the same library vertx-config uses). */
  public static JsonObject yamlToJson(String yaml) {
    Object doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    @SuppressWarnings("unchecked")
    Map<String, Object> map = doc == null ? new LinkedHashMap<>() : (Map<String, Object>) doc;
    return new JsonObject(map);
  }

  /**
   * Applies a new config and waits until the health checker watches it too, so that virtual time
   * advanced afterwards runs the checks of newly registered targets.
   */
  public void reload(String yaml) {
    Await.result(fulcrum.reload(config(yaml)));
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(fulcrum::healthCheckerCaughtUp);
  }

  public Fulcrum fulcrum() {
    return fulcrum;
  }

  /** The gateway's own Vert.x instance (its event bus carries the exchange outcomes). */
  public Vertx vertx() {
    return vertx;
  }

  public int controlPort() {
    return fulcrum.controlPort();
  }

  /** The DNS responder's UDP port (on {@code dns.address}, by default 127.0.0.1). */
  public int dnsPort() {
    return fulcrum.dnsPort();
  }

  @Override
  public void close() {
    // Each gateway has its own Vert.x instance, closed with it.
    Await.result(fulcrum.shutdown());
    Await.result(vertx.close());
  }
}
