package io.fulcrum.bootstrap;

import java.nio.file.Path;

/** Command-line arguments: {@code [--config PATH] [--instances N] [--help]}. */
record Args(Path config, int instances, boolean help) {

  static final String USAGE = """
      usage: java -jar fulcrum.jar [--config PATH] [--instances N]
        --config PATH    the configuration file (default conf/fulcrum.yaml)
        --instances N    listener verticle instances, one per event loop (default: number of cores)
        --help           this text
      Or: java -jar fulcrum.jar rotate-stickiness-key [--config PATH | --data-dir DIR]
      Or: java -jar fulcrum.jar target-control-agent --destination HOST:PORT [...] (--help for its options)
      Environment: FULCRUM_DATA_DIR, FULCRUM_<KEY>__<SUBKEY>=value overrides (see docs/configuration.md)""";

  static Args parse(String[] argv) {
    Path config = Path.of("conf", "fulcrum.yaml");
    int instances = Runtime.getRuntime().availableProcessors();
    boolean help = false;
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      switch (a) {
        case "--config" -> config = Path.of(value(argv, ++i, a));
        case "--instances" -> {
          String v = value(argv, ++i, a);
          try {
            instances = Integer.parseInt(v);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--instances: '" + v + "' is not a number (expected 1-256)");
          }
          if (instances < 1 || instances > 256) {
            throw new IllegalArgumentException("--instances: " + instances + " is outside 1-256");
          }
        }
        case "--help", "-h" -> help = true;
        default -> {
          if (a.startsWith("--config=")) {
            config = Path.of(a.substring("--config=".length()));
          } else {
            throw new IllegalArgumentException("unknown argument '" + a + "'");
          }
        }
      }
    }
    return new Args(config, instances, help);
  }

  private static String value(String[] argv, int i, String flag) {
    if (i >= argv.length) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return argv[i];
  }
}
