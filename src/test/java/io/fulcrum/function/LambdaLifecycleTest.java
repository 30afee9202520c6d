package io.fulcrum.function;

import static io.fulcrum.testing.ElbAssertions.assertElbPage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.bus.ExchangeOutcome;
import io.fulcrum.forward.ElbError;
import io.fulcrum.function.handlers.BlockingHandler;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Outcomes;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Functions over a gateway's life: handlers that cannot be loaded stop start-up and are refused on
 * reload (the running ones keep serving), a reload switches a function's handler, a deregistered
 * function's requests in flight fail with 502 (SPEC §2.4), and lb_cookie stickiness on a lambda
 * group.
 */
class LambdaLifecycleTest {

  private final Vertx clients = TestVertx.create();
  private Gateway gateway;
  private int port = Ports.free();

  @AfterEach
  void stop() {
    BlockingHandler.releaseAll();
    if (gateway != null) {
      gateway.close();
    }
    clients.close();
  }

  private String config(String handler, String targets, String attributes) {
    return """
        functions:
          fn: {handler: %s}
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: fn}]}
        target-groups:
          - name: fn
            target-type: lambda
            attributes: {%s}
            targets: [%s]
        """.formatted(handler, port, attributes, targets);
  }

  private String config(String handler) {
    return config(handler, "{id: fn}", "");
  }

  @Test
  void handlerThatCannotBeLoaded_stopsStartUp_withTheProblemAtItsKey() {
    Vertx vertx = TestVertx.create();
    try {
      assertThatThrownBy(() -> Gateway.start(vertx, config("com.example.NoSuchHandler")))
          .isInstanceOfSatisfying(InvalidModelException.class, e -> assertThat(e.problems()).extracting(Problem::toString)
              .containsExactly("functions.fn.handler: class 'com.example.NoSuchHandler' not found on the class path"));
    } finally {
      Await.result(vertx.close());
    }
  }

  @Test
  void classThatIsNotALambdaHandler_stopsStartUp() {
    Vertx vertx = TestVertx.create();
    try {
      assertThatThrownBy(() -> Gateway.start(vertx, config("java.lang.StringBuilder")))
          .isInstanceOfSatisfying(InvalidModelException.class, e -> assertThat(e.problems()).extracting(Problem::toString)
              .containsExactly("functions.fn.handler: class 'java.lang.StringBuilder' implements neither"
                  + " com.amazonaws.services.lambda.runtime.RequestHandler nor RequestStreamHandler"));
    } finally {
      Await.result(vertx.close());
    }
  }

  @Test
  void reload_switchesTheHandler_andRefusesOneThatCannotBeLoaded() {
    gateway = Gateway.start(TestVertx.create(), config("io.fulcrum.demo.EchoEventFunction"));
    try (Http http = new Http(clients)) {
      assertThat(http.get(port, "/hello").body()).contains("\"httpMethod\" : \"GET\"");

      gateway.reload(config("io.fulcrum.function.handlers.GreetingHandler"));
      assertThat(http.get(port, "/hello?name=Ada").body()).isEqualTo("Hello, Ada!\n");

      assertThatThrownBy(() -> gateway.reload(config("com.example.Missing")))
          .isInstanceOf(InvalidModelException.class).hasMessageContaining("functions.fn.handler");
      assertThat(http.get(port, "/hello?name=Bo").body()).as("the running function stays").isEqualTo("Hello, Bo!\n");
    }
  }

  /**
   * Requests pipelined behind one a function answers later are each answered, in order, each
   * invoked once the one before has been answered.
   */
  @Test
  void requestsPipelinedBehindAFunctionsAnswer_areEachAnswered_inOrder() throws Exception {
    BlockingHandler.reset();
    gateway = Gateway.start(TestVertx.create(), config("io.fulcrum.function.handlers.BlockingHandler"));
    try (RawConnection c = RawConnection.open(port)) {
      c.send("GET /1 HTTP/1.1\r\nHost: fn\r\n\r\n" + "GET /2 HTTP/1.1\r\nHost: fn\r\n\r\n"
          + "GET /3 HTTP/1.1\r\nHost: fn\r\n\r\n");
      assertThat(BlockingHandler.STARTED.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
      BlockingHandler.releaseAll();
      for (String path : new String[] {"/1", "/2", "/3"}) {
        RawConnection.Response r = c.read();
        assertThat(r.status()).as(path).isEqualTo(200);
        assertThat(r.bodyText()).as(path).contains(path);
      }
    }
  }

  @Test
  void deregisteringTheFunction_failsItsRequestsInFlightWith502_andLaterOnesWith503() throws Exception {
    BlockingHandler.reset();
    gateway = Gateway.start(TestVertx.create(), config("io.fulcrum.function.handlers.BlockingHandler"));
    try (Outcomes outcomes = Outcomes.record(gateway)) {
      CompletableFuture<RawConnection.Response> inFlight = CompletableFuture.supplyAsync(() -> {
        try (RawConnection c = RawConnection.open(port)) {
          return c.send("GET /held HTTP/1.1\r\nHost: fn\r\n\r\n").read();
        }
      });
      assertThat(BlockingHandler.STARTED.tryAcquire(10, TimeUnit.SECONDS)).isTrue();

      gateway.reload(config("io.fulcrum.function.handlers.BlockingHandler", "", ""));

      assertElbPage(inFlight.get(10, TimeUnit.SECONDS), ElbError.DEREGISTRATION_TIMEOUT);
      ExchangeOutcome o = outcomes.next();
      assertThat(o.elbStatusCode()).isEqualTo(502);
      assertThat(o.targetStatusCode()).isEqualTo(-1);
      try (RawConnection c = RawConnection.open(port)) {
        assertElbPage(c.send("GET /later HTTP/1.1\r\nHost: fn\r\n\r\n").read(), ElbError.NO_TARGETS);
      }
    }
  }

  @Test
  void concurrentInvocations_runAtOnceOnWorkers_eachInAnEnvironmentOfItsOwn_andFreeOnesAreReused()
      throws Exception {
    BlockingHandler.reset();
    gateway = Gateway.start(TestVertx.create(), config("io.fulcrum.function.handlers.BlockingHandler"));
    CompletableFuture<Http.Response> first = CompletableFuture.supplyAsync(() -> get("/one"));
    CompletableFuture<Http.Response> second = CompletableFuture.supplyAsync(() -> get("/two"));
    assertThat(BlockingHandler.STARTED.tryAcquire(2, 10, TimeUnit.SECONDS)).as("both invocations run at once").isTrue();

    BlockingHandler.releaseAll();
    Http.Response a = first.get(10, TimeUnit.SECONDS);
    Http.Response b = second.get(10, TimeUnit.SECONDS);
    assertThat(a.header("X-Instance")).isNotEqualTo(b.header("X-Instance"));
    assertThat(a.header("X-Invocations")).isEqualTo("1");
    assertThat(b.header("X-Invocations")).isEqualTo("1");

    Http.Response third = get("/three");
    assertThat(third.header("X-Instance")).isIn(a.header("X-Instance"), b.header("X-Instance"));
    assertThat(third.header("X-Invocations")).isEqualTo("2");
  }

  @Test
  void heldInvocation_doesNotHoldTheListenersEventLoop() throws Exception {
    BlockingHandler.reset();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          held: {handler: io.fulcrum.function.handlers.BlockingHandler}
          greeter: {handler: io.fulcrum.function.handlers.GreetingHandler}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: greeter}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/held/*"]}], actions: [{type: forward, target-group: held}]}
        target-groups:
          - {name: held, target-type: lambda, targets: [{id: held}]}
          - {name: greeter, target-type: lambda, targets: [{id: greeter}]}
        """.formatted(port));
    CompletableFuture<Http.Response> held = CompletableFuture.supplyAsync(() -> get("/held/x"));
    assertThat(BlockingHandler.STARTED.tryAcquire(10, TimeUnit.SECONDS)).isTrue();

    // One listener instance, one event loop: it still serves while the held invocation waits on a worker.
    for (int i = 0; i < 5; i++) {
      assertThat(get("/hello?name=n" + i).body()).isEqualTo("Hello, n" + i + "!\n");
    }
    assertThat(held).isNotDone();
    BlockingHandler.releaseAll();
    assertThat(held.get(10, TimeUnit.SECONDS).body()).isEqualTo("released /held/x");
  }

  private Http.Response get(String uri) {
    try (Http http = new Http(clients)) {
      return http.get(port, uri);
    }
  }

  @Test
  void lbCookieStickiness_onALambdaGroup_setsAwsalb() {
    gateway = Gateway.start(TestVertx.create(), config("io.fulcrum.function.handlers.GreetingHandler", "{id: fn}",
        "stickiness.enabled: \"true\""));
    try (RawConnection c = RawConnection.open(port)) {
      RawConnection.Response r = c.send("GET /hello HTTP/1.1\r\nHost: fn\r\n\r\n").read();

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.headers().stream().filter(h -> h[0].equalsIgnoreCase("Set-Cookie")).map(h -> h[1]))
          .anyMatch(v -> v.startsWith("AWSALB=")).anyMatch(v -> v.startsWith("AWSALBCORS="));
    }
  }
}
