package io.fulcrum.optimizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.net.HostAndPort;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentCommandTest {

  private static final String[] NONE = {AgentCommand.NAME};

  @Test
  void settings_comeFromAwsAgentsEnvironment_withItsDefaults() {
    TargetControlAgent.Settings s = AgentCommand.parse(NONE, Map.of("TARGET_CONTROL_DESTINATION", "127.0.0.1:8080"));
    assertThat(s.data()).isEqualTo(HostAndPort.create("0.0.0.0", 80));
    assertThat(s.control()).isEqualTo(HostAndPort.create("0.0.0.0", 3000));
    assertThat(s.destination()).isEqualTo(HostAndPort.create("127.0.0.1", 8080));
    assertThat(s.maxConcurrency()).isEqualTo(1);
    assertThat(s.tls()).isNull();
  }

  @Test
  void options_winOverTheEnvironment() {
    TargetControlAgent.Settings s = AgentCommand.parse(new String[] {AgentCommand.NAME, "--data", "[::1]:8081",
        "--max-concurrency", "4"}, Map.of("TARGET_CONTROL_DESTINATION", "app:9000", "TARGET_CONTROL_MAX_CONCURRENCY",
        "2", "TARGET_CONTROL_CONTROL_ADDRESS", "10.0.0.5:3001"));
    assertThat(s.data()).isEqualTo(HostAndPort.create("::1", 8081));
    assertThat(s.control()).isEqualTo(HostAndPort.create("10.0.0.5", 3001));
    assertThat(s.destination()).isEqualTo(HostAndPort.create("app", 9000));
    assertThat(s.maxConcurrency()).isEqualTo(4);
  }

  @Test
  void badSettings_nameTheOption() {
    assertThatThrownBy(() -> AgentCommand.parse(NONE, Map.of()))
        .hasMessage("--destination (TARGET_CONTROL_DESTINATION) is required");
    Map<String, String> env = Map.of("TARGET_CONTROL_DESTINATION", "127.0.0.1:8080");
    assertThatThrownBy(() -> AgentCommand.parse(new String[] {AgentCommand.NAME, "--max-concurrency", "0"}, env))
        .hasMessage("--max-concurrency: 0 is outside 1-1000");
    assertThatThrownBy(() -> AgentCommand.parse(new String[] {AgentCommand.NAME, "--max-concurrency", "many"}, env))
        .hasMessage("--max-concurrency: 'many' is not a number (expected 1-1000)");
    assertThatThrownBy(() -> AgentCommand.parse(new String[] {AgentCommand.NAME, "--data", "8080"}, env))
        .hasMessage("--data: '8080' is not HOST:PORT (port 0-65535)");
    assertThatThrownBy(() -> AgentCommand.parse(new String[] {AgentCommand.NAME, "--control", "h:70000"}, env))
        .hasMessage("--control: 'h:70000' is not HOST:PORT (port 0-65535)");
    assertThatThrownBy(() -> AgentCommand.parse(new String[] {AgentCommand.NAME, "--tls-cert", "/nope.pem"}, env))
        .hasMessage("--tls-cert and --tls-key go together");
    assertThatThrownBy(() -> AgentCommand.parse(new String[] {AgentCommand.NAME, "--tls-cert", "/nope.pem",
        "--tls-key", "/nope-key.pem"}, env)).hasMessage("--tls-cert: cannot read /nope.pem");
    assertThatThrownBy(() -> AgentCommand.parse(new String[] {AgentCommand.NAME, "--port", "1"}, env))
        .hasMessage("unknown argument '--port'");
  }
}
