package io.fulcrum.function;

import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.FunctionReply;
import io.fulcrum.bus.FunctionRequest;
import io.fulcrum.bus.LambdaError;
import io.fulcrum.model.FunctionDefinition;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Invokes Lambda-style function targets for every listener verticle: takes a
 * {@link FunctionRequest} on {@link Addresses#FUNCTION_INVOKE}, builds the ALB event (SPEC §6.1),
 * invokes the function of the registry the target names, and answers with a {@link FunctionReply}
 * (the response of SPEC §6.2, or the error of §6.3). Deployed once per process; its state is
 * touched only on its own context. In-process handlers block, so they run on a worker pool
 * ({@value #WORKERS} threads), each invocation bounded by its function's timeout; remote functions
 * are called with a non-blocking HTTP client.
 */
public final class FunctionInvokerVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(FunctionInvokerVerticle.class);

  /** Worker threads for in-process handlers: how many may run at once. */
  public static final int WORKERS = 64;

  private final String region;
  private final String account;
  private Map<String, FunctionDefinition> definitions;
  /** Loaded functions by name: {@link InProcessFunction} or {@link RemoteFunction}. */
  private final Map<String, Object> functions = new HashMap<>();
  /** In-process invocations running, by function name (reserved concurrency). */
  private final Map<String, AtomicInteger> running = new HashMap<>();
  private WorkerExecutor workers;
  private HttpClientAgent client;

  public FunctionInvokerVerticle(String region, String account, Map<String, FunctionDefinition> definitions) {
    this.region = region;
    this.account = account;
    this.definitions = Map.copyOf(definitions);
  }

  @Override
  public Future<?> start() {
    workers = vertx.createSharedWorkerExecutor("fulcrum-functions", WORKERS,
        FunctionDefinition.MAX_TIMEOUT_SECONDS + 60L, TimeUnit.SECONDS);
    client = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setKeepAlive(true).setDecompressionSupported(false).setTrustAll(true)
            .setVerifyHost(false).setShared(false))
        .with(new PoolOptions().setHttp1MaxSize(256).setMaxWaitQueueSize(-1))
        .build();
    return load(definitions, Map.of())
        .compose(loaded -> {
          functions.putAll(loaded);
          return vertx.eventBus().<FunctionRequest>localConsumer(Addresses.FUNCTION_INVOKE, this::invoke).completion();
        });
  }

  @Override
  public Future<?> stop() {
    functions.values().forEach(FunctionInvokerVerticle::close);
    return Future.all(client.close(), workers.close());
  }

  /**
   * Takes a new function registry (a config reload): functions whose definition is unchanged keep
   * their loaded handlers and warm instances; new and changed ones are loaded first, off the event
   * loop. Fails, changing nothing, with an {@link InvalidModelException} naming each handler that
   * cannot be loaded. Safe to call from any thread.
   */
  public Future<Void> update(Map<String, FunctionDefinition> next) {
    Promise<Void> done = Promise.promise();
    context.runOnContext(v -> {
      Map<String, Object> kept = new HashMap<>();
      Map<String, FunctionDefinition> changed = new LinkedHashMap<>();
      next.forEach((name, def) -> {
        if (def.equals(definitions.get(name)) && functions.containsKey(name)) {
          kept.put(name, functions.get(name));
        } else {
          changed.put(name, def);
        }
      });
      load(changed, kept).onFailure(done::fail).onSuccess(loaded -> {
        Map<String, Object> previous = new HashMap<>(functions);
        functions.clear();
        functions.putAll(loaded);
        previous.forEach((name, f) -> {
          if (functions.get(name) != f) {
            close(f);
          }
        });
        definitions = Map.copyOf(next);
        done.complete();
      });
    });
    return done.future();
  }

  /** Loads {@code todo} (blocking work on a worker) on top of {@code kept}. */
  private Future<Map<String, Object>> load(Map<String, FunctionDefinition> todo, Map<String, Object> kept) {
    return vertx.executeBlocking(() -> {
      Map<String, Object> out = new HashMap<>(kept);
      List<Problem> problems = new ArrayList<>();
      for (FunctionDefinition def : todo.values()) {
        if (def instanceof FunctionDefinition.Remote r) {
          out.put(def.name(), new RemoteFunction(vertx, client, r));
          continue;
        }
        try {
          out.put(def.name(), InProcessFunction.load((FunctionDefinition.InProcess) def));
        } catch (InProcessFunction.LoadException e) {
          problems.add(new Problem("functions." + def.name() + ".handler", Problem.VALIDATION_ERROR, e.getMessage()));
        }
      }
      if (!problems.isEmpty()) {
        out.values().stream().filter(f -> !kept.containsValue(f)).forEach(FunctionInvokerVerticle::close);
        throw new InvalidModelException(problems);
      }
      return out;
    }, false);
  }

  /**
   * Loads every in-process handler once and lets it go: what would stop start-up, as problems at
   * {@code functions.<name>.handler}. Blocks; for {@code Main}, before anything starts.
   */
  public static List<Problem> checkHandlers(Map<String, FunctionDefinition> definitions) {
    List<Problem> problems = new ArrayList<>();
    for (FunctionDefinition def : definitions.values()) {
      if (def instanceof FunctionDefinition.InProcess p) {
        try {
          InProcessFunction.load(p).close();
        } catch (InProcessFunction.LoadException e) {
          problems.add(new Problem("functions." + def.name() + ".handler", Problem.VALIDATION_ERROR, e.getMessage()));
        }
      }
    }
    return problems;
  }

  private static void close(Object function) {
    if (function instanceof InProcessFunction f) {
      f.close();
    }
  }

  private void invoke(Message<FunctionRequest> message) {
    FunctionRequest r = message.body();
    String name = FunctionDefinition.nameOf(r.function());
    Object function = name == null ? null : functions.get(name);
    if (function == null) {
      message.reply(FunctionReply.failed(LambdaError.RESOURCE_NOT_FOUND));
      return;
    }
    Buffer event;
    String traceId = null;
    try {
      JsonObject json = AlbEvents.event(r);
      event = json.toBuffer();
      for (Map.Entry<String, String> h : r.headers()) {
        if (h.getKey().equalsIgnoreCase("x-amzn-trace-id")) {
          traceId = h.getValue();
        }
      }
    } catch (AlbEvents.NotUtf8Exception e) {
      message.reply(FunctionReply.failed(LambdaError.BAD_REQUEST));
      return;
    }
    Future<FunctionReply> reply = function instanceof RemoteFunction remote
        ? remote.invoke(event, FunctionDefinition.qualifierOf(r.function()), r.multiValueHeaders())
        : invokeInProcess((InProcessFunction) function, r, event, traceId);
    reply.onComplete(ar -> message.reply(ar.succeeded() ? ar.result()
        : FunctionReply.failed(LambdaError.UNHANDLED_EXCEPTION)));
  }

  private Future<FunctionReply> invokeInProcess(InProcessFunction f, FunctionRequest r, Buffer event, String traceId) {
    FunctionDefinition.InProcess def = f.definition();
    AtomicInteger inFlight = running.computeIfAbsent(def.name(), k -> new AtomicInteger());
    if (def.reservedConcurrency() > 0 && inFlight.get() >= def.reservedConcurrency()) {
      return Future.succeededFuture(FunctionReply.failed(LambdaError.THROTTLING));
    }
    inFlight.incrementAndGet();
    long timeoutMillis = def.timeoutSeconds() * 1000L;
    String arn = r.function().startsWith("arn:") ? r.function() : FunctionDefinition.arn(region, account, def.name());
    LambdaContext context = new LambdaContext(def.name(), arn, def.memorySizeMb(),
        System.currentTimeMillis() + timeoutMillis, traceId);
    Promise<FunctionReply> done = Promise.promise();
    Run run = new Run();
    // Lambda ends a function that runs past its timeout with an error, and its concurrency with it: the
    // client is answered at the deadline, the slot is free again, and the worker is interrupted (a handler
    // that ignores it runs on, its late result dropped); one that has not started by then never does.
    long timer = vertx.setTimer(timeoutMillis, id -> {
      if (done.tryComplete(FunctionReply.failed(LambdaError.UNHANDLED).processed(event.length()))) {
        inFlight.decrementAndGet();
        run.deadline();
        LOG.warn("function {} (request {}) timed out after {} s", def.name(), context.getAwsRequestId(),
            def.timeoutSeconds());
      }
    });
    workers.<FunctionReply>executeBlocking(() -> {
      if (!run.start()) {
        return null; // past its deadline before a worker was free: answered already
      }
      Buffer out;
      try {
        out = f.invoke(event, context);
      } catch (Throwable t) {
        LOG.info("function {} (request {}) failed: {}", def.name(), context.getAwsRequestId(), t.toString());
        return FunctionReply.failed(LambdaError.UNHANDLED).processed(event.length());
      } finally {
        run.end();
      }
      return AlbEvents.response(out, r.multiValueHeaders()).processed(event.length() + out.length());
    }, false).onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (done.tryComplete(ar.succeeded() ? ar.result() : FunctionReply.failed(LambdaError.UNHANDLED_EXCEPTION))) {
        inFlight.decrementAndGet();
      }
    });
    return done.future();
  }

  /**
   * One in-process invocation on its worker, which its deadline stops: before it starts, or by an
   * interrupt while it runs. No interrupt outlives the invocation to reach the worker's next task.
   */
  private static final class Run {

    private static final int WAITING = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;
    private static final int INTERRUPTING = 3;
    private static final int STOPPED = 4;

    private final AtomicInteger state = new AtomicInteger(WAITING);
    private volatile Thread worker;

    /** On the worker: whether the invocation is to run (its deadline has not passed yet). */
    boolean start() {
      worker = Thread.currentThread();
      return state.compareAndSet(WAITING, RUNNING);
    }

    /** On the worker, once the handler has returned or thrown. */
    void end() {
      if (!state.compareAndSet(RUNNING, DONE)) {
        while (state.get() == INTERRUPTING) {
          Thread.onSpinWait(); // the deadline is between its decision and its interrupt: a few instructions
        }
      }
      Thread.interrupted(); // the deadline's interrupt, or the handler's own, goes no further
    }

    /** At the deadline, on the event loop. */
    void deadline() {
      if (state.compareAndSet(RUNNING, INTERRUPTING)) {
        worker.interrupt();
        state.set(STOPPED);
      } else {
        state.compareAndSet(WAITING, STOPPED);
      }
    }
  }
}
