package io.fulcrum.testing;

import java.util.Map;

/** Gateway configurations (YAML text) that several data-path tests share. */
public final class GatewayConfigs {

  private GatewayConfigs() {
  }

  /**
   * One application load balancer {@code lb} with an HTTP listener on {@code listenerPort} on the
   * default node (127.0.0.1, zone-a), forwarding to the target group {@code tg} whose targets are
   * {@code 127.0.0.1:<targetPort>}; {@code attributes} are load balancer attributes.
   */
  public static String forwarding(int listenerPort, Map<String, String> attributes, int... targetPorts) {
    StringBuilder y = new StringBuilder();
    y.append("load-balancers:\n")
        .append("  - name: lb\n");
    if (!attributes.isEmpty()) {
      y.append("    attributes:\n");
      attributes.forEach((k, v) -> y.append("      \"").append(k).append("\": \"").append(v).append("\"\n"));
    }
    y.append("    listeners:\n")
        .append("      - protocol: HTTP\n")
        .append("        port: ").append(listenerPort).append('\n')
        .append("        default-actions: [{type: forward, target-group: tg}]\n")
        .append("target-groups:\n")
        .append("  - name: tg\n")
        .append("    target-type: ip\n")
        .append("    protocol: HTTP\n")
        .append("    port: 80\n");
    if (targetPorts.length == 0) {
      y.append("    targets: []\n");
    } else {
      y.append("    targets:\n");
      for (int p : targetPorts) {
        y.append("      - {id: 127.0.0.1, port: ").append(p).append("}\n");
      }
    }
    return y.toString();
  }

  public static String forwarding(int listenerPort, int... targetPorts) {
    return forwarding(listenerPort, Map.of(), targetPorts);
  }
}
