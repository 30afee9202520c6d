package io.fulcrum.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Problem;
import io.fulcrum.model.Problems;
import io.fulcrum.testing.Gateway;
import java.nio.file.Path;
import java.util.List;

/** Parses YAML config text the way the loader does, for parser tests. */
final class Configs {

  /** One ip target group {@code web} and one load balancer {@code demo} forwarding to it. */
  static final String MINIMAL = """
      target-groups:
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          targets: [{id: 10.0.0.1}]
      load-balancers:
        - name: demo
          listeners:
            - protocol: HTTP
              port: 8080
              default-actions: [{type: forward, target-group: web}]
      """;

  private Configs() {
  }

  /** Every problem of a config, in the order found. */
  static List<Problem> problems(String yaml) {
    Problems problems = new Problems();
    ConfigParser.parse(Gateway.yamlToJson(yaml), problems, Path.of("data"));
    return problems.list();
  }

  /** Every problem as {@code path: message}. */
  static List<String> messages(String yaml) {
    return problems(yaml).stream().map(Problem::toString).toList();
  }

  /** Parses a config that must have no problems. */
  static FulcrumConfig parse(String yaml) {
    Problems problems = new Problems();
    FulcrumConfig config = ConfigParser.parse(Gateway.yamlToJson(yaml), problems, Path.of("data"));
    assertThat(problems.list()).isEmpty();
    return config;
  }

  /** The minimal config with one target group's lines replaced (the lines are indented as list entries). */
  static String withTargetGroup(String groupYaml) {
    return "target-groups:\n" + indent(groupYaml, "  ") + """
        load-balancers:
          - name: demo
            listeners:
              - protocol: HTTP
                port: 8080
                default-actions: [{type: forward, target-group: web}]
        """;
  }

  /** A config with the {@code web} group and one listener given as YAML (indented as a list entry). */
  static String withListener(String listenerYaml) {
    return """
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80}
          - {name: api, target-type: ip, protocol: HTTP, port: 80}
        load-balancers:
          - name: demo
            listeners:
        """ + indent(listenerYaml, "      ");
  }

  /** A listener on 8080 forwarding to web by default, with one rule given as YAML (a list entry). */
  static String withRule(String ruleYaml) {
    return withListener("""
        - protocol: HTTP
          port: 8080
          default-actions: [{type: forward, target-group: web}]
          rules:
        """ + indent(ruleYaml, "    "));
  }

  static String indent(String text, String prefix) {
    StringBuilder sb = new StringBuilder();
    for (String line : text.split("\n")) {
      sb.append(line.isBlank() ? "" : prefix + line).append('\n');
    }
    return sb.toString();
  }
}
