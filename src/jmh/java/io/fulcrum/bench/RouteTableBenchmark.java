package io.fulcrum.bench;

import io.fulcrum.model.Action;
import io.fulcrum.model.IpAddresses;
import io.fulcrum.model.Listener;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import io.fulcrum.routing.RequestFacts;
import io.fulcrum.routing.RouteAction;
import io.fulcrum.routing.RouteTable;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Rule matching on a listener with 100 rules (ALB's limit per load balancer), compiled once as a
 * snapshot compiles them. Each rule has a path pattern with a wildcard; every 3rd also a
 * host-header, every 5th an http-header, every 7th an http-request-method and every 11th a
 * query-string condition. Requests: one the first rule takes, one only the last rule takes
 * (every rule evaluated), one no rule takes (the default action), and one that passes the
 * path pattern of rule 99 but fails its later conditions.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RouteTableBenchmark {

  static final int RULES = 100;

  private RouteTable table;
  private Listener listener;
  private Facts first;
  private Facts last;
  private Facts none;
  private Facts nearMiss;

  @Setup
  public void setUp() {
    List<Rule> rules = new ArrayList<>();
    for (int i = 1; i <= RULES; i++) {
      List<RuleCondition> c = new ArrayList<>();
      c.add(new RuleCondition.PathPattern(List.of("/svc" + i + "/*", "/v2/svc" + i + "/*/items")));
      if (i % 3 == 0) {
        c.add(new RuleCondition.HostHeader(List.of("svc" + i + ".example.com", "*.svc" + i + ".example.com")));
      }
      if (i % 5 == 0) {
        c.add(new RuleCondition.HttpHeader("X-Tenant", List.of("tenant-" + i, "tenant-" + i + "-*")));
      }
      if (i % 7 == 0) {
        c.add(new RuleCondition.HttpRequestMethod(List.of("GET", "POST")));
      }
      if (i % 11 == 0) {
        c.add(new RuleCondition.QueryString(List.of(new RuleCondition.KeyValue("version", "v" + i))));
      }
      rules.add(new Rule("arn:rule/" + i, i, c, List.of(forward("tg-" + i))));
    }
    listener = new Listener("arn:listener", Protocol.HTTP, 80, List.of(forward("default")), rules);
    table = RouteTable.compile(listener);
    first = new Facts("/svc1/orders/42", "svc1.example.com", "GET", null, null);
    // Rule 100: path, host (100 % 3 != 0: no), header (100 % 5 == 0), method no, query no.
    last = new Facts("/v2/svc100/orders/items", "api.example.com", "GET", "tenant-100-eu", null);
    none = new Facts("/static/app.js", "www.example.com", "GET", null, null);
    // Rule 99: path and host match (99 % 3 == 0), query (99 % 11 == 0) does not.
    nearMiss = new Facts("/svc99/orders", "eu.svc99.example.com", "GET", null, "version=v1");
    check(first, "tg-1");
    check(last, "tg-100");
    check(none, "default");
    check(nearMiss, "default");
  }

  private static Action forward(String name) {
    return new Action.Forward(List.of(new Action.WeightedTargetGroup("arn:targetgroup/" + name + "/0", name, 1)),
        false, 0);
  }

  private void check(Facts f, String group) {
    RouteAction a = table.match(f);
    String arn = ((io.fulcrum.routing.ForwardRoute) a).targetGroupArns().get(0);
    if (!arn.equals("arn:targetgroup/" + group + "/0")) {
      throw new IllegalStateException(f.path + " routes to " + arn + ", expected " + group);
    }
  }

  @Benchmark
  public RouteAction matchFirstRule() {
    return table.match(first);
  }

  @Benchmark
  public RouteAction matchLastRule() {
    return table.match(last);
  }

  @Benchmark
  public RouteAction matchNoRule() {
    return table.match(none);
  }

  @Benchmark
  public RouteAction matchNearMiss() {
    return table.match(nearMiss);
  }

  /** Once per snapshot (a reload or an API change): compile the 100 rules. */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public RouteTable compile() {
    return RouteTable.compile(listener);
  }

  /** Request facts as the listener computes them, fixed (HTTP parsing is not measured here). */
  static final class Facts implements RequestFacts {
    final String path;
    final String host;
    final String method;
    final MultiMap headers = HttpHeaders.headers();
    final List<String[]> query = new ArrayList<>();
    final byte[] source = IpAddresses.parse("10.1.2.3");

    Facts(String path, String host, String method, String tenant, String query) {
      this.path = path;
      this.host = host;
      this.method = method;
      headers.add("Host", host).add("User-Agent", "bench/1.0").add("Accept", "*/*");
      if (tenant != null) {
        headers.add("X-Tenant", tenant);
      }
      if (query != null) {
        for (String kv : query.split("&")) {
          String[] p = kv.split("=", 2);
          this.query.add(new String[] {p[0], p.length > 1 ? p[1] : ""});
        }
      }
    }

    @Override
    public String path() {
      return path;
    }

    @Override
    public String host() {
      return host;
    }

    @Override
    public String method() {
      return method;
    }

    @Override
    public MultiMap headers() {
      return headers;
    }

    @Override
    public List<String[]> queryParameters() {
      return query;
    }

    @Override
    public byte[] sourceAddress() {
      return source;
    }
  }
}
