package io.fulcrum.bootstrap;

import io.fulcrum.config.ConfigLoader;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.function.FunctionInvokerVerticle;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.fulcrum.registry.StateStore;
import io.fulcrum.tls.TlsEngine;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.transport.Transport;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar fulcrum.jar [--config PATH] [--instances N]}: loads and validates the config
 * (exit code 2 with every problem listed when it is bad; nothing starts), deploys Fulcrum, prints
 * the banner, watches the file for changes, and shuts down gracefully on SIGTERM (exit code 0).
 * {@code java -jar fulcrum.jar rotate-stickiness-key} rotates the stickiness key ring and exits
 * ({@link RotateKeyCommand}); {@code java -jar fulcrum.jar target-control-agent} runs the target
 * optimizer's agent on a target ({@link io.fulcrum.optimizer.AgentCommand}).
 */
public final class Main {

  /** A bad command line, configuration or persisted state file. */
  public static final int EXIT_CONFIG = 2;
  /** Start-up failed for another reason (a port in use, ...). */
  public static final int EXIT_START = 1;

  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private Main() {
  }

  public static void main(String[] argv) {
    PrintStream err = System.err;
    if (argv.length > 0 && argv[0].equals(RotateKeyCommand.NAME)) {
      System.exit(RotateKeyCommand.run(argv, System.getenv(), System.out, err));
      return;
    }
    if (argv.length > 0 && argv[0].equals(io.fulcrum.optimizer.AgentCommand.NAME)) {
      int code = io.fulcrum.optimizer.AgentCommand.run(argv, System.getenv(), System.out, err);
      if (code >= 0) {
        System.exit(code);
      }
      return; // the agent runs until the process is stopped
    }
    Args args;
    try {
      args = Args.parse(argv);
    } catch (IllegalArgumentException e) {
      err.println("fulcrum: " + e.getMessage());
      err.println(Args.USAGE);
      System.exit(EXIT_CONFIG);
      return;
    }
    if (args.help()) {
      System.out.println(Args.USAGE);
      return;
    }

    Transport transport;
    TlsEngine tls;
    CpuAffinity affinity;
    try {
      transport = NetworkTransport.choose(System.getenv());
      tls = TlsEngine.choose(System.getenv());
      affinity = CpuAffinity.choose(System.getenv());
    } catch (IllegalArgumentException e) {
      err.println("fulcrum: " + e.getMessage() + "; nothing was started");
      System.exit(EXIT_CONFIG);
      return;
    }
    LOG.info("network transport: {}", transport.name());
    TlsEngine.use(tls);
    LOG.info("TLS: {}", tls.description());
    Vertx vertx = NetworkTransport.vertx(transport, affinity.eventLoops(VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE));
    if (affinity.enabled()) {
      try {
        List<Integer> cpus = affinity.pin(vertx).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        LOG.info("event loops pinned to CPUs ({}={}): {}", CpuAffinity.ENV, affinity,
            cpus.stream().map(String::valueOf).collect(Collectors.joining(" ")));
      } catch (Exception e) {
        Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
        err.println("fulcrum: " + cause.getMessage() + "; nothing was started");
        vertx.close();
        System.exit(EXIT_CONFIG);
        return;
      }
    }
    ConfigLoader loader = new ConfigLoader(vertx, args.config(), System.getenv());
    FulcrumConfig config;
    try {
      config = loader.load().toCompletionStage().toCompletableFuture().get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof InvalidModelException ime) {
        report(err, args.config().toString(), ime.problems());
      } else {
        err.println("fulcrum: cannot load " + args.config() + ": " + e.getCause());
      }
      vertx.close();
      System.exit(EXIT_CONFIG);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }

    // Function handlers are part of the configuration: one that cannot be loaded stops start-up
    // like any other problem, before anything binds or is written.
    List<Problem> handlers = FunctionInvokerVerticle.checkHandlers(config.environment().functions());
    if (!handlers.isEmpty()) {
      report(err, args.config().toString(), handlers);
      vertx.close();
      System.exit(EXIT_CONFIG);
      return;
    }

    Fulcrum fulcrum;
    try {
      Files.createDirectories(config.dataDir());
      fulcrum = Fulcrum.start(vertx, config, args.instances(), Clock.systemUTC())
          .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      vertx.close();
      if (cause instanceof InvalidModelException ime) {
        // A torn or corrupt state file, or a function handler that cannot be loaded: as bad as a bad
        // config file (the state file is left as it is).
        String source = ime.problems().stream().anyMatch(p -> p.path().startsWith("functions")) ? args.config().toString()
            : config.dataDir().resolve(StateStore.FILE).toString();
        report(err, source, ime.problems());
        System.exit(EXIT_CONFIG);
        return;
      }
      err.println("fulcrum: start-up failed: " + cause.getMessage());
      System.exit(EXIT_START);
      return;
    }

    System.out.println(Banner.render(config, fulcrum.registry().resources(), fulcrum.controlPort(), fulcrum.dnsPort(), args.instances(), args.config().toString()));
    System.out.flush();

    if (config.reload().enabled()) {
      Consumer<List<Problem>> refused = problems -> {
        LOG.error("{} changed but is invalid; the running configuration stays. {} problem{}:", args.config(),
            problems.size(), problems.size() == 1 ? "" : "s");
        problems.forEach(p -> LOG.error("  {}", p));
      };
      loader.watch(config.reload().scanPeriodMillis(),
          next -> fulcrum.reload(next).onFailure(e -> {
            if (e instanceof InvalidModelException ime) {
              refused.accept(ime.problems());
            } else {
              LOG.error("applying {} failed: {}", args.config(), e.toString());
            }
          }),
          refused);
    }

    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      LOG.info("shutting down: no new connections; in-flight requests have {} s to finish",
          fulcrum.config().shutdownTimeoutSeconds());
      loader.stopWatching();
      try {
        fulcrum.shutdown().toCompletionStage().toCompletableFuture()
            .get(fulcrum.config().shutdownTimeoutSeconds() + 10L, TimeUnit.SECONDS);
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        LOG.info("stopped");
      } catch (Exception e) {
        LOG.warn("shutdown did not complete cleanly: {}", e.toString());
      }
      // A signal-initiated exit would report 143; a graceful stop is a success.
      Runtime.getRuntime().halt(0);
    }, "fulcrum-shutdown"));
  }

  static void report(PrintStream err, String file, List<Problem> problems) {
    err.println("fulcrum: " + file + " has " + problems.size() + " problem" + (problems.size() == 1 ? "" : "s")
        + "; nothing was started:");
    for (Problem p : problems) {
      err.println("  " + p);
    }
  }
}
