package io.fulcrum.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.Arns;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TcpTarget;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's {@code /usr/bin/aws elbv2} against the packaged jar, through the seed's scenario: create a
 * target group, point a listener at it, register four real targets (one healthy, three failing their
 * checks), {@code wait target-in-service}; with the default thresholds traffic goes to the healthy
 * target only. Then the seed's exact {@code modify-target-group-attributes} command (both thresholds
 * at 50 %): one healthy target in four is below half, so the group fails open and traffic follows to
 * all four. Finally deregister one, {@code wait target-deregistered}, and it gets no more traffic.
 * Also a network load balancer, by itself and in front of the application load balancer (target
 * type {@code alb}).
 */
@Tag("interop")
class AwsCliInteropIT {

  @TempDir
  Path work;

  private final Vertx vertx = TestVertx.create();
  private final List<Backend> targets = new ArrayList<>();
  private final List<AtomicBoolean> healthy = new ArrayList<>();
  private FulcrumProcess fulcrum;
  private Path aws;
  private int controlPort;
  private int listenerPort;

  @BeforeEach
  void start() {
    aws = Interop.require("/usr/bin/aws", "awscli");
    for (int i = 1; i <= 4; i++) {
      AtomicBoolean up = new AtomicBoolean(i == 1);
      String id = "t" + i;
      healthy.add(up);
      targets.add(Backend.start(vertx, id, "127.0.0.1", req -> {
        if (req.path().equals("/health")) {
          req.response().setStatusCode(up.get() ? 200 : 503).end();
        } else {
          req.response().end(id);
        }
      }));
    }
    controlPort = Ports.free();
    listenerPort = Ports.free();
    fulcrum = FulcrumProcess.start(work, ElbClients.CREDENTIALS_YAML + """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        control: {address: 127.0.0.1, port: %d}
        dns: {enabled: false}
        reload: {enabled: false}
        resources: {source: api}
        data-dir: %s
        load-balancers:
          - name: shop
            listeners:
              - protocol: HTTP
                port: %d
                default-actions:
                  - {type: fixed-response, status-code: "503", content-type: text/plain, message-body: "no group yet"}
        """.formatted(controlPort, work.resolve("data"), listenerPort));
    fulcrum.waitReady(controlPort);
  }

  @AfterEach
  void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
    targets.forEach(Backend::close);
    vertx.close();
  }

  @Test
  void seedScenario_withTheRealCli() throws Exception {
    String tg = aws("create-target-group", "--name", "cli-web", "--protocol", "HTTP", "--port", "80",
        "--vpc-id", "vpc-fulcrum", "--target-type", "ip", "--health-check-path", "/health",
        "--health-check-interval-seconds", "5", "--health-check-timeout-seconds", "2",
        "--healthy-threshold-count", "2", "--unhealthy-threshold-count", "2")
        .getJsonArray("TargetGroups").getJsonObject(0).getString("TargetGroupArn");
    aws("modify-target-group-attributes", "--target-group-arn", tg,
        "--attributes", "Key=deregistration_delay.timeout_seconds,Value=5");
    String lb = aws("describe-load-balancers", "--names", "shop")
        .getJsonArray("LoadBalancers").getJsonObject(0).getString("LoadBalancerArn");
    String listener = aws("describe-listeners", "--load-balancer-arn", lb)
        .getJsonArray("Listeners").getJsonObject(0).getString("ListenerArn");
    aws("modify-listener", "--listener-arn", listener, "--default-actions", "Type=forward,TargetGroupArn=" + tg);

    List<String> specs = new ArrayList<>();
    for (Backend t : targets) {
      specs.add("Id=127.0.0.1,Port=" + t.port() + ",AvailabilityZone=zone-a");
    }
    List<String> register = new ArrayList<>(List.of("register-targets", "--target-group-arn", tg, "--targets"));
    register.addAll(specs);
    aws(register.toArray(String[]::new));

    awsWait("target-in-service", "--target-group-arn", tg, "--targets", "Id=127.0.0.1,Port=" + targets.get(0).port());
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
        assertThat(states(tg).values()).as("states").containsExactlyInAnyOrder("healthy", "unhealthy", "unhealthy",
            "unhealthy"));
    assertThat(spread(40)).as("default thresholds: the one healthy target only").containsOnlyKeys("t1");

    // The seed's command (001_f1becff5b894b62a.txt), with this group's ARN.
    aws("modify-target-group-attributes", "--target-group-arn", tg, "--attributes",
        "Key=target_group_health.dns_failover.minimum_healthy_targets.percentage,Value=50",
        "Key=target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage,Value=50");
    Map<String, String> attributes = new HashMap<>();
    aws("describe-target-group-attributes", "--target-group-arn", tg).getJsonArray("Attributes")
        .forEach(a -> attributes.put(((JsonObject) a).getString("Key"), ((JsonObject) a).getString("Value")));
    assertThat(attributes).containsEntry("target_group_health.dns_failover.minimum_healthy_targets.percentage", "50")
        .containsEntry("target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "50");
    assertThat(spread(80)).as("1 of 4 healthy is below 50 %%: the group fails open to every target")
        .containsOnlyKeys("t1", "t2", "t3", "t4");

    String gone = "Id=127.0.0.1,Port=" + targets.get(1).port();
    aws("deregister-targets", "--target-group-arn", tg, "--targets", gone);
    assertThat(states(tg)).containsValue("draining");
    awsWait("target-deregistered", "--target-group-arn", tg, "--targets", gone);
    assertThat(states(tg)).hasSize(3).doesNotContainValue("draining");
    assertThat(spread(60)).as("the deregistered target gets no more traffic").containsOnlyKeys("t1", "t3", "t4");
  }

  @Test
  void networkLoadBalancer_withTheRealCli() throws Exception {
    TcpTarget target = TcpTarget.start(vertx, "db");
    try {
      String tg = aws("create-target-group", "--name", "cli-tcp", "--protocol", "TCP", "--port", "5432",
          "--vpc-id", ApiGateway.VPC, "--target-type", "ip").getJsonArray("TargetGroups").getJsonObject(0)
          .getString("TargetGroupArn");
      aws("register-targets", "--target-group-arn", tg, "--targets",
          "Id=127.0.0.1,Port=" + target.port() + ",AvailabilityZone=zone-a");
      JsonObject lb = aws("create-load-balancer", "--name", "cli-nlb", "--type", "network", "--subnets", "zone-a")
          .getJsonArray("LoadBalancers").getJsonObject(0);
      assertThat(lb.getString("Type")).isEqualTo("network");
      int port = Ports.free();
      JsonObject listener = aws("create-listener", "--load-balancer-arn", lb.getString("LoadBalancerArn"),
          "--protocol", "TCP", "--port", String.valueOf(port), "--default-actions", "Type=forward,TargetGroupArn=" + tg)
          .getJsonArray("Listeners").getJsonObject(0);
      assertThat(listener.getString("Protocol")).isEqualTo("TCP");
      try (FlowClient c = FlowClient.connect(port)) {
        assertThat(c.ask("select 1")).isEqualTo("db:select 1");
      }
      JsonObject tls = aws("modify-listener", "--listener-arn", listener.getString("ListenerArn"), "--protocol", "TLS",
          "--certificates", "CertificateArn=" + new Arns("us-east-1", "000000000000").selfSignedCertificate(),
          "--alpn-policy", "HTTP2Preferred").getJsonArray("Listeners").getJsonObject(0);
      assertThat(tls.getJsonArray("AlpnPolicy").getList()).containsExactly("HTTP2Preferred");
      try (FlowClient c = FlowClient.tls(TestCertificates.trustingAnything(), port, "http/1.1", "h2")) {
        assertThat(c.ask("select 2")).isEqualTo("db:select 2");
        assertThat(c.applicationProtocol()).isEqualTo("h2");
      }
      JsonObject group = aws("describe-target-groups", "--target-group-arns", tg).getJsonArray("TargetGroups")
          .getJsonObject(0);
      assertThat(group.getString("HealthCheckProtocol")).isEqualTo("TCP");
      assertThat(group.getJsonArray("LoadBalancerArns")).containsExactly(lb.getString("LoadBalancerArn"));
      assertThat(states(tg)).containsKey(target.port());
      assertThat(aws("describe-account-limits").getJsonArray("Limits").stream()
          .map(l -> ((JsonObject) l).getString("Name") + "=" + ((JsonObject) l).getString("Max")))
          .contains("network-load-balancers=50", "listeners-per-network-load-balancer=50",
              "targets-per-network-load-balancer=3000");
    } finally {
      target.close();
    }
  }

  @Test
  void applicationLoadBalancerBehindANetworkOne_withTheRealCli() throws Exception {
    String web = aws("create-target-group", "--name", "cli-web", "--protocol", "HTTP", "--port", "80",
        "--vpc-id", ApiGateway.VPC, "--target-type", "ip", "--health-check-path", "/health")
        .getJsonArray("TargetGroups").getJsonObject(0).getString("TargetGroupArn");
    aws("register-targets", "--target-group-arn", web, "--targets",
        "Id=127.0.0.1,Port=" + targets.get(0).port() + ",AvailabilityZone=zone-a");
    String shop = aws("describe-load-balancers", "--names", "shop")
        .getJsonArray("LoadBalancers").getJsonObject(0).getString("LoadBalancerArn");
    String listener = aws("describe-listeners", "--load-balancer-arn", shop)
        .getJsonArray("Listeners").getJsonObject(0).getString("ListenerArn");
    aws("modify-listener", "--listener-arn", listener, "--default-actions", "Type=forward,TargetGroupArn=" + web);

    JsonObject group = aws("create-target-group", "--name", "cli-shop", "--target-type", "alb", "--protocol", "TCP",
        "--port", String.valueOf(listenerPort), "--vpc-id", ApiGateway.VPC).getJsonArray("TargetGroups")
        .getJsonObject(0);
    assertThat(group.getString("TargetType")).isEqualTo("alb");
    assertThat(group.getString("HealthCheckProtocol")).isEqualTo("HTTP");
    String tg = group.getString("TargetGroupArn");
    aws("register-targets", "--target-group-arn", tg, "--targets", "Id=" + shop);
    String nlb = aws("create-load-balancer", "--name", "cli-edge", "--type", "network", "--subnets", "zone-a")
        .getJsonArray("LoadBalancers").getJsonObject(0).getString("LoadBalancerArn");
    int port = Ports.free();
    aws("create-listener", "--load-balancer-arn", nlb, "--protocol", "TCP", "--port", String.valueOf(port),
        "--default-actions", "Type=forward,TargetGroupArn=" + tg);
    awsWait("target-in-service", "--target-group-arn", tg, "--targets", "Id=" + shop);
    try (RawConnection c = RawConnection.open("127.0.0.1", port)) {
      RawConnection.Response r = c.send("GET / HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n").read();
      assertThat(r.bodyText()).as("through the NLB to the ALB to its target").isEqualTo("t1");
    }
    assertThat(runRefused("delete-load-balancer", "--load-balancer-arn", shop)).contains("ResourceInUse");
    assertThat(runRefused("register-targets", "--target-group-arn", tg, "--targets", "Id=" + nlb))
        .contains("InvalidTarget");
  }

  /** Target states by port, from {@code aws elbv2 describe-target-health}. */
  private Map<Integer, String> states(String tg) throws Exception {
    Map<Integer, String> states = new HashMap<>();
    JsonArray descriptions = aws("describe-target-health", "--target-group-arn", tg)
        .getJsonArray("TargetHealthDescriptions");
    descriptions.forEach(d -> states.put(((JsonObject) d).getJsonObject("Target").getInteger("Port"),
        ((JsonObject) d).getJsonObject("TargetHealth").getString("State")));
    return states;
  }

  /** Sends {@code n} requests to the listener on zone-a's node; how many each target answered. */
  private Map<String, Integer> spread(int n) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      try (RawConnection c = RawConnection.open("127.0.0.1", listenerPort)) {
        RawConnection.Response r = c.send("GET / HTTP/1.1\r\nHost: shop\r\nConnection: close\r\n\r\n").read();
        assertThat(r.status()).as("response %s", r.bodyText()).isEqualTo(200);
        counts.merge(r.bodyText(), 1, Integer::sum);
      }
    }
    return counts;
  }

  private JsonObject aws(String... args) throws Exception {
    String out = run(args);
    return out.isBlank() ? new JsonObject() : new JsonObject(out);
  }

  private void awsWait(String waiter, String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("wait", waiter));
    all.addAll(List.of(args));
    run(all.toArray(String[]::new));
  }

  /** Runs {@code aws ... elbv2 <args>}, which must fail; its stderr (AWS's error code and message). */
  private String runRefused(String... args) throws IOException, InterruptedException {
    return run(false, args);
  }

  /** Runs {@code aws --endpoint-url ... elbv2 <args>} with the test's key pair; its stdout. */
  private String run(String... args) throws IOException, InterruptedException {
    return run(true, args);
  }

  /** Runs {@code aws ... elbv2 <args>}: its stdout when it must succeed, else its stderr. */
  private String run(boolean succeeds, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(aws.toString(), "--endpoint-url", "http://127.0.0.1:" + controlPort,
        "--output", "json", "elbv2"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(work, "aws", ".out");
    Path err = Files.createTempFile(work, "aws", ".err");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("AWS_"));
    env.put("AWS_ACCESS_KEY_ID", ElbClients.ACCESS_KEY);
    env.put("AWS_SECRET_ACCESS_KEY", ElbClients.SECRET_KEY);
    env.put("AWS_DEFAULT_REGION", "us-east-1");
    env.put("AWS_CONFIG_FILE", work.resolve("no-aws-config").toString());
    env.put("AWS_SHARED_CREDENTIALS_FILE", work.resolve("no-aws-credentials").toString());
    env.put("AWS_PAGER", "");
    Process p = pb.start();
    try {
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("aws %s finished", args[0]).isTrue();
      String stdout = Files.readString(out, StandardCharsets.UTF_8);
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      if (!succeeds) {
        assertThat(p.exitValue()).as("aws %s exit code; stdout:\n%s", String.join(" ", args), stdout).isNotZero();
        return stderr;
      }
      assertThat(p.exitValue()).as("aws %s exit code; stderr:\n%s\nFulcrum:\n%s", String.join(" ", args),
          stderr, fulcrum.describe()).isZero();
      return stdout;
    } finally {
      p.destroyForcibly();
    }
  }
}
