package io.fulcrum.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.Cidr;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.FunctionDefinition;
import io.fulcrum.model.Node;
import io.fulcrum.model.Problem;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Loading the YAML file through vertx-config, FULCRUM_* environment overrides, and unreadable files. */
class ConfigLoaderTest {

  private static final String FILE = """
      region: us-east-1
      nodes:
        - {zone: zone-a, address: 127.0.0.1}
        - {zone: zone-b, address: 127.0.0.2}
      control: {address: 127.0.0.1, port: 9090}
      target-groups:
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          health-check: {interval-seconds: 30}
          targets: [{id: 10.0.0.1, zone: zone-a}]
      load-balancers:
        - name: demo
          listeners:
            - protocol: HTTP
              port: 8080
              default-actions: [{type: forward, target-group: web}]
      """;

  @TempDir
  Path dir;

  private Vertx vertx;

  @BeforeEach
  void startVertx() {
    vertx = TestVertx.create();
  }

  @AfterEach
  void closeVertx() {
    Await.result(vertx.close());
  }

  private Path write(String yaml) throws IOException {
    Path file = dir.resolve("fulcrum.yaml");
    Files.writeString(file, yaml);
    return file;
  }

  private FulcrumConfig load(String yaml, Map<String, String> env) throws IOException {
    return Await.result(new ConfigLoader(vertx, write(yaml), env).load());
  }

  private List<Problem> loadProblems(Path file, Map<String, String> env) {
    Throwable failure = Await.result(new ConfigLoader(vertx, file, env).load()
        .transform(ar -> io.vertx.core.Future.succeededFuture(ar.cause())));
    assertThat(failure).as("loading must fail").isInstanceOf(InvalidModelException.class);
    return ((InvalidModelException) failure).problems();
  }

  @Test
  void yamlFile_isLoadedAndValidated() throws IOException {
    FulcrumConfig config = load(FILE, Map.of());
    assertThat(config.environment().nodes()).containsExactly(new Node("zone-a", "127.0.0.1"),
        new Node("zone-b", "127.0.0.2"));
    assertThat(config.control()).isEqualTo(new FulcrumConfig.Control("127.0.0.1", 9090));
    assertThat(config.resources().targetGroups()).hasSize(1);
    assertThat(config.resources().loadBalancers().get(0).listeners().get(0).port()).isEqualTo(8080);
    assertThat(config.dataDir()).isEqualTo(Path.of("data"));
  }

  @Test
  void demoFile_loads() {
    FulcrumConfig config = Await.result(new ConfigLoader(vertx, Path.of("conf", "fulcrum.yaml"), Map.of()).load());
    assertThat(config.resources().targetGroups()).hasSize(4);
    assertThat(config.environment().functions()).containsOnlyKeys("echo-event");
  }

  @Test
  void scalarOverride_replacesTheFileValue() throws IOException {
    FulcrumConfig config = load(FILE, Map.of("FULCRUM_CONTROL__PORT", "9191", "FULCRUM_REGION", "eu-west-1"));
    assertThat(config.control().port()).isEqualTo(9191);
    assertThat(config.environment().region()).isEqualTo("eu-west-1");
  }

  @Test
  void override_withUnderscoresInAKey_setsTheHyphenatedKey() throws IOException {
    FulcrumConfig config = load(FILE, Map.of("FULCRUM_DATA_DIR", "/var/lib/fulcrum", "FULCRUM_RANDOM_SEED", "42",
        "FULCRUM_RELOAD__SCAN_PERIOD_MS", "500", "FULCRUM_RELOAD__ENABLED", "false"));
    assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/fulcrum"));
    assertThat(config.randomSeed()).hasValue(42);
    assertThat(config.reload()).isEqualTo(new FulcrumConfig.Reload(false, 500));
  }

  @Test
  void override_keepsAFunctionsSigningSecretOutOfTheFile() throws IOException {
    String file = FILE + """
        functions:
          on-aws:
            endpoint: https://lambda.eu-west-3.amazonaws.com
            signing: {region: eu-west-3, access-key-id: AKIAEXAMPLE}
        """;

    FulcrumConfig config = load(file, Map.of("FULCRUM_FUNCTIONS__ON_AWS__SIGNING__SECRET_ACCESS_KEY", "from-env/+x"));

    assertThat(((FunctionDefinition.Remote) config.environment().functions().get("on-aws")).signing())
        .isEqualTo(new FunctionDefinition.Signing("eu-west-3", "AKIAEXAMPLE", "from-env/+x", null));
  }

  @Test
  void override_keepsAnOidcClientSecretOutOfTheFile() throws IOException {
    String file = FILE.substring(0, FILE.indexOf("load-balancers:")) + """
        load-balancers:
          - name: demo
            listeners:
              - protocol: HTTPS
                port: 8443
                default-actions:
                  - {type: authenticate-oidc, issuer: 'https://idp.example.com',
                     authorization-endpoint: 'https://idp.example.com/authorize',
                     token-endpoint: 'https://idp.example.com/token',
                     user-info-endpoint: 'https://idp.example.com/userinfo', client-id: fulcrum}
                  - {type: forward, target-group: web}
        """;

    FulcrumConfig config = load(file,
        Map.of("FULCRUM_LOAD_BALANCERS__0__LISTENERS__0__DEFAULT_ACTIONS__0__CLIENT_SECRET", "from-env/+x"));

    assertThat(((AuthenticateOidc) config.resources().loadBalancers().get(0).listeners().get(0).defaultActions()
        .get(0)).clientSecret()).isEqualTo("from-env/+x");
  }

  @Test
  void override_ofAKeyTheFileDoesNotHave_createsIt() throws IOException {
    FulcrumConfig config = load(FILE, Map.of("FULCRUM_SHUTDOWN__TIMEOUT_SECONDS", "5"));
    assertThat(config.shutdownTimeoutSeconds()).isEqualTo(5);
  }

  /** What the cluster documentation and the Kubernetes manifests set per process (cluster.md, k8s/). */
  @Test
  void override_ofTheClusterSettings_setsThem() throws IOException {
    FulcrumConfig config = load(FILE, Map.of("FULCRUM_CLUSTER__HOST", "127.0.0.3", "FULCRUM_CLUSTER__PORT", "5801",
        "FULCRUM_CLUSTER__MEMBERS", "127.0.0.3:5801,127.0.0.4:5801"));
    assertThat(config.cluster().host()).isEqualTo("127.0.0.3");
    assertThat(config.cluster().port()).isEqualTo(5801);
    assertThat(config.cluster().members()).containsExactly("127.0.0.3:5801", "127.0.0.4:5801");
  }

  /**
   * k8s/fulcrum.yaml's ConfigMap loads in each zone's pod (its zone from the environment), with a
   * target registered as its comment says.
   */
  @ParameterizedTest
  @ValueSource(strings = {"zone-a", "zone-b"})
  void theKubernetesConfigMap_loadsInEachZonesPod(String zone) throws IOException {
    String manifest = Files.readString(Path.of("k8s/fulcrum.yaml"));
    String block = manifest.substring(manifest.indexOf("  fulcrum.yaml: |\n") + "  fulcrum.yaml: |\n".length());
    block = block.substring(0, block.indexOf("\n---"));
    String yaml = block.lines().map(l -> l.length() >= 4 ? l.substring(4) : l.strip())
        .collect(java.util.stream.Collectors.joining("\n"))
        .replace("targets: []", "targets: [{id: 10.1.2.3}]");

    FulcrumConfig config = load(yaml, Map.of("FULCRUM_NODES__0__ZONE", zone, "FULCRUM_DATA_DIR", dir.toString()));
    assertThat(config.environment().zones()).containsExactly(zone);
  }

  @ParameterizedTest
  @ValueSource(strings = {"- a\n- b\n", "hello\n"})
  void aDocumentThatIsNoMapping_isRefused_sayingWhatItIs(String yaml) throws IOException {
    assertThat(loadProblems(write(yaml), Map.of())).singleElement().extracting(Problem::message).asString()
        .startsWith("cannot read the configuration: the document is a").contains("not a mapping of keys");
  }

  /** Every top-level key configuration.md's table lists can be set from the environment. */
  @Test
  void everyDocumentedTopLevelKey_canBeOverridden() throws IOException {
    String doc = Files.readString(Path.of("docs/configuration.md"));
    String table = doc.substring(doc.indexOf("| Key | Default | Meaning |"));
    table = table.substring(0, table.indexOf("\n\n"));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\| `([a-z-]+)` \\|").matcher(table);
    java.util.Set<String> documented = new java.util.TreeSet<>();
    while (m.find()) {
      documented.add(m.group(1));
    }
    assertThat(documented).hasSizeGreaterThan(15);
    assertThat(ConfigLoader.TOP_LEVEL_KEYS).containsAll(documented);
  }

  @Test
  void override_withAListIndex_setsThatElement() throws IOException {
    FulcrumConfig config = load(FILE, Map.of(
        "FULCRUM_NODES__1__ADDRESS", "127.0.0.3",
        "FULCRUM_TARGET_GROUPS__0__HEALTH_CHECK__INTERVAL_SECONDS", "10",
        "FULCRUM_LOAD_BALANCERS__0__LISTENERS__0__PORT", "8181"));
    assertThat(config.environment().nodes()).containsExactly(new Node("zone-a", "127.0.0.1"),
        new Node("zone-b", "127.0.0.3"));
    assertThat(config.resources().targetGroups().get(0).healthCheck().intervalSeconds()).isEqualTo(10);
    assertThat(config.resources().loadBalancers().get(0).listeners().get(0).port()).isEqualTo(8181);
  }

  @Test
  void override_ofAListOfScalars_isSplitOnCommas() throws IOException {
    FulcrumConfig config = load("vpc-cidrs: [127.0.0.0/8]\n" + FILE,
        Map.of("FULCRUM_VPC_CIDRS", "10.0.0.0/8, 192.168.0.0/16,"));
    assertThat(config.environment().vpcCidrs()).containsExactly(Cidr.parse("10.0.0.0/8"),
        Cidr.parse("192.168.0.0/16"));
  }

  @Test
  void override_ofAListOfScalarsTheFileDoesNotHave_isSplitOnCommasToo() throws IOException {
    FulcrumConfig config = load(FILE, Map.of("FULCRUM_VPC_CIDRS", "10.0.0.0/8,127.0.0.0/8"));
    assertThat(config.environment().vpcCidrs()).containsExactly(Cidr.parse("10.0.0.0/8"), Cidr.parse("127.0.0.0/8"));
  }

  @Test
  void override_ofLoadBalancerZones_isSplitOnCommas() throws IOException {
    FulcrumConfig config = load(FILE, Map.of("FULCRUM_LOAD_BALANCERS__0__ZONES", "zone-b"));
    assertThat(config.resources().loadBalancers().get(0).zones()).containsExactly("zone-b");
    config = load(FILE, Map.of("FULCRUM_LOAD_BALANCERS__0__ZONES", "zone-a,zone-b"));
    assertThat(config.resources().loadBalancers().get(0).zones()).containsExactly("zone-a", "zone-b");
  }

  @Test
  void variablesThatAreNotConfigKeys_areIgnored() throws IOException {
    FulcrumConfig config = load(FILE, Map.of(
        "FULCRUM_REQUIRE_INTEROP", "1",
        "FULCRUM_", "x",
        "FULCRUM_CONTROL____PORT", "1",
        "CONTROL__PORT", "1",
        "PATH", "/usr/bin"));
    assertThat(config.control().port()).isEqualTo(9090);
  }

  @Test
  void apiKeyPair_comesFromTheVariablesAwsToolsUse() throws IOException {
    FulcrumConfig config = load(FILE, Map.of("FULCRUM_ACCESS_KEY_ID", "AKIDEXAMPLE",
        "FULCRUM_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"));
    assertThat(config.credentials().accessKeyId()).isEqualTo("AKIDEXAMPLE");
    assertThat(config.credentials().secretAccessKey()).isEqualTo("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
  }

  @Test
  void override_throughAScalar_isIgnored() throws IOException {
    FulcrumConfig config = load(FILE, Map.of("FULCRUM_REGION__NAME", "eu-west-1", "FULCRUM_CONTROL__PORT__X", "1"));
    assertThat(config.environment().region()).isEqualTo("us-east-1");
    assertThat(config.control().port()).isEqualTo(9090);
  }

  @Test
  void override_thatMakesTheConfigInvalid_isReportedAtItsKey() throws IOException {
    assertThat(loadProblems(write(FILE), Map.of("FULCRUM_CONTROL__PORT", "ninety"))).extracting(Problem::toString)
        .containsExactly("control.port: expected an integer, found 'ninety'");
  }

  @Test
  void configWithProblems_failsWithInvalidModelException_listingThemAll() throws IOException {
    Path file = write(FILE.replace("interval-seconds: 30", "interval-seconds: 301").replace("port: 9090",
        "port: 90900"));
    InvalidModelException e = (InvalidModelException) Await.result(new ConfigLoader(vertx, file, Map.of()).load()
        .transform(ar -> io.vertx.core.Future.succeededFuture(ar.cause())));
    assertThat(e.problems()).containsExactly(
        new Problem("control.port", "ValidationError", "90900 is above the maximum 65535"),
        new Problem("target-groups[0].health-check.interval-seconds", "ValidationError",
            "301 is above the maximum 300"));
    assertThat(e).hasMessage("control.port: 90900 is above the maximum 65535\n"
        + "target-groups[0].health-check.interval-seconds: 301 is above the maximum 300");
  }

  @Test
  void load_throwsTheExceptionThroughAwait() throws IOException {
    Path file = write("region: nowhere\n");
    assertThatThrownBy(() -> Await.result(new ConfigLoader(vertx, file, Map.of()).load()))
        .isInstanceOf(InvalidModelException.class)
        .hasMessage("region: 'nowhere' is not a region name (expected e.g. us-east-1)");
  }

  @Test
  void missingFile_givesOneClearProblem() {
    Path file = dir.resolve("absent.yaml");
    assertThat(loadProblems(file, Map.of())).containsExactly(new Problem(file.toString(), "ValidationError",
        "cannot read the configuration: the file does not exist"));
  }

  @Test
  void brokenYaml_givesOneProblemNamingTheFile() throws IOException {
    Path file = write("region: us-east-1\nnodes: [{zone: zone-a\ncontrol: {port: 1}\n");
    List<Problem> problems = loadProblems(file, Map.of());
    assertThat(problems).hasSize(1);
    assertThat(problems.get(0).path()).isEqualTo(file.toString());
    assertThat(problems.get(0).code()).isEqualTo("ValidationError");
    assertThat(problems.get(0).message()).startsWith("cannot read the configuration: ").contains("line");
  }

  /**
   * YAML keys are unique; a key given twice in one mapping is a problem at its path, naming both
   * lines. SnakeYAML kept the last one without a word (a second {@code attributes:} undid the first).
   */
  @Test
  void aKeyGivenTwice_isAProblemAtItsPath_notTheLastOneSilently() throws IOException {
    assertThat(loadProblems(write("region: us-east-1\ncontrol: {port: 9090}\ncontrol: {port: 9191}\n"), Map.of()))
        .containsExactly(new Problem("control", "ValidationError", "given twice (lines 2 and 3); give it once"));

    String nested = """
        region: us-east-1
        load-balancers:
          - name: web
            type: application
            listeners:
              - protocol: HTTP
                port: 8080
                default-actions:
                  - {type: fixed-response, status-code: 200}
                default-actions:
                  - {type: fixed-response, status-code: 404}
        """;
    int first = (int) nested.lines().takeWhile(l -> !l.contains("default-actions")).count() + 1;
    assertThat(loadProblems(write(nested), Map.of())).containsExactly(new Problem(
        "load-balancers[0].listeners[0].default-actions", "ValidationError",
        "given twice (lines " + first + " and " + (first + 2) + "); give it once"));
  }

  /** The same key in different mappings, and one mapping given twice through an alias, are fine. */
  @Test
  void sameKeyInDifferentMappings_andAliases_areFine() throws IOException {
    FulcrumConfig config = load("""
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        target-groups:
          - name: a
            protocol: HTTP
            port: 80
            health-check: &check {path: /health, interval-seconds: 10}
          - name: b
            protocol: HTTP
            port: 80
            health-check: *check
        """, Map.of());
    assertThat(config.resources().targetGroups()).hasSize(2);
    assertThat(config.environment().nodes()).hasSize(2);
  }

  @Test
  void yamlThatIsNotAMapping_givesOneProblemNamingTheFile() throws IOException {
    Path file = write("- just\n- a list\n");
    List<Problem> problems = loadProblems(file, Map.of());
    assertThat(problems).hasSize(1);
    assertThat(problems.get(0).path()).isEqualTo(file.toString());
    assertThat(problems.get(0).message()).startsWith("cannot read the configuration: ");
  }

  @Test
  void emptyFile_givesTheDefaults() throws IOException {
    FulcrumConfig config = load("", Map.of());
    assertThat(config.environment().nodes()).containsExactly(new Node("zone-a", "127.0.0.1"));
    assertThat(config.resources().loadBalancers()).isEmpty();
  }

  /**
   * vertx-config-yaml 5.0.7 turns a YAML stream without a document into null and the retriever then
   * fails inside its merge (a NullPointerException), so unlike an empty file this does not give the
   * defaults. The loader still reports it as one problem naming the file.
   */
  @Test
  void fileOfOnlyComments_isReportedAsOneProblemNamingTheFile() throws IOException {
    Path file = write("# nothing configured yet\n");
    List<Problem> problems = loadProblems(file, Map.of());
    assertThat(problems).hasSize(1);
    assertThat(problems.get(0).path()).isEqualTo(file.toString());
    assertThat(problems.get(0).message()).startsWith("cannot read the configuration: ");
  }

  /** Replaces the file in one step, so that the watcher never reads it half-written. */
  private void replace(Path file, String yaml) throws IOException {
    Path next = dir.resolve("next.yaml");
    Files.writeString(next, yaml);
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void watch_deliversEachValidChange_andReportsInvalidOnes() throws IOException {
    Path file = write(FILE);
    ConfigLoader loader = new ConfigLoader(vertx, file, Map.of());
    List<FulcrumConfig> changes = new CopyOnWriteArrayList<>();
    List<List<Problem>> invalid = new CopyOnWriteArrayList<>();
    try {
      // Only edits made once the watcher has read the file count.
      Await.result(loader.watch(50, changes::add, invalid::add));
      replace(file, FILE.replace("port: 9090", "port: 9191"));
      await().atMost(Duration.ofSeconds(20)).until(() -> !changes.isEmpty());
      assertThat(changes).extracting(c -> c.control().port()).containsExactly(9191);
      assertThat(invalid).isEmpty();
      replace(file, FILE.replace("port: 9090", "port: -1"));
      await().atMost(Duration.ofSeconds(20)).until(() -> !invalid.isEmpty());
      assertThat(invalid.get(0)).extracting(Problem::toString).containsExactly("control.port: -1 is below the minimum 0");
    } finally {
      loader.stopWatching();
    }
  }

  /**
   * After {@code load()}, an edit is delivered once, whether it was made before the watch began
   * (while Fulcrum starts: not lost) or after it (the watch starts from what was loaded, so the
   * file read as loaded delivers nothing).
   */
  @ParameterizedTest(name = "edited before the watch: {0}")
  @ValueSource(booleans = {true, false})
  void watch_afterALoad_deliversAnEditOnce_madeBeforeOrAfterTheWatchBegan(boolean editedBeforeTheWatch)
      throws IOException {
    Path file = write(FILE);
    ConfigLoader loader = new ConfigLoader(vertx, file, Map.of());
    assertThat(Await.result(loader.load()).control().port()).isEqualTo(9090);
    if (editedBeforeTheWatch) {
      replace(file, FILE.replace("port: 9090", "port: 9191"));
    }
    List<FulcrumConfig> changes = new CopyOnWriteArrayList<>();
    try {
      Await.result(loader.watch(50, changes::add, p -> { }));
      if (!editedBeforeTheWatch) {
        replace(file, FILE.replace("port: 9090", "port: 9191"));
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> !changes.isEmpty());
      assertThat(changes).extracting(c -> c.control().port()).containsExactly(9191);
    } finally {
      loader.stopWatching();
    }
  }

  @Test
  void watch_refusesAnEmptiedFile_soAHalfWrittenEditNeverDropsTheLoadBalancers() throws IOException {
    Path file = write(FILE);
    ConfigLoader loader = new ConfigLoader(vertx, file, Map.of());
    List<FulcrumConfig> changes = new CopyOnWriteArrayList<>();
    List<List<Problem>> invalid = new CopyOnWriteArrayList<>();
    try {
      Await.result(loader.watch(50, changes::add, invalid::add));
      replace(file, FILE.replace("port: 9090", "port: 9191"));
      await().atMost(Duration.ofSeconds(20)).until(() -> !changes.isEmpty());
      replace(file, "");
      await().atMost(Duration.ofSeconds(20)).until(() -> !invalid.isEmpty());
      assertThat(changes).hasSize(1);
      assertThat(invalid.get(0)).extracting(Problem::message)
          .containsExactly("the file is empty (perhaps still being written); the running configuration stays");
    } finally {
      loader.stopWatching();
    }
  }

  /**
   * A file that goes missing is reported once, not at every scan while it stays missing; once it
   * has been read again (back as it was: nothing to deliver), going missing again is reported again.
   */
  @Test
  void watch_reportsAFileThatStaysMissingOnce_andAgainAfterItWasReadInBetween() throws IOException {
    Path file = write(FILE);
    Path aside = dir.resolve("aside.yaml");
    ConfigLoader loader = new ConfigLoader(vertx, file, Map.of());
    List<FulcrumConfig> changes = new CopyOnWriteArrayList<>();
    List<List<Problem>> invalid = new CopyOnWriteArrayList<>();
    try {
      Await.result(loader.watch(20, changes::add, invalid::add));
      Files.move(file, aside);
      await().atMost(Duration.ofSeconds(20)).until(() -> !invalid.isEmpty());
      long failed = loader.failedReads();
      await().atMost(Duration.ofSeconds(20)).until(() -> loader.failedReads() >= failed + 5);
      assertThat(invalid).hasSize(1);
      assertThat(invalid.get(0)).extracting(Problem::toString).containsExactly(file
          + ": cannot read the configuration: the file does not exist");

      long reads = loader.reads();
      Files.move(aside, file);
      await().atMost(Duration.ofSeconds(20)).until(() -> loader.reads() > reads);
      Files.move(file, aside);
      await().atMost(Duration.ofSeconds(20)).until(() -> invalid.size() == 2);
      assertThat(changes).as("the file came back as it was").isEmpty();
    } finally {
      loader.stopWatching();
    }
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', value = {
      "FULCRUM_CONTROL__PORT | control.port",
      "FULCRUM_NODES__0__ADDRESS | nodes.0.address",
      "FULCRUM_DATA_DIR | data-dir",
      "FULCRUM_TARGET_GROUPS__2__HEALTH_CHECK__INTERVAL_SECONDS | target-groups.2.health-check.interval-seconds",
      "FULCRUM_ | ''",
      "FULCRUM_A____B | ''",
      "FULCRUM_CONTROL__ | ''"})
  void envPath_splitsLevelsOnDoubleUnderscores(String name, String path) {
    assertThat(String.join(".", ConfigLoader.envPath(name))).isEqualTo(path);
  }

  @Test
  void applyEnvironment_leavesADocumentWithoutOverridesAlone() {
    JsonObject doc = new JsonObject().put("region", "us-east-1").put("vpc-cidrs", new JsonArray().add("10.0.0.0/8"));
    assertThat(ConfigLoader.applyEnvironment(doc.copy())).isEqualTo(doc);
  }
}
