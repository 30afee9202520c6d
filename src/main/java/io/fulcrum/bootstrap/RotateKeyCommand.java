package io.fulcrum.bootstrap;

import io.fulcrum.config.ConfigLoader;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.keys.KeyRingFile;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.sticky.KeyRing;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code java -jar fulcrum.jar rotate-stickiness-key [--config PATH | --data-dir DIR]}: adds a new
 * random key in front of the stickiness key ring in the data dir, keeps the newest
 * {@link KeyRingFile#KEEP}, and exits. A running Fulcrum picks the new ring up within its scan
 * period: new cookies are sealed with the new key, cookies sealed with the kept older keys still
 * open.
 */
final class RotateKeyCommand {

  static final String NAME = "rotate-stickiness-key";

  static final String USAGE = """
      usage: java -jar fulcrum.jar rotate-stickiness-key [--config PATH | --data-dir DIR]
        --config PATH    the configuration file whose data-dir holds the keys (default conf/fulcrum.yaml)
        --data-dir DIR   the data dir itself (the configuration is then not read)""";

  private RotateKeyCommand() {
  }

  /** Runs the command; returns the exit code. */
  static int run(String[] argv, Map<String, String> env, PrintStream out, PrintStream err) {
    Path config = Path.of("conf", "fulcrum.yaml");
    Path dataDir = null;
    for (int i = 1; i < argv.length; i++) {
      String a = argv[i];
      if ((a.equals("--config") || a.equals("--data-dir")) && i + 1 < argv.length) {
        Path p = Path.of(argv[++i]);
        if (a.equals("--config")) {
          config = p;
        } else {
          dataDir = p;
        }
      } else if (a.equals("--help") || a.equals("-h")) {
        out.println(USAGE);
        return 0;
      } else {
        err.println("fulcrum: " + NAME + ": unknown or incomplete argument '" + a + "'");
        err.println(USAGE);
        return Main.EXIT_CONFIG;
      }
    }
    if (dataDir == null) {
      try {
        dataDir = dataDir(config, env);
      } catch (InvalidModelException e) {
        Main.report(err, config.toString(), e.problems());
        return Main.EXIT_CONFIG;
      } catch (Exception e) {
        err.println("fulcrum: cannot load " + config + ": " + e.getMessage());
        return Main.EXIT_CONFIG;
      }
    }
    Path file = KeyRingFile.in(dataDir);
    boolean existed = java.nio.file.Files.exists(file);
    try {
      KeyRing ring = KeyRingFile.rotate(file, new SecureRandom(), KeyRingFile.KEEP);
      if (!existed) {
        // A data dir given wrong (another working directory, a typo) would otherwise pass for a rotation.
        err.println("fulcrum: " + NAME + ": there was no key ring at " + file + ": a new one was made. A Fulcrum"
            + " running with another data dir reads nothing of it.");
      }
      out.println("fulcrum: " + file + ": new key " + ring.newest() + " seals new stickiness cookies; keys kept: "
          + ring.keys().stream().map(Object::toString).collect(Collectors.joining(" ")));
      out.println("A running Fulcrum reads the file again within its reload scan period.");
      return 0;
    } catch (IOException e) {
      err.println("fulcrum: cannot rotate the stickiness keys: " + e.getMessage());
      return Main.EXIT_START;
    }
  }

  private static Path dataDir(Path config, Map<String, String> env) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      FulcrumConfig c = new ConfigLoader(vertx, config, env).load().toCompletionStage().toCompletableFuture()
          .get(30, TimeUnit.SECONDS);
      return c.dataDir();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      vertx.close();
    }
  }
}
