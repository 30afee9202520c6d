package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.forward;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.fulcrum.model.Arns;
import io.fulcrum.testing.LogFiles;
import io.fulcrum.testing.Ports;
import io.fulcrum.tls.SelfSignedCertificate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Certificate;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Cipher;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeSslPoliciesResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Listener;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.SslPolicy;

/**
 * HTTPS listeners through the API: the self-signed certificate and the config file's certificates
 * named by ARN, SNI certificates added and removed, security policies, the TLS side persisted in the
 * state file; real TLS handshakes check each step.
 */
class HttpsListenerApiTest {

  private static final String SELF_SIGNED = new Arns("us-east-1", "000000000000").selfSignedCertificate();

  @TempDir
  Path dir;

  @TempDir
  Path certDir;

  private LbApiHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  private SelfSignedCertificate.PemFiles apiCertificate() {
    return SelfSignedCertificate.ensure(certDir, List.of("api.example.test"));
  }

  private String extraYaml(SelfSignedCertificate.PemFiles pem) {
    return "certificates:\n  - {certificate: %s, private-key: %s}\n".formatted(pem.certificate(), pem.privateKey());
  }

  private static String arnOf(SelfSignedCertificate.PemFiles pem) {
    return new Arns("us-east-1", "000000000000").certificate(pem.certificate().toString());
  }

  @Test
  void httpsListener_servesWithItsCertificates_andSniPicksTheAddedOne() throws Exception {
    SelfSignedCertificate.PemFiles pem = apiCertificate();
    h = LbApiHarness.start(dir, extraYaml(pem), 1);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();

    Listener created = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(port)
        .certificates(c -> c.certificateArn(SELF_SIGNED)).defaultActions(forward(h.tg("blue")))).listeners().get(0);
    assertThat(created.sslPolicy()).isEqualTo("ELBSecurityPolicy-2016-08");
    assertThat(created.certificates()).extracting(Certificate::certificateArn).containsExactly(SELF_SIGNED);

    Exchange plain = get("127.0.0.1", port, null, "TLSv1.2");
    assertThat(plain.response()).startsWith("HTTP/1.1 200").endsWith("blue");
    assertThat(names(plain.peer())).doesNotContain("api.example.test");
    assertThat(get("127.0.0.2", port, null, "TLSv1.2").response()).endsWith("blue");
    // The default policy, ELBSecurityPolicy-2016-08, stops at TLS 1.2.
    assertThatThrownBy(() -> get("127.0.0.1", port, null, "TLSv1.3")).isInstanceOf(SSLHandshakeException.class);

    String listener = created.listenerArn();
    h.elb.addListenerCertificates(b -> b.listenerArn(listener).certificates(c -> c.certificateArn(arnOf(pem))));
    h.elb.modifyListener(b -> b.listenerArn(listener).sslPolicy("ELBSecurityPolicy-TLS13-1-2-2021-06"));
    assertThat(names(get("127.0.0.1", port, "api.example.test", "TLSv1.3").peer())).contains("api.example.test");
    assertThat(names(get("127.0.0.1", port, "other.example.test", "TLSv1.3").peer())).doesNotContain("api.example.test");
    assertThat(h.elb.describeListenerCertificates(b -> b.listenerArn(listener)).certificates())
        .extracting(Certificate::certificateArn, Certificate::isDefault)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(SELF_SIGNED, true),
            org.assertj.core.groups.Tuple.tuple(arnOf(pem), false));

    // The default certificate in the certificate list too: described twice, as AWS does, served as before.
    h.elb.addListenerCertificates(b -> b.listenerArn(listener).certificates(c -> c.certificateArn(SELF_SIGNED)));
    assertThat(h.elb.describeListenerCertificates(b -> b.listenerArn(listener)).certificates())
        .extracting(Certificate::certificateArn, Certificate::isDefault)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(SELF_SIGNED, true),
            org.assertj.core.groups.Tuple.tuple(arnOf(pem), false), org.assertj.core.groups.Tuple.tuple(SELF_SIGNED, false));
    assertThat(names(get("127.0.0.1", port, "other.example.test", "TLSv1.3").peer())).doesNotContain("api.example.test");
    h.elb.removeListenerCertificates(b -> b.listenerArn(listener).certificates(c -> c.certificateArn(SELF_SIGNED)));
    assertThat(h.elb.describeListenerCertificates(b -> b.listenerArn(listener)).certificates())
        .as("removed from the list; still the default").extracting(Certificate::certificateArn, Certificate::isDefault)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(SELF_SIGNED, true),
            org.assertj.core.groups.Tuple.tuple(arnOf(pem), false));

    h.refusedUnchanged(() -> h.elb.removeListenerCertificates(b -> b.listenerArn(listener)
        .certificates(c -> c.certificateArn(SELF_SIGNED))), "OperationNotPermitted");
    h.elb.removeListenerCertificates(b -> b.listenerArn(listener).certificates(c -> c.certificateArn(arnOf(pem))));
    assertThat(names(get("127.0.0.1", port, "api.example.test", "TLSv1.3").peer())).doesNotContain("api.example.test");
  }

  /** The access log's chosen_cert_arn is the ARN the API names the certificate by, one added later included. */
  @Test
  void theAccessLog_namesEachSessionsCertificate_byItsArn() throws Exception {
    SelfSignedCertificate.PemFiles pem = apiCertificate();
    h = LbApiHarness.start(dir, extraYaml(pem), 1);
    String lb = h.createLoadBalancer("web");
    h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb).attributes(
        a -> a.key("access_logs.s3.enabled").value("true"), a -> a.key("access_logs.s3.bucket").value("logs")));
    int port = Ports.free();
    String listener = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(port)
        .certificates(c -> c.certificateArn(SELF_SIGNED)).defaultActions(forward(h.tg("blue"))))
        .listeners().get(0).listenerArn();
    assertThat(get("127.0.0.1", port, "api.example.test", "TLSv1.2").response()).endsWith("blue");
    h.elb.addListenerCertificates(b -> b.listenerArn(listener).certificates(c -> c.certificateArn(arnOf(pem))));
    assertThat(get("127.0.0.1", port, "api.example.test", "TLSv1.2").response()).endsWith("blue");
    h.close(); // completes the log file under way
    h = null;

    List<String> lines = LogFiles.lines(LogFiles.await(dir.resolve("s3").resolve("logs"), 1).get(0));
    assertThat(lines).extracting(line -> LogFiles.fields(line).get(20)).containsExactly(SELF_SIGNED, arnOf(pem));
  }

  /** Two listener verticles share each socket: the change of kind hands it over between them. */
  @Test
  void modifyListener_changesPolicyAndDefaultCertificate_andHttpsSurvivesARestart() throws Exception {
    SelfSignedCertificate.PemFiles pem = apiCertificate();
    h = LbApiHarness.start(dir, extraYaml(pem), 2);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    String listener = h.createListener(lb, port, forward(h.tg("blue")));

    Listener https = h.elb.modifyListener(b -> b.listenerArn(listener).protocol(ProtocolEnum.HTTPS)
        .certificates(c -> c.certificateArn(arnOf(pem))).sslPolicy("ELBSecurityPolicy-TLS13-1-3-2021-06"))
        .listeners().get(0);
    assertThat(https.listenerArn()).isEqualTo(listener);
    assertThat(https.sslPolicy()).isEqualTo("ELBSecurityPolicy-TLS13-1-3-2021-06");
    assertThat(names(get("127.0.0.1", port, null, "TLSv1.3").peer())).contains("api.example.test");
    assertThatThrownBy(() -> get("127.0.0.1", port, null, "TLSv1.2")).isInstanceOf(SSLHandshakeException.class);

    h.close();
    h = LbApiHarness.start(dir, extraYaml(pem), 2);
    Listener again = h.elb.describeListeners(b -> b.listenerArns(listener)).listeners().get(0);
    assertThat(again.protocol()).isEqualTo(ProtocolEnum.HTTPS);
    assertThat(again.sslPolicy()).isEqualTo("ELBSecurityPolicy-TLS13-1-3-2021-06");
    assertThat(again.certificates()).extracting(Certificate::certificateArn).containsExactly(arnOf(pem));
    assertThat(names(get("127.0.0.1", port, null, "TLSv1.3").peer())).contains("api.example.test");

    // The restarted harness has a new blue backend: register it in place of the old one.
    String blue = h.tg("blue");
    int oldPort = h.resources().targetGroup(blue).orElseThrow().targets().get(0).port();
    h.elb.registerTargets(b -> b.targetGroupArn(blue).targets(t -> t.id("127.0.0.1").port(h.blue.port())));
    h.elb.deregisterTargets(b -> b.targetGroupArn(blue).targets(t -> t.id("127.0.0.1").port(oldPort)));
    assertThat(get("127.0.0.1", port, null, "TLSv1.3").response()).endsWith("blue");

    h.elb.modifyListener(b -> b.listenerArn(listener).protocol(ProtocolEnum.HTTP));
    assertThat(LbApiHarness.body("127.0.0.1", port, "/")).isEqualTo("blue");
    assertThat(LbApiHarness.body("127.0.0.2", port, "/")).isEqualTo("blue");
    assertThat(h.elb.describeListeners(b -> b.listenerArns(listener)).listeners().get(0).certificates()).isEmpty();
  }

  @Test
  void unknownCertificatesAndPolicies_areRefused_andChangeNothing() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    String http = h.createListener(lb, port, forward(h.tg("blue")));

    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS)
        .port(Ports.free()).certificates(c -> c.certificateArn("arn:aws:acm:us-east-1:000000000000:certificate/x"))
        .defaultActions(forward(h.tg("blue")))), "CertificateNotFound");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS)
        .port(Ports.free()).certificates(c -> c.certificateArn(SELF_SIGNED)).sslPolicy("ELBSecurityPolicy-Nope")
        .defaultActions(forward(h.tg("blue")))), "SSLPolicyNotFound");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(http).protocol(ProtocolEnum.HTTPS)),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.addListenerCertificates(b -> b.listenerArn(http)
        .certificates(c -> c.certificateArn(SELF_SIGNED))), "ValidationError");
  }

  /**
   * DescribeSSLPolicies through the SDK: every policy a listener takes, or those named, with AWS's
   * TLS versions and cipher suites in priority order; paged; an unknown name is SSLPolicyNotFound.
   * A policy listed is one CreateListener takes.
   */
  @Test
  void describeSslPolicies_listsThePoliciesListenersTake_withTheirVersionsAndCiphers() {
    h = LbApiHarness.start(dir);

    List<SslPolicy> all = h.elb.describeSSLPolicies(b -> { }).sslPolicies();
    assertThat(all).extracting(SslPolicy::name).contains("ELBSecurityPolicy-2016-08",
        "ELBSecurityPolicy-TLS13-1-2-2021-06", "ELBSecurityPolicy-TLS13-1-3-2021-06").doesNotHaveDuplicates();
    SslPolicy tls13 = h.elb.describeSSLPolicies(b -> b.names("ELBSecurityPolicy-TLS13-1-3-2021-06"))
        .sslPolicies().get(0);
    assertThat(tls13.sslProtocols()).containsExactly("TLSv1.3");
    assertThat(tls13.ciphers()).extracting(Cipher::name, Cipher::priority).containsExactly(
        tuple("TLS_AES_128_GCM_SHA256", 1), tuple("TLS_AES_256_GCM_SHA384", 2),
        tuple("TLS_CHACHA20_POLY1305_SHA256", 3));
    assertThat(tls13.supportedLoadBalancerTypes()).containsExactly("application", "network");

    DescribeSslPoliciesResponse first = h.elb.describeSSLPolicies(b -> b.pageSize(2));
    DescribeSslPoliciesResponse second = h.elb.describeSSLPolicies(b -> b.pageSize(2).marker(first.nextMarker()));
    assertThat(first.sslPolicies()).extracting(SslPolicy::name).containsExactlyElementsOf(
        all.subList(0, 2).stream().map(SslPolicy::name).toList());
    assertThat(second.sslPolicies()).extracting(SslPolicy::name).containsExactlyElementsOf(
        all.subList(2, 4).stream().map(SslPolicy::name).toList());
    assertThat(h.elb.describeSSLPolicies(b -> b.loadBalancerType(LoadBalancerTypeEnum.GATEWAY)).sslPolicies())
        .isEmpty();
    LbApiHarness.refused(() -> h.elb.describeSSLPolicies(b -> b.names("ELBSecurityPolicy-Nope")), "SSLPolicyNotFound");

    String lb = h.createLoadBalancer("web");
    for (SslPolicy policy : all) {
      Listener l = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(Ports.free())
          .certificates(c -> c.certificateArn(SELF_SIGNED)).sslPolicy(policy.name())
          .defaultActions(forward(h.tg("blue")))).listeners().get(0);
      assertThat(l.sslPolicy()).isEqualTo(policy.name());
      h.elb.deleteListener(b -> b.listenerArn(l.listenerArn()));
    }
  }

  private static List<String> names(X509Certificate cert) throws CertificateParsingException {
    List<String> names = new ArrayList<>();
    if (cert.getSubjectAlternativeNames() != null) {
      cert.getSubjectAlternativeNames().forEach(n -> names.add(String.valueOf(n.get(1))));
    }
    return names;
  }

  record Exchange(X509Certificate peer, String response) {
  }

  /** A GET / over TLS {@code protocol}, with SNI {@code serverName} when given, trusting any certificate. */
  private static Exchange get(String address, int port, String serverName, String protocol) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(address, port)) {
      socket.setSoTimeout(10_000);
      SSLParameters params = socket.getSSLParameters();
      params.setProtocols(new String[] {protocol});
      params.setServerNames(serverName == null ? List.of() : List.of(new SNIHostName(serverName)));
      socket.setSSLParameters(params);
      socket.startHandshake();
      X509Certificate peer = (X509Certificate) socket.getSession().getPeerCertificates()[0];
      socket.getOutputStream().write(("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      return new Exchange(peer, readAll(socket.getInputStream()));
    }
  }

  private static String readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toString(StandardCharsets.UTF_8);
  }

  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
