package io.fulcrum.config;

import io.vertx.config.spi.ConfigProcessor;
import io.vertx.config.yaml.YamlProcessor;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * vertx-config's YAML format ({@value #FORMAT}), refusing a mapping that gives a key twice. YAML
 * says keys are unique, but SnakeYAML, under vertx-config-yaml, keeps the last of them without a
 * word: a second {@code attributes:} in a target group, pasted further down, would silently undo
 * the first. The file is read as vertx-config-yaml reads it; only the check comes first, which names
 * the key's path and both lines.
 */
public final class StrictYaml implements ConfigProcessor {

  /** The format name the config loader's file store uses. */
  public static final String FORMAT = "fulcrum-yaml";

  private final YamlProcessor yaml = new YamlProcessor();

  /** A key given twice in one mapping. */
  static final class DuplicateKeyException extends RuntimeException {
    /** The key's path, as the config's problems name keys ({@code load-balancers[0].listeners[1].port}). */
    final String path;

    DuplicateKeyException(String path, int firstLine, int line) {
      super("given twice (lines " + firstLine + " and " + line + "); give it once", null, false, false);
      this.path = path;
    }
  }

  /** The document is a list or a single value rather than a mapping of keys. */
  static final class NotAMappingException extends RuntimeException {
    NotAMappingException(String found) {
      super("the document is " + found + ", not a mapping of keys (expected keys such as 'load-balancers:' and"
          + " 'target-groups:')", null, false, false);
    }
  }

  @Override
  public String name() {
    return FORMAT;
  }

  @Override
  public Future<JsonObject> process(Vertx vertx, JsonObject configuration, Buffer input) {
    return vertx.<Void>executeBlocking(() -> {
      checkKeys(input.toString(StandardCharsets.UTF_8));
      return null;
    }, false).compose(v -> yaml.process(vertx, configuration, input));
  }

  /** Throws {@link DuplicateKeyException} for the first key given twice in a mapping of {@code text}. */
  static void checkKeys(String text) {
    Node root;
    try {
      root = new Yaml(new LoaderOptions()).compose(new StringReader(text));
    } catch (YAMLException e) {
      return; // not YAML, or more than one document: vertx-config-yaml's reading says why
    }
    if (root instanceof SequenceNode) {
      throw new NotAMappingException("a list");
    }
    if (root instanceof ScalarNode scalar && !scalar.getValue().isEmpty() && !"null".equals(scalar.getValue())
        && !scalar.getValue().equals("~")) {
      throw new NotAMappingException("a single value ('" + scalar.getValue() + "')");
    }
    if (root != null) {
      walk(root, "", Collections.newSetFromMap(new IdentityHashMap<>()));
    }
  }

  private static void walk(Node node, String path, Set<Node> seen) {
    if (!seen.add(node)) {
      return; // an alias of a node already checked
    }
    if (node instanceof MappingNode mapping) {
      Map<String, Integer> lines = new HashMap<>();
      for (NodeTuple t : mapping.getValue()) {
        if (!(t.getKeyNode() instanceof ScalarNode key)) {
          continue;
        }
        String at = path.isEmpty() ? key.getValue() : path + "." + key.getValue();
        int line = key.getStartMark().getLine() + 1;
        Integer first = lines.putIfAbsent(key.getValue(), line);
        if (first != null) {
          throw new DuplicateKeyException(at, first, line);
        }
        walk(t.getValueNode(), at, seen);
      }
    } else if (node instanceof SequenceNode sequence) {
      List<Node> items = sequence.getValue();
      for (int i = 0; i < items.size(); i++) {
        walk(items.get(i), path + "[" + i + "]", seen);
      }
    }
  }
}
