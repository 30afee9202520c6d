package io.fulcrum.optimizer;

import io.vertx.core.Vertx;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar fulcrum.jar target-control-agent [options]}: runs {@link TargetControlAgent} on a
 * target until the process is stopped. Each option also reads from the environment variable AWS's
 * agent uses ({@code TARGET_CONTROL_DATA_ADDRESS}, ...); an option given wins.
 */
public final class AgentCommand {

  public static final String NAME = "target-control-agent";

  static final String USAGE = """
      usage: java -jar fulcrum.jar target-control-agent [options]
        --data HOST:PORT         where the load balancer sends requests (TARGET_CONTROL_DATA_ADDRESS; default 0.0.0.0:80)
        --control HOST:PORT      the control channel, the group's TargetControlPort (TARGET_CONTROL_CONTROL_ADDRESS;
                                 default 0.0.0.0:3000)
        --destination HOST:PORT  the application (TARGET_CONTROL_DESTINATION; required)
        --max-concurrency N      the most requests the application gets at once, 1-1000
                                 (TARGET_CONTROL_MAX_CONCURRENCY; default 1)
        --tls-cert PATH          PEM certificate of the control channel (TARGET_CONTROL_TLS_CERT_PATH; default: self-signed)
        --tls-key PATH           its PEM private key (TARGET_CONTROL_TLS_KEY_PATH)""";

  private AgentCommand() {
  }

  /** Reads the settings; throws IllegalArgumentException naming the option when one is bad. */
  static TargetControlAgent.Settings parse(String[] argv, Map<String, String> env) {
    String data = env.getOrDefault("TARGET_CONTROL_DATA_ADDRESS", "0.0.0.0:80");
    String control = env.getOrDefault("TARGET_CONTROL_CONTROL_ADDRESS", "0.0.0.0:3000");
    String destination = env.get("TARGET_CONTROL_DESTINATION");
    String max = env.getOrDefault("TARGET_CONTROL_MAX_CONCURRENCY", "1");
    String cert = env.get("TARGET_CONTROL_TLS_CERT_PATH");
    String key = env.get("TARGET_CONTROL_TLS_KEY_PATH");
    for (int i = 1; i < argv.length; i++) {
      String a = argv[i];
      if (i + 1 >= argv.length) {
        throw new IllegalArgumentException("unknown or incomplete argument '" + a + "'");
      }
      String v = argv[++i];
      switch (a) {
        case "--data" -> data = v;
        case "--control" -> control = v;
        case "--destination" -> destination = v;
        case "--max-concurrency" -> max = v;
        case "--tls-cert" -> cert = v;
        case "--tls-key" -> key = v;
        default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
      }
    }
    if (destination == null) {
      throw new IllegalArgumentException("--destination (TARGET_CONTROL_DESTINATION) is required");
    }
    int concurrency;
    try {
      concurrency = Integer.parseInt(max.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--max-concurrency: '" + max + "' is not a number (expected 1-1000)");
    }
    if (concurrency < 1 || concurrency > 1000) {
      throw new IllegalArgumentException("--max-concurrency: " + concurrency + " is outside 1-1000");
    }
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException("--tls-cert and --tls-key go together");
    }
    PemKeyCertOptions tls = null;
    if (cert != null) {
      for (String f : new String[] {cert, key}) {
        if (!Files.isReadable(Path.of(f))) {
          throw new IllegalArgumentException((f.equals(cert) ? "--tls-cert" : "--tls-key") + ": cannot read " + f);
        }
      }
      tls = new PemKeyCertOptions().setCertPath(cert).setKeyPath(key);
    }
    return new TargetControlAgent.Settings(address("--data", data), address("--control", control),
        address("--destination", destination), concurrency, tls);
  }

  /** {@code host:port} or {@code [v6]:port}; port 0-65535. */
  static HostAndPort address(String option, String text) {
    int colon = text.lastIndexOf(':');
    String host = colon <= 0 ? "" : text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = -1;
    try {
      port = colon < 0 ? -1 : Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      // reported below
    }
    if (host.isEmpty() || port < 0 || port > 65535) {
      throw new IllegalArgumentException(option + ": '" + text + "' is not HOST:PORT (port 0-65535)");
    }
    return HostAndPort.create(host, port);
  }

  /** Runs the command; returns an exit code when it cannot start (it runs until the process stops). */
  public static int run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
    if (argv.length > 1 && (argv[1].equals("--help") || argv[1].equals("-h"))) {
      out.println(USAGE);
      return 0;
    }
    TargetControlAgent.Settings settings;
    try {
      settings = parse(argv, env);
    } catch (IllegalArgumentException e) {
      err.println("fulcrum: " + NAME + ": " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    Vertx vertx = Vertx.vertx();
    TargetControlAgent agent = new TargetControlAgent(settings);
    try {
      vertx.deployVerticle(agent).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      err.println("fulcrum: " + NAME + ": cannot start: " + (e.getCause() == null ? e : e.getCause()).getMessage());
      vertx.close();
      return 1;
    }
    out.println("target control agent: data :" + agent.dataPort() + " -> " + settings.destination().host() + ":"
        + settings.destination().port() + ", control :" + agent.controlPort() + " (TLS), max concurrency "
        + settings.maxConcurrency());
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        // exiting anyway
      }
    }, "agent-shutdown"));
    return -1;
  }
}
