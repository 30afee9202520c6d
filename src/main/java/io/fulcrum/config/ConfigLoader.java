package io.fulcrum.config;

import io.fulcrum.model.Certificate;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Problems;
import io.fulcrum.model.TrustStore;
import io.fulcrum.tls.ClientCertificateVerifier;
import io.fulcrum.tls.FileDigest;
import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the config file through vertx-config (a YAML file store and an environment store), applies
 * {@code FULCRUM_*} overrides, and validates. Also watches the file for hot reload.
 *
 * <p>Environment overrides: {@code FULCRUM_} followed by the key path in upper case, with
 * {@code __} between levels, {@code _} for {@code -}, and list indexes as numbers:
 * {@code FULCRUM_CONTROL__PORT=9191} sets {@code control.port},
 * {@code FULCRUM_NODES__0__ADDRESS=10.0.0.5} sets {@code nodes[0].address},
 * {@code FULCRUM_DATA_DIR=/var/lib/fulcrum} sets {@code data-dir}. A value for a list of scalars
 * ({@code FULCRUM_VPC_CIDRS=10.0.0.0/8,192.168.0.0/16}) is split on commas, whether or not the file
 * has the list. Variables whose first segment is not a top-level key are ignored.
 */
public final class ConfigLoader {

  public static final String ENV_PREFIX = "FULCRUM_";

  /** The top-level keys of the config file, which environment overrides may set. */
  public static final Set<String> TOP_LEVEL_KEYS = Set.of("region", "account", "nodes", "vpc-cidrs", "instances",
      "control", "dns", "credentials", "resources", "data-dir", "reload", "shutdown", "random-seed", "demo", "target-groups",
      "load-balancers", "functions", "cluster", "trust-stores", "certificates", "jwks", "oidc");

  /** Keys whose value is a list of scalars, which an override gives as a comma-separated list. */
  static final Set<String> SCALAR_LIST_KEYS = Set.of("vpc-cidrs", "zones", "members");

  private static final Logger LOG = LoggerFactory.getLogger(ConfigLoader.class);

  private final Vertx vertx;
  private final Path file;
  private final Map<String, String> env;
  private final Path defaultDataDir;
  private ConfigRetriever watcher;
  /** The document {@link #load} last read, which the configuration in force was made from; null before. */
  private JsonObject loaded;
  /**
   * The configuration in force as this loader knows it (loaded, or the last change delivered), and
   * the document it was made from: what is read again when a file it names changes. Guarded by this.
   */
  private FulcrumConfig current;
  private JsonObject currentJson;
  /** The periodic check of the files the configuration names (trust stores', certificates'); -1 while not watching. */
  private long filesTimer = -1;
  private final AtomicBoolean checkingFiles = new AtomicBoolean();
  /** The digests of named files whose new contents were refused, not reported again until they change. */
  private volatile String refusedFiles;
  /**
   * The file's successful reads and failed ones (a scan each), and the failure last reported with
   * the reads there had been then: a file that stays missing or unreadable is reported once, not at
   * every scan, and again once it has been read in between.
   */
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong failedReads = new AtomicLong();
  private List<Problem> unreadableReported;
  private long readsAtReport = -1;
  /** The named files' modification times and sizes at the last check: only a file whose stamp moved is read. */
  private final Map<String, String> fileStamps = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param file the YAML file
   * @param env  the process environment (injected so tests can set overrides)
   */
  public ConfigLoader(Vertx vertx, Path file, Map<String, String> env) {
    this.vertx = vertx;
    this.file = file;
    this.env = Map.copyOf(env);
    this.defaultDataDir = Path.of("data");
  }

  /** Reads and validates the file once; fails with {@link InvalidModelException} listing every problem. */
  public Future<FulcrumConfig> load() {
    ConfigRetriever retriever = retriever(0);
    return retriever.getConfig()
        .transform(ar -> {
          retriever.close();
          if (ar.failed()) {
            return Future.failedFuture(unreadable(ar.cause()));
          }
          loaded = ar.result().copy();
          JsonObject json = ar.result().copy();
          return validate(ar.result()).onSuccess(c -> inForce(c, json));
        });
  }

  private synchronized void inForce(FulcrumConfig config, JsonObject json) {
    current = config;
    currentJson = json;
  }

  /**
   * Re-reads the file every {@code periodMillis}; each changed, valid version goes to
   * {@code onChange}, each invalid one to {@code onInvalid} (and the running configuration stays).
   *
   * <p>The watcher first reads the file as it is, and only later edits count as changes; but when
   * {@link #load} read it before and it has been edited since (during start-up), that edit is
   * delivered too.
   *
   * <p>The files the configuration names whose contents Fulcrum keeps (trust stores' CA bundles and
   * revocation lists, listeners' certificates and keys) are looked at every period too, off the
   * event loop: when one has changed, the file is read again and the configuration it gives is
   * delivered, so that a revocation list or a renewed certificate replaced in place applies without
   * an edit of the file.
   *
   * @return completes once the file as it is now has been read (or found unreadable): the edits
   *         delivered are those made after that
   */
  public Future<Void> watch(long periodMillis, Consumer<FulcrumConfig> onChange, Consumer<List<Problem>> onInvalid) {
    stopWatching();
    ConfigRetriever retriever = retriever(periodMillis);
    watcher = retriever;
    retriever.configStream().exceptionHandler(e -> {
      List<Problem> problems = unreadable(e).problems();
      failedReads.incrementAndGet();
      synchronized (this) {
        if (problems.equals(unreadableReported) && reads.get() == readsAtReport) {
          return; // the same failure as at the last scan, nothing read in between: said once
        }
        unreadableReported = problems;
        readsAtReport = reads.get();
      }
      onInvalid.accept(problems);
    });
    Consumer<List<Problem>> refused = onInvalid;
    Consumer<JsonObject> edited = json -> {
      JsonObject document = json.copy();
      validateEdit(json)
          .onSuccess(c -> {
            synchronized (this) {
              inForce(c, document);
              onChange.accept(c);
            }
          })
          .onFailure(e -> refused.accept(problems(e)));
    };
    filesTimer = vertx.setPeriodic(periodMillis, id -> checkFiles(onChange, onInvalid));
    return retriever.getConfig().transform(primed -> {
      if (primed.succeeded() && loaded != null && !primed.result().equals(loaded)) {
        edited.accept(primed.result());
      } else if (primed.succeeded() && loaded == null) {
        // Watched without a load: the file as it is now is the baseline of the named files' checks.
        JsonObject document = primed.result().copy();
        validate(primed.result().copy()).onSuccess(c -> inForce(c, document));
      }
      retriever.listen(change -> edited.accept(change.getNewConfiguration()));
      return Future.succeededFuture();
    });
  }

  private List<Problem> problems(Throwable e) {
    return e instanceof InvalidModelException ime ? ime.problems()
        : List.of(new Problem(file.toString(), Problem.VALIDATION_ERROR, String.valueOf(e.getMessage())));
  }

  /**
   * Reads the trust stores' and certificates' files again when their contents differ from what the
   * configuration in force was made with, and delivers the configuration the file then gives; one check at a time.
   */
  private void checkFiles(Consumer<FulcrumConfig> onChange, Consumer<List<Problem>> onInvalid) {
    FulcrumConfig config;
    JsonObject json;
    synchronized (this) {
      config = current;
      json = currentJson;
    }
    if (config == null || watchedFiles(config).isEmpty() || !checkingFiles.compareAndSet(false, true)) {
      return;
    }
    vertx.<String>executeBlocking(() -> {
      if (!stampsMoved(config)) {
        return null; // nothing touched since the last look: nothing is read (a list can be large)
      }
      StringBuilder now = new StringBuilder();
      boolean changed = false;
      for (TrustStore t : config.environment().trustStores().values()) {
        String digest = ClientCertificateVerifier.digest(t);
        changed |= !digest.equals(t.digest());
        now.append(digest);
      }
      for (Certificate c : config.certificates()) {
        if (!c.selfSigned()) {
          String digest = FileDigest.of(c.files());
          changed |= !digest.equals(config.environment().certificateDigests().get(c.arn()));
          now.append(digest);
        }
      }
      return changed ? now.toString() : null;
    }).compose(now -> now == null || now.equals(refusedFiles) ? Future.succeededFuture()
        : validate(json.copy()).transform(ar -> {
          if (ar.failed()) {
            refusedFiles = now;
            onInvalid.accept(problems(ar.cause()));
            return Future.succeededFuture();
          }
          synchronized (this) {
            if (current == config) { // not edited meanwhile: the edit has read the files itself
              LOG.info("a trust store's or a certificate's files changed: {} read again", file);
              inForce(ar.result(), json);
              onChange.accept(ar.result());
            }
          }
          return Future.succeededFuture();
        })).onComplete(ar -> checkingFiles.set(false));
  }

  /** The files whose contents the configuration keeps: trust stores' CA bundles and revocation lists, certificates'. */
  private static Set<String> watchedFiles(FulcrumConfig config) {
    Set<String> files = new LinkedHashSet<>();
    for (TrustStore t : config.environment().trustStores().values()) {
      files.add(t.caCertificates());
      files.addAll(t.revocationFiles());
    }
    config.certificates().forEach(c -> files.addAll(c.files()));
    return files;
  }

  /** Whether a watched file's modification time or size moved since the last look (the first look: yes). */
  private boolean stampsMoved(FulcrumConfig config) {
    boolean moved = false;
    for (String f : watchedFiles(config)) {
      String stamp;
      try {
        Path p = Path.of(f);
        stamp = Files.getLastModifiedTime(p).toMillis() + ":" + Files.size(p);
      } catch (IOException e) {
        stamp = "unreadable";
      }
      moved |= !stamp.equals(fileStamps.put(f, stamp));
    }
    return moved;
  }

  public void stopWatching() {
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
    if (filesTimer != -1) {
      vertx.cancelTimer(filesTimer);
      filesTimer = -1;
    }
  }

  public Path file() {
    return file;
  }

  /** How many times the file has been read, and failed to be (a scan each); for tests to know scans happened. */
  long reads() {
    return reads.get();
  }

  long failedReads() {
    return failedReads.get();
  }

  /**
   * An edit of a running configuration: like start-up, except that a file with nothing in it is
   * refused. An editor that truncates before writing would otherwise make Fulcrum drop every load
   * balancer for a moment.
   */
  private Future<FulcrumConfig> validateEdit(JsonObject json) {
    if (json.remove(EMPTY_FILE_KEY) != null) {
      return Future.failedFuture(new InvalidModelException(List.of(new Problem(file.toString(),
          Problem.VALIDATION_ERROR, "the file is empty (perhaps still being written); the running configuration stays"))));
    }
    return validate(json);
  }

  /**
   * Parses off the event loop: checking the file reads the files it names (trust stores' CA bundles
   * and revocation lists, certificates, function jars). Ordered, so edits are delivered in the order they were read.
   */
  private Future<FulcrumConfig> validate(JsonObject json) {
    json.remove(EMPTY_FILE_KEY);
    return vertx.executeBlocking(() -> {
      Problems problems = new Problems();
      FulcrumConfig config = ConfigParser.parse(json, problems, defaultDataDir);
      if (!problems.isEmpty()) {
        throw new InvalidModelException(problems.list());
      }
      return config;
    });
  }

  private InvalidModelException unreadable(Throwable cause) {
    for (Throwable c = cause; c != null; c = c.getCause()) {
      if (c instanceof StrictYaml.DuplicateKeyException d) {
        return new InvalidModelException(List.of(new Problem(d.path, Problem.VALIDATION_ERROR, d.getMessage())));
      }
    }
    String reason = cause.getMessage();
    Throwable c = cause;
    while (c.getCause() != null) {
      c = c.getCause();
      reason = c.getMessage() != null ? c.getMessage() : reason;
    }
    if (c instanceof java.nio.file.NoSuchFileException || c instanceof java.io.FileNotFoundException) {
      reason = "the file does not exist";
    }
    return new InvalidModelException(List.of(new Problem(file.toString(), Problem.VALIDATION_ERROR,
        "cannot read the configuration: " + reason)));
  }

  private ConfigRetriever retriever(long scanPeriod) {
    List<String> keys = env.keySet().stream().filter(k -> k.startsWith(ENV_PREFIX)).sorted().toList();
    ConfigRetrieverOptions options = new ConfigRetrieverOptions()
        .setIncludeDefaultStores(false)
        .setScanPeriod(scanPeriod)
        .addStore(new ConfigStoreOptions().setType("file").setFormat(StrictYaml.FORMAT)
            .setConfig(new JsonObject().put("path", file.toString())))
        .addStore(new ConfigStoreOptions().setType("json")
            .setConfig(new JsonObject().put(ENV_STORE_KEY, envJson(keys))));
    ConfigRetriever r = ConfigRetriever.create(vertx, options);
    r.setConfigurationProcessor(json -> {
      reads.incrementAndGet();
      return applyEnvironment(json);
    });
    return r;
  }

  /** Marks a document that had nothing in it before environment overrides. */
  private static final String EMPTY_FILE_KEY = "$fulcrum-empty-file";

  /** The key under which the environment overrides ride through the retriever's merge. */
  private static final String ENV_STORE_KEY = "$fulcrum-env";

  private JsonObject envJson(List<String> keys) {
    JsonObject o = new JsonObject();
    keys.forEach(k -> o.put(k, env.get(k)));
    return o;
  }

  /** Applies the {@code FULCRUM_*} overrides carried under {@link #ENV_STORE_KEY} to the file's content. */
  static JsonObject applyEnvironment(JsonObject merged) {
    JsonObject overrides = (JsonObject) merged.remove(ENV_STORE_KEY);
    if (merged.isEmpty()) {
      merged.put(EMPTY_FILE_KEY, true);
    }
    if (overrides == null) {
      return merged;
    }
    for (String name : overrides.fieldNames()) {
      List<String> path = envPath(name);
      if (path.isEmpty() || !TOP_LEVEL_KEYS.contains(path.get(0))) {
        LOG.debug("ignoring environment variable {}: not a config key", name);
        continue;
      }
      set(merged, path, overrides.getString(name));
    }
    return merged;
  }

  /** {@code FULCRUM_NODES__0__ADDRESS} → {@code [nodes, 0, address]}. */
  static List<String> envPath(String name) {
    // The API's key pair has the names AWS tools use for theirs.
    if (name.equals(ENV_PREFIX + "ACCESS_KEY_ID")) {
      return List.of("credentials", "access-key-id");
    }
    if (name.equals(ENV_PREFIX + "SECRET_ACCESS_KEY")) {
      return List.of("credentials", "secret-access-key");
    }
    String rest = name.substring(ENV_PREFIX.length());
    List<String> out = new ArrayList<>();
    for (String seg : rest.split("__", -1)) {
      if (seg.isEmpty()) {
        return List.of();
      }
      out.add(seg.toLowerCase(Locale.ROOT).replace('_', '-'));
    }
    return out;
  }

  private static void set(JsonObject root, List<String> path, String value) {
    Object container = root;
    for (int i = 0; i < path.size(); i++) {
      String seg = path.get(i);
      boolean last = i == path.size() - 1;
      if (container instanceof JsonObject o) {
        if (last) {
          Object existing = o.getValue(seg);
          o.put(seg, existing instanceof JsonArray || SCALAR_LIST_KEYS.contains(seg) ? splitList(value) : value);
          return;
        }
        Object next = o.getValue(seg);
        if (next == null) {
          next = isIndex(path.get(i + 1)) ? new JsonArray() : new JsonObject();
          o.put(seg, next);
        }
        container = next;
      } else if (container instanceof JsonArray a && isIndex(seg)) {
        int idx = Integer.parseInt(seg);
        while (a.size() <= idx) {
          a.add(new JsonObject());
        }
        if (last) {
          a.set(idx, value);
          return;
        }
        container = a.getValue(idx);
      } else {
        LOG.warn("ignoring environment override of {}: the config has no such structure", String.join(".", path));
        return;
      }
    }
  }

  private static JsonArray splitList(String value) {
    JsonArray a = new JsonArray();
    for (String s : value.split(",")) {
      if (!s.isBlank()) {
        a.add(s.trim());
      }
    }
    return a;
  }

  private static boolean isIndex(String seg) {
    return !seg.isEmpty() && seg.chars().allMatch(Character::isDigit);
  }
}
