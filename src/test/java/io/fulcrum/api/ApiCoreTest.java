package io.fulcrum.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ElasticLoadBalancingV2Exception;

/** The Query protocol and SigV4 as the real AWS SDK sees them. */
class ApiCoreTest {

  private final Vertx client = TestVertx.create();
  private Gateway gateway;

  @BeforeEach
  void start() {
    gateway = Gateway.start(TestVertx.create(), ElbClients.CREDENTIALS_YAML);
  }

  @AfterEach
  void stop() {
    gateway.close();
    client.close();
  }

  @Test
  void sdkRequest_isVerifiedAndAnsweredInTheAwsErrorShape() {
    // An operation Fulcrum does not answer (it answers every one of ELBv2's): the SDK's own request
    // with its Action renamed before the SDK signs it reaches the dispatcher, and the SDK parses the
    // InvalidAction it gets.
    ExecutionInterceptor renamed = new ExecutionInterceptor() {
      @Override
      public Optional<RequestBody> modifyHttpContent(Context.ModifyHttpRequest context,
          ExecutionAttributes executionAttributes) {
        return Optional.of(RequestBody.fromString(
            "Action=DescribeAccountLimitz&Version=2015-12-01", StandardCharsets.UTF_8));
      }
    };
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(gateway.controlPort(), renamed)) {
      assertThatThrownBy(elb::describeAccountLimits)
          .isInstanceOfSatisfying(ElasticLoadBalancingV2Exception.class, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAction");
            assertThat(e.awsErrorDetails().errorMessage()).contains("DescribeAccountLimitz");
            assertThat(e.statusCode()).isEqualTo(400);
            assertThat(e.requestId()).matches("[0-9a-f-]{36}");
          });
    }
  }

  @Test
  void wrongSecret_isSignatureDoesNotMatch() {
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(gateway.controlPort(), ElbClients.ACCESS_KEY,
        "not-the-secret-0000000000000000000000")) {
      assertThatThrownBy(elb::describeAccountLimits)
          .isInstanceOfSatisfying(ElasticLoadBalancingV2Exception.class, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");
            assertThat(e.statusCode()).isEqualTo(403);
          });
    }
  }

  @Test
  void unknownKey_isInvalidClientTokenId() {
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(gateway.controlPort(), "AKIAUNKNOWN000000000",
        ElbClients.SECRET_KEY)) {
      assertThatThrownBy(elb::describeAccountLimits)
          .isInstanceOfSatisfying(ElasticLoadBalancingV2Exception.class,
              e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidClientTokenId"));
    }
  }

  /**
   * A body over the API's 1 MiB is refused as soon as it is known to be, before it is read (it was
   * read whole into memory first: a client could send gigabytes): a Content-Length over the limit at
   * once, a chunked body when it passes it. The answer is AWS's error shape, and the connection closes.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"Content-Length", "chunked"})
  void bodyOverTheLimit_isRefusedBeforeItIsRead(String framing) {
    try (RawConnection c = RawConnection.open(gateway.controlPort()).readTimeout(10_000)) {
      String head = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n";
      if (framing.equals("chunked")) {
        c.send(head + "Transfer-Encoding: chunked\r\n\r\n");
        String chunk = "a".repeat(64 * 1024);
        for (int i = 0; i < 17; i++) { // a little over 1 MiB, and no last chunk
          c.send(Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n");
        }
      } else {
        c.send(head + "Content-Length: 10000000000\r\n\r\nAction=DescribeTargetGroups");
      }

      RawConnection.Response r = c.read();

      assertThat(r.status()).isEqualTo(400);
      assertThat(r.bodyText()).contains("<Code>ValidationError</Code><Message>the request body is over 1048576 bytes");
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
  }

  @Test
  void unsignedRequest_isMissingAuthenticationToken() {
    try (Http http = new Http(client)) {
      Http.Response r = http.send(HttpMethod.POST, "127.0.0.1", gateway.controlPort(), "/",
          Map.of("Content-Type", "application/x-www-form-urlencoded"), "Action=DescribeTargetGroups&Version=2015-12-01");
      assertThat(r.status()).isEqualTo(403);
      assertThat(r.header("Content-Type")).isEqualTo("text/xml");
      assertThat(r.body()).startsWith("<ErrorResponse xmlns=\"http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/\">"
          + "<Error><Type>Sender</Type><Code>MissingAuthenticationToken</Code>");
      assertThat(r.body()).containsPattern("</Error><RequestId>[0-9a-f-]{36}</RequestId></ErrorResponse>$");
    }
  }
}
