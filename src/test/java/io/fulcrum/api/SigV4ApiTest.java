package io.fulcrum.api;

import static io.fulcrum.api.ApiGateway.assertAwsError;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.ElbClients;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;

/**
 * SigV4 as the real SDK signs it: each kind of bad or missing signature answered with AWS's code,
 * and a mutating call refused so changes nothing (the groups and the state file stay as they were).
 */
class SigV4ApiTest {

  private static final String CREATE = "Action=CreateTargetGroup&Version=2015-12-01&Name=signed&Protocol=HTTP&Port=80"
      + "&VpcId=vpc-fulcrum&TargetType=ip";

  @TempDir
  Path data;

  private ApiGateway api;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private List<TargetGroup> before;
  private String stateBefore;

  @BeforeEach
  void start() throws IOException {
    api = ApiGateway.start(data);
    before = api.allGroups();
    stateBefore = Files.readString(data.resolve("state.json"));
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private void nothingChanged() throws IOException {
    assertThat(api.allGroups()).isEqualTo(before);
    assertThat(Files.readString(data.resolve("state.json"))).isEqualTo(stateBefore);
  }

  /** Signs {@code body} with the SDK's own SigV4 signer, as the SDK would send it. */
  private SignedRequest sign(String body, Clock clock, String region, Map<String, String> extraHeaders) {
    SdkHttpRequest.Builder request = SdkHttpRequest.builder().method(SdkHttpMethod.POST)
        .uri(URI.create("http://127.0.0.1:" + api.gateway.controlPort() + "/"))
        .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8");
    extraHeaders.forEach(request::putHeader);
    return AwsV4HttpSigner.create().sign(r -> r
        .identity(AwsCredentialsIdentity.create(ElbClients.ACCESS_KEY, ElbClients.SECRET_KEY))
        .request(request.build())
        .payload(ContentStreamProvider.fromUtf8String(body))
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "elasticloadbalancing")
        .putProperty(AwsV4HttpSigner.REGION_NAME, region)
        .putProperty(HttpSigner.SIGNING_CLOCK, clock));
  }

  /** Sends the signed request's headers with {@code body} (which may differ from what was signed). */
  private HttpResponse<String> send(SignedRequest signed, String body) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(signed.request().getUri())
        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    Set<String> restricted = Set.of("host", "content-length", "connection", "expect", "upgrade");
    signed.request().headers().forEach((name, values) -> {
      if (!restricted.contains(name.toLowerCase(java.util.Locale.ROOT))) {
        values.forEach(v -> b.header(name, v));
      }
    });
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void assertError(HttpResponse<String> r, int status, String code) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.body()).contains("<Code>" + code + "</Code>");
  }

  private static String sha256(String s) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void rawSignedRequest_isAccepted_soTheNegativeCasesBelowFailForTheirOwnReason() throws Exception {
    HttpResponse<String> r = send(sign(CREATE, Clock.systemUTC(), "us-east-1", Map.of()), CREATE);

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(api.allGroups()).extracting(TargetGroup::targetGroupName).contains("signed");
  }

  @Test
  void missingSignature_isMissingAuthenticationToken() throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.gateway.controlPort()
            + "/")).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(CREATE)).build(), HttpResponse.BodyHandlers.ofString());

    assertError(r, 403, "MissingAuthenticationToken");
    nothingChanged();
  }

  @Test
  void unknownAccessKey_isInvalidClientTokenId() throws Exception {
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(api.gateway.controlPort(), "AKIAUNKNOWN000000000",
        ElbClients.SECRET_KEY)) {
      assertAwsError(() -> elb.createTargetGroup(b -> b.name("x").protocol("HTTP").port(80).vpcId(ApiGateway.VPC)),
          "InvalidClientTokenId", 403);
    }
    nothingChanged();
  }

  @Test
  void wrongSecret_isSignatureDoesNotMatch() throws Exception {
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(api.gateway.controlPort(), ElbClients.ACCESS_KEY,
        "wrong/secret/0000000000000000000000000000")) {
      assertAwsError(() -> elb.createTargetGroup(b -> b.name("x").protocol("HTTP").port(80).vpcId(ApiGateway.VPC)),
          "SignatureDoesNotMatch", 403);
    }
    nothingChanged();
  }

  @Test
  void tamperedBody_isSignatureDoesNotMatch() throws Exception {
    SignedRequest signed = sign(CREATE, Clock.systemUTC(), "us-east-1", Map.of());

    assertError(send(signed, CREATE.replace("Name=signed", "Name=forged")), 403, "SignatureDoesNotMatch");
    nothingChanged();
  }

  @Test
  void tamperedBody_underASignedPayloadHashHeader_isSignatureDoesNotMatch() throws Exception {
    // The header is signed, so the signature holds; the body it claims to hash is not the one sent.
    SignedRequest signed = sign(CREATE, Clock.systemUTC(), "us-east-1", Map.of("x-amz-content-sha256", sha256(CREATE)));

    assertError(send(signed, CREATE.replace("Name=signed", "Name=forged")), 403, "SignatureDoesNotMatch");
    nothingChanged();
  }

  @Test
  void requestSigned16MinutesAgo_isRequestExpired() throws Exception {
    Clock past = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-16));

    assertError(send(sign(CREATE, past, "us-east-1", Map.of()), CREATE), 400, "RequestExpired");
    nothingChanged();
  }

  @Test
  void wrongRegionInTheScope_isSignatureDoesNotMatch() throws Exception {
    try (ElasticLoadBalancingV2Client elb = ElasticLoadBalancingV2Client.builder()
        .endpointOverride(URI.create("http://127.0.0.1:" + api.gateway.controlPort()))
        .region(Region.US_WEST_2)
        .credentialsProvider(() -> software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
            ElbClients.ACCESS_KEY, ElbClients.SECRET_KEY))
        .httpClient(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
        .build()) {
      assertAwsError(() -> elb.createTargetGroup(b -> b.name("x").protocol("HTTP").port(80).vpcId(ApiGateway.VPC)),
          "SignatureDoesNotMatch", 403).hasMessageContaining("Credential should be scoped to a valid region, not"
          + " 'us-west-2'");
    }
    nothingChanged();
  }
}
