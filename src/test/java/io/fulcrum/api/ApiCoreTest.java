package io.fulcrum.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
    // An operation Fulcrum does not answer: a signed request reaches the dispatcher, InvalidAction, parsed by the SDK.
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(gateway.controlPort())) {
      assertThatThrownBy(() -> elb.describeTrustStores(b -> { }))
          .isInstanceOfSatisfying(ElasticLoadBalancingV2Exception.class, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAction");
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
