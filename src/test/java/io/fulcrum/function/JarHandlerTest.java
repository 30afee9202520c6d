package io.fulcrum.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An existing Lambda handler, built into its own jar against nothing but AWS's libraries (here
 * compiled from source at test time, so it is on no class path of Fulcrum's), served unchanged
 * from {@code jar:}.
 */
class JarHandlerTest {

  private static final String HANDLER = """
      package com.example.orders;

      import com.amazonaws.services.lambda.runtime.Context;
      import com.amazonaws.services.lambda.runtime.RequestHandler;
      import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerRequestEvent;
      import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerResponseEvent;
      import java.util.Map;

      public class OrdersHandler implements RequestHandler<ApplicationLoadBalancerRequestEvent,
          ApplicationLoadBalancerResponseEvent> {
        private int served;

        @Override
        public ApplicationLoadBalancerResponseEvent handleRequest(ApplicationLoadBalancerRequestEvent event,
            Context context) {
          served++;
          ApplicationLoadBalancerResponseEvent r = new ApplicationLoadBalancerResponseEvent();
          r.setStatusCode(200);
          r.setStatusDescription("200 OK");
          r.setHeaders(Map.of("Content-Type", "application/json",
              "X-Remaining-Ms", Boolean.toString(context.getRemainingTimeInMillis() > 0),
              "X-Arn", context.getInvokedFunctionArn(), "X-Memory", Integer.toString(context.getMemoryLimitInMB())));
          r.setBody("{\\"order\\":\\"" + event.getQueryStringParameters().get("id") + "\\",\\"function\\":\\""
              + context.getFunctionName() + "\\",\\"served\\":" + served + "}");
          return r;
        }
      }
      """;

  private static final String BROKEN = """
      package com.example.orders;

      public class BrokenHandler implements com.amazonaws.services.lambda.runtime.RequestStreamHandler {
        public BrokenHandler() {
          throw new IllegalStateException("no database configured");
        }

        @Override
        public void handleRequest(java.io.InputStream in, java.io.OutputStream out,
            com.amazonaws.services.lambda.runtime.Context context) {
        }
      }
      """;

  @TempDir
  static Path dir;
  private static Path jar;

  @BeforeAll
  static void buildJar() throws IOException {
    Path src = dir.resolve("src/com/example/orders");
    Files.createDirectories(src);
    Files.writeString(src.resolve("OrdersHandler.java"), HANDLER);
    Files.writeString(src.resolve("BrokenHandler.java"), BROKEN);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
        src.resolve("OrdersHandler.java").toString(), src.resolve("BrokenHandler.java").toString());
    assertThat(rc).as("javac exit code").isZero();
    jar = dir.resolve("orders.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
        Files.copy(p, out);
        out.closeEntry();
      }
    }
  }

  private static String config(int port, String handler) {
    return """
        functions:
          orders: {handler: "%s", jar: "%s", memory-size: 256}
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: orders}]}
        target-groups:
          - {name: orders, target-type: lambda, targets: [{id: "arn:aws:lambda:us-east-1:000000000000:function:orders:live"}]}
        """.formatted(handler, jar, port);
  }

  @Test
  void handlerFromItsOwnJar_servesUnchanged_withALambdaContext() {
    assertThatThrownBy(() -> Class.forName("com.example.orders.OrdersHandler"))
        .as("the handler is on no class path of the test").isInstanceOf(ClassNotFoundException.class);
    int port = Ports.free();
    try (Gateway gateway = Gateway.start(TestVertx.create(), config(port, "com.example.orders.OrdersHandler::handleRequest"));
        Http http = new Http(gateway.vertx())) {
      Http.Response first = http.get(port, "/orders?id=A-17");
      Http.Response second = http.get(port, "/orders?id=A-18");

      assertThat(first.status()).isEqualTo(200);
      assertThat(first.header("Content-Type")).isEqualTo("application/json");
      assertThat(first.header("X-Remaining-Ms")).isEqualTo("true");
      assertThat(first.header("X-Arn")).isEqualTo("arn:aws:lambda:us-east-1:000000000000:function:orders:live");
      assertThat(first.header("X-Memory")).isEqualTo("256");
      assertThat(first.body()).isEqualTo("{\"order\":\"A-17\",\"function\":\"orders\",\"served\":1}");
      // One request after the other: the same execution environment, warm.
      assertThat(second.body()).isEqualTo("{\"order\":\"A-18\",\"function\":\"orders\",\"served\":2}");
    }
  }

  /**
   * Requests pipelined to a function from a jar are each answered, in order, one after the other
   * on the connection (bodies without a trailing newline: the next status line follows at once).
   */
  @Test
  void requestsPipelinedToAJarsHandler_areEachAnswered_inOrder() {
    int port = Ports.free();
    try (Gateway gateway = Gateway.start(TestVertx.create(), config(port, "com.example.orders.OrdersHandler"));
        RawConnection c = RawConnection.open(port)) {
      c.send("GET /orders?id=1 HTTP/1.1\r\nHost: fn\r\n\r\n" + "GET /orders?id=2 HTTP/1.1\r\nHost: fn\r\n\r\n"
          + "GET /orders?id=3 HTTP/1.1\r\nHost: fn\r\n\r\n");
      for (String id : new String[] {"1", "2", "3"}) {
        RawConnection.Response r = c.read();
        assertThat(r.status()).as(id).isEqualTo(200);
        assertThat(r.bodyText()).as(id).contains("\"order\":\"" + id + "\"");
      }
    }
  }

  @Test
  void handlerWhoseConstructorFails_stopsStartUp() {
    Vertx vertx = TestVertx.create();
    try {
      assertThatThrownBy(() -> Gateway.start(vertx, config(Ports.free(), "com.example.orders.BrokenHandler")))
          .isInstanceOfSatisfying(InvalidModelException.class, e -> assertThat(e.problems()).extracting(Problem::toString)
              .containsExactly("functions.orders.handler: the constructor of 'com.example.orders.BrokenHandler' failed:"
                  + " java.lang.IllegalStateException: no database configured"));
    } finally {
      Await.result(vertx.close());
    }
  }

  @Test
  void classMissingFromTheJar_isNamedWithTheJar() {
    Vertx vertx = TestVertx.create();
    try {
      assertThatThrownBy(() -> Gateway.start(vertx, config(Ports.free(), "com.example.orders.Missing")))
          .isInstanceOfSatisfying(InvalidModelException.class, e -> assertThat(e.problems()).extracting(Problem::toString)
              .isEqualTo(List.of("functions.orders.handler: class 'com.example.orders.Missing' not found in " + jar)));
    } finally {
      Await.result(vertx.close());
    }
  }
}
