package io.fulcrum.function;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.function.handlers.GreetingHandler;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Remote functions with {@code signing}: each invocation is signed as AWS Lambda requires (SigV4,
 * service {@code lambda}), and an Invoke API server that checks every signature with the AWS SDK
 * for Java's own signer takes it: long-term keys, a qualifier in the query, a temporary credential's
 * session token. An unsigned invocation and one signed with the wrong secret are refused there
 * (403), which the client gets as ALB's 502 {@code LambdaAccessDenied}.
 */
class SignedInvokeTest {

  private static final String KEY_ID = "AKIAFULCRUMSIGNING01";
  private static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  private static final String TOKEN = "FwoGZXIvYXdzEXAMPLE//session+token=";

  private static final Vertx functions = TestVertx.create();
  private static InvokeApiServer keys;
  private static InvokeApiServer session;
  private static Gateway gateway;
  private static int port;

  @BeforeAll
  static void start() {
    keys = InvokeApiServer.start(functions).function("greeter", GreetingHandler.class)
        .requireSignature("eu-west-3", KEY_ID, SECRET, null);
    session = InvokeApiServer.start(functions).function("greeter", GreetingHandler.class)
        .requireSignature("eu-west-3", KEY_ID, SECRET, TOKEN);
    port = Ports.free();
    String signing = "{region: eu-west-3, access-key-id: %s, secret-access-key: \"%s\"".formatted(KEY_ID, SECRET);
    gateway = Gateway.start(TestVertx.create(), """
        region: us-east-1
        account: "123456789012"
        functions:
          signed: {endpoint: "%1$s", function-name: greeter, signing: %3$s}}
          with-token: {endpoint: "%2$s", function-name: greeter, signing: %3$s, session-token: "%4$s"}}
          unsigned: {endpoint: "%1$s", function-name: greeter}
          wrong-secret: {endpoint: "%1$s", function-name: greeter, signing: {region: eu-west-3, access-key-id: %5$s,
                         secret-access-key: not-the-secret}}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %6$d
                default-actions: [{type: fixed-response, status-code: 404, content-type: text/plain}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/signed/*"]}],
                     actions: [{type: forward, target-group: signed}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: ["/live/*"]}],
                     actions: [{type: forward, target-group: live}]}
                  - {priority: 3, conditions: [{field: path-pattern, values: ["/token/*"]}],
                     actions: [{type: forward, target-group: token}]}
                  - {priority: 4, conditions: [{field: path-pattern, values: ["/unsigned/*"]}],
                     actions: [{type: forward, target-group: unsigned}]}
                  - {priority: 5, conditions: [{field: path-pattern, values: ["/wrong/*"]}],
                     actions: [{type: forward, target-group: wrong}]}
        target-groups:
          - {name: signed, target-type: lambda, targets: [{id: signed}]}
          - name: live
            target-type: lambda
            targets: [{id: "arn:aws:lambda:us-east-1:123456789012:function:signed:live"}]
          - {name: token, target-type: lambda, targets: [{id: with-token}]}
          - {name: unsigned, target-type: lambda, targets: [{id: unsigned}]}
          - {name: wrong, target-type: lambda, targets: [{id: wrong-secret}]}
        """.formatted(keys.endpoint(), session.endpoint(), signing, TOKEN, KEY_ID, port));
  }

  @AfterAll
  static void stop() {
    gateway.close();
    keys.close();
    session.close();
    functions.close();
  }

  private static RawConnection.Response get(String path) {
    try (RawConnection c = RawConnection.open(port)) {
      return c.send("GET " + path + " HTTP/1.1\r\nHost: lb\r\n\r\n").read();
    }
  }

  @Test
  void signedInvocations_areTakenByAServerThatChecksWithTheAwsSdksSigner() {
    RawConnection.Response r = get("/signed/hello?name=Ada");

    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    assertThat(r.header("x-function")).isEqualTo("greeter");
    InvokeApiServer.Invocation last = keys.invocations.get(keys.invocations.size() - 1);
    assertThat(last.authorization()).startsWith("AWS4-HMAC-SHA256 Credential=" + KEY_ID + "/")
        .contains("/eu-west-3/lambda/aws4_request")
        .contains("SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-invocation-type,");
  }

  @Test
  void aQualifier_isInTheSignedQuery() {
    RawConnection.Response r = get("/live/hello");

    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    assertThat(keys.invocations.get(keys.invocations.size() - 1).query()).isEqualTo("Qualifier=live");
  }

  @Test
  void aSessionToken_isSentAndSigned() {
    RawConnection.Response r = get("/token/hello");

    assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
    assertThat(session.invocations.get(session.invocations.size() - 1).authorization())
        .contains("SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-invocation-type;"
            + "x-amz-security-token,");
  }

  @Test
  void unsignedOrWronglySigned_isRefused_andTheClientGets502() {
    assertThat(get("/unsigned/hello").status()).isEqualTo(502);
    assertThat(get("/wrong/hello").status()).isEqualTo(502);
  }
}
