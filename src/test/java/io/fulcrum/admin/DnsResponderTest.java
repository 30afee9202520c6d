package io.fulcrum.admin;

import static io.fulcrum.testing.DnsProbe.count;
import static io.fulcrum.testing.DnsProbe.packet;
import static io.fulcrum.testing.DnsProbe.query;
import static io.fulcrum.testing.DnsProbe.question;
import static io.fulcrum.testing.DnsProbe.raw;
import static io.fulcrum.testing.DnsProbe.rcode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.DnsProbe;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.dns.DnsClient;
import io.vertx.core.dns.DnsClientOptions;
import io.vertx.core.dns.DnsException;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.naming.NameNotFoundException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The DNS responder, asked by real clients (Netty's resolver, the JDK's JNDI provider, Vert.x's
 * DnsClient) and by raw datagrams: the load balancers' names resolve to the node addresses of the
 * zones that pass DNS failover, TTL 60, authoritatively; everything else gets the code an
 * authoritative server gives.
 */
class DnsResponderTest {

  private static final String WEB = "web.us-east-1.elb.localhost";
  private static final String LEGACY = "legacy.us-east-1.elb.localhost";
  private static final String BIG = "big.us-east-1.elb.localhost";
  private static final int A = 1;
  private static final int AAAA = 28;

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final AtomicInteger healthB = new AtomicInteger(200);
  private final AtomicInteger healthApiB = new AtomicInteger(200);
  private final Http http = new Http(backends);
  private int listenerPort;
  private Gateway gateway;
  private DnsProbe dns;

  @BeforeEach
  void start() {
    Backend a = Backend.start(backends, "a", "127.0.0.1", req -> answer(req, "a", new AtomicInteger(200)));
    Backend b = Backend.start(backends, "b", "127.0.0.1", req -> answer(req, "b", healthB));
    Backend apiA = Backend.start(backends, "api-a", "127.0.0.1", req -> answer(req, "api-a", new AtomicInteger(200)));
    Backend apiB = Backend.start(backends, "api-b", "127.0.0.1", req -> answer(req, "api-b", healthApiB));
    listenerPort = Ports.free();
    StringBuilder bigNodes = new StringBuilder();
    for (int i = 1; i <= 40; i++) {
      bigNodes.append("  - {zone: zone-z, address: 127.0.1.").append(i).append("}\n");
    }
    gateway = Gateway.start(TestVertx.create(), """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-a, address: "::1"}
          - {zone: zone-b, address: 127.0.0.2}
          - {zone: zone-c, address: 127.0.0.3}
        %s
        load-balancers:
          - name: web
            zones: [zone-a, zone-b]
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: tg}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/api/*"]}], actions: [{type: forward, target-group: api}]}
          - name: Legacy
            zones: [zone-c]
          - name: big
            zones: [zone-z]
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 2, unhealthy-threshold-count: 2}
            attributes: {load_balancing.cross_zone.enabled: "false"}
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-b}
          - name: api
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 2, unhealthy-threshold-count: 2}
            attributes: {load_balancing.cross_zone.enabled: "false"}
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-b}
        """.formatted(bigNodes, listenerPort, a.port(), b.port(), apiA.port(), apiB.port()), 1, time);
    tick();
    dns = new DnsProbe("127.0.0.1", gateway.dnsPort());
  }

  @AfterEach
  void stop() {
    if (dns != null) {
      dns.close();
    }
    http.close();
    gateway.close();
    Await.result(backends.close());
  }

  private static void answer(HttpServerRequest req, String id, AtomicInteger health) {
    if (req.path().equals("/health")) {
      req.response().setStatusCode(health.get()).end();
    } else {
      req.response().end(id);
    }
  }

  /** One health-check interval, every check's answer in, and every event loop on the new snapshot. */
  private void tick() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  private int port() {
    return gateway.dnsPort();
  }

  @Test
  void aQuery_answersTheNodeAddressOfEveryPassingZone_authoritatively_withTtl60() {
    DnsProbe.Answer r = dns.query(WEB, DnsRecordType.A);

    assertThat(r.code()).isEqualTo(DnsResponseCode.NOERROR);
    assertThat(r.authoritative()).isTrue();
    assertThat(r.truncated()).isFalse();
    assertThat(r.addresses()).containsExactlyInAnyOrder("127.0.0.1", "127.0.0.2");
    assertThat(r.answers()).allSatisfy(rr -> {
      assertThat(rr.name()).isEqualTo(WEB);
      assertThat(rr.type()).isEqualTo(DnsRecordType.A);
      assertThat(rr.ttl()).isEqualTo(60);
    });
    assertThat(r.authority()).isEmpty();
  }

  @Test
  void answer_echoesTheQueryIdAndTheQuestionByteForByte() {
    byte[] q = question("wEb.US-east-1.elb.LOCALHOST", A);
    byte[] answer = raw("127.0.0.1", port(), packet(0xBEEF, 0x0100, 1, 0, 0, 0, q));

    assertThat(DnsProbe.id(answer)).isEqualTo(0xBEEF);
    assertThat(answer[2] & 0x80).as("QR").isNotZero();
    assertThat(answer[2] & 0x04).as("AA").isNotZero();
    assertThat(answer[2] & 0x01).as("RD copied").isNotZero();
    assertThat(answer[3] & 0x80).as("RA: no recursion here").isZero();
    assertThat(rcode(answer)).isEqualTo(0);
    assertThat(count(answer, 0)).isEqualTo(1);
    assertThat(count(answer, 1)).isEqualTo(2);
    assertThat(Arrays.copyOfRange(answer, 12, 12 + q.length)).isEqualTo(q);
  }

  @Test
  void names_matchCaseInsensitively() throws Exception {
    assertThat(DnsProbe.jdk("127.0.0.1", port(), "WEB.US-EAST-1.ELB.LOCALHOST", "A"))
        .containsExactlyInAnyOrder("127.0.0.1", "127.0.0.2");
    DnsProbe.Answer mixed = dns.query("Web.Us-East-1.Elb.Localhost", DnsRecordType.A);
    assertThat(mixed.addresses()).containsExactlyInAnyOrder("127.0.0.1", "127.0.0.2");
    assertThat(mixed.question().name()).as("the question as asked").isEqualTo("Web.Us-East-1.Elb.Localhost");
    // The load balancer is named "Legacy"; its DNS name is lower case, and any case resolves.
    assertThat(dns.query("LEGACY.us-east-1.elb.localhost", DnsRecordType.A).addresses()).containsExactly("127.0.0.3");
  }

  @Test
  void vertxDnsClient_resolvesAAndAaaa() throws Exception {
    List<String> v4 = vertxDns(c -> c.resolveA(WEB));
    assertThat(v4).containsExactlyInAnyOrder("127.0.0.1", "127.0.0.2");
    List<String> v6 = vertxDns(c -> c.resolveAAAA(WEB));
    assertThat(v6).hasSize(1);
    assertThat(InetAddress.getByName(v6.get(0))).isEqualTo(InetAddress.getByName("::1"));
  }

  @Test
  void aaaaQuery_answersTheIpv6Nodes_andAQuery_onlyTheIpv4Ones() {
    DnsProbe.Answer v6 = dns.query(WEB, DnsRecordType.AAAA);

    assertThat(v6.code()).isEqualTo(DnsResponseCode.NOERROR);
    assertThat(v6.answers()).singleElement().satisfies(rr -> {
      assertThat(rr.type()).isEqualTo(DnsRecordType.AAAA);
      assertThat(rr.address()).isEqualTo("0:0:0:0:0:0:0:1");
      assertThat(rr.ttl()).isEqualTo(60);
    });
    assertThat(dns.query(WEB, DnsRecordType.A).answers()).extracting(DnsProbe.Rr::type).containsOnly(DnsRecordType.A);
  }

  @Test
  void aaaaQuery_forALoadBalancerWithOnlyIpv4Nodes_isAnEmptyNoError_withTheDomainsSoa() {
    DnsProbe.Answer r = dns.query(LEGACY, DnsRecordType.AAAA);

    assertThat(r.code()).isEqualTo(DnsResponseCode.NOERROR);
    assertThat(r.authoritative()).isTrue();
    assertThat(r.answers()).isEmpty();
    assertThat(r.authority()).singleElement().satisfies(rr -> {
      assertThat(rr.type()).isEqualTo(DnsRecordType.SOA);
      assertThat(rr.name()).isEqualTo("elb.localhost");
      assertThat(rr.ttl()).isEqualTo(60);
    });
  }

  @Test
  void otherTypes_ofALoadBalancerName_areAnEmptyNoError() {
    for (DnsRecordType type : List.of(DnsRecordType.MX, DnsRecordType.TXT, DnsRecordType.NS, DnsRecordType.CNAME)) {
      DnsProbe.Answer r = dns.query(WEB, type);
      assertThat(r.code()).as("%s", type).isEqualTo(DnsResponseCode.NOERROR);
      assertThat(r.answers()).as("%s", type).isEmpty();
    }
  }

  @Test
  void unknownName_underTheDomain_isNxdomain_forEveryClient() {
    DnsProbe.Answer r = dns.query("nope.us-east-1.elb.localhost", DnsRecordType.A);

    assertThat(r.code()).isEqualTo(DnsResponseCode.NXDOMAIN);
    assertThat(r.authoritative()).isTrue();
    assertThat(r.answers()).isEmpty();
    assertThat(r.authority()).extracting(DnsProbe.Rr::type).containsExactly(DnsRecordType.SOA);
    assertThat(dns.query("web.eu-west-1.elb.localhost", DnsRecordType.A).code()).isEqualTo(DnsResponseCode.NXDOMAIN);
    assertThat(dns.query("x." + WEB, DnsRecordType.A).code()).isEqualTo(DnsResponseCode.NXDOMAIN);

    assertThatThrownBy(() -> DnsProbe.jdk("127.0.0.1", port(), "nope.us-east-1.elb.localhost", "A"))
        .isInstanceOf(NameNotFoundException.class);
    assertThatThrownBy(() -> vertxDns(c -> c.resolveA("nope.us-east-1.elb.localhost")))
        .isInstanceOfSatisfying(DnsException.class, e -> assertThat(e.code())
            .isEqualTo(io.vertx.core.dns.DnsResponseCode.NXDOMAIN));
  }

  @Test
  void namesAboveALoadBalancerName_exist_withoutData_andTheApexHasItsSoa() {
    assertThat(dns.query("us-east-1.elb.localhost", DnsRecordType.A).code()).isEqualTo(DnsResponseCode.NOERROR);
    assertThat(dns.query("elb.localhost", DnsRecordType.A).code()).isEqualTo(DnsResponseCode.NOERROR);

    DnsProbe.Answer soa = dns.query("elb.localhost", DnsRecordType.SOA);
    assertThat(soa.code()).isEqualTo(DnsResponseCode.NOERROR);
    assertThat(soa.answers()).singleElement().satisfies(rr -> assertThat(rr.type()).isEqualTo(DnsRecordType.SOA));
  }

  @Test
  void nameOutsideTheDomain_isRefused_notAnsweredAsIfAuthoritative() {
    DnsProbe.Answer r = dns.query("example.com", DnsRecordType.A);

    assertThat(r.code()).isEqualTo(DnsResponseCode.REFUSED);
    assertThat(r.authoritative()).isFalse();
    assertThat(dns.query("localhost", DnsRecordType.A).code()).isEqualTo(DnsResponseCode.REFUSED);
  }

  static Stream<Named<byte[]>> malformed() {
    byte[] web = question(WEB, A);
    byte[] truncatedName = Arrays.copyOf(web, 10);
    byte[] labelPastTheEnd = {30, 'w', 'e', 'b'};
    byte[] noTypeAndClass = Arrays.copyOf(web, web.length - 3);
    byte[] pointer = {(byte) 0xC0, 12, 0, 1, 0, 1};
    byte[] extendedLabel = {(byte) 0x41, 'a', 0, 0, 1, 0, 1};
    byte[] twoQuestions = ByteBuffer.allocate(web.length * 2).put(web).put(web).array();
    byte[] longName = new byte[300];
    for (int i = 0; i + 64 <= 256; i += 64) {
      longName[i] = 63;
      Arrays.fill(longName, i + 1, i + 64, (byte) 'a');
    }
    return Stream.of(
        Named.of("a name cut short", packet(7, 0x0100, 1, 0, 0, 0, truncatedName)),
        Named.of("a label longer than the packet", packet(7, 0x0100, 1, 0, 0, 0, labelPastTheEnd)),
        Named.of("no type and class", packet(7, 0x0100, 1, 0, 0, 0, noTypeAndClass)),
        Named.of("a compression pointer as the question", packet(7, 0x0100, 1, 0, 0, 0, pointer)),
        Named.of("an extended label type", packet(7, 0x0100, 1, 0, 0, 0, extendedLabel)),
        Named.of("a name over 255 bytes", packet(7, 0x0100, 1, 0, 0, 0, longName)),
        Named.of("no question", packet(7, 0x0100, 0, 0, 0, 0, new byte[0])),
        Named.of("two questions", packet(7, 0x0100, 2, 0, 0, 0, twoQuestions)),
        Named.of("an answer record in a query", packet(7, 0x0100, 1, 1, 0, 0, web)),
        Named.of("an additional record that is not there", packet(7, 0x0100, 1, 0, 0, 1, web)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedQuery_isAnsweredFormerr_withItsId(byte[] datagram) {
    byte[] answer = raw("127.0.0.1", port(), datagram);

    assertThat(rcode(answer)).as("rcode").isEqualTo(1);
    assertThat(DnsProbe.id(answer)).isEqualTo(7);
    assertThat(answer[2] & 0x80).as("QR").isNotZero();
    assertThat(count(answer, 1)).as("no answers").isZero();
  }

  @Test
  void queryWithAnOpcodeOtherThanQuery_isNotimp() {
    byte[] status = packet(9, 2 << 11, 1, 0, 0, 0, question(WEB, A));

    byte[] answer = raw("127.0.0.1", port(), status);

    assertThat(DnsProbe.id(answer)).isEqualTo(9);
    assertThat(rcode(answer)).isEqualTo(4);
    assertThat((answer[2] >> 3) & 0xF).as("opcode echoed").isEqualTo(2);
  }

  @Test
  void datagramsShorterThanAHeader_andResponses_getNoAnswer() {
    byte[] shortOne = {0x12, 0x34, 0x01};
    byte[] response = packet(0x5555, 0x8400, 1, 0, 0, 0, question(WEB, A));
    byte[] valid = query(0x7777, WEB, A);

    byte[] first = raw("127.0.0.1", port(), shortOne, response, valid);

    assertThat(DnsProbe.id(first)).as("the first datagram back answers the valid query").isEqualTo(0x7777);
  }

  @Test
  void ednsVersion1_isAnsweredBadvers_inTheOptRecord() {
    byte[] opt = {0, 0, 41, 0x10, 0, 0, 1, 0, 0, 0, 0}; // root, OPT, 4096 bytes, version 1
    byte[] q = question(WEB, A);
    byte[] body = ByteBuffer.allocate(q.length + opt.length).put(q).put(opt).array();

    byte[] answer = raw("127.0.0.1", port(), packet(11, 0x0100, 1, 0, 0, 1, body));

    assertThat(count(answer, 1)).isZero();
    assertThat(count(answer, 3)).as("an OPT record").isEqualTo(1);
    int optAt = 12 + q.length;
    assertThat(answer[optAt + 2]).as("OPT type").isEqualTo((byte) 41);
    // BADVERS = 16: 0 in the header's 4 bits, 1 in the OPT record's extended RCODE byte.
    assertThat(rcode(answer)).isZero();
    assertThat(answer[optAt + 5]).isEqualTo((byte) 1);
  }

  @Test
  void answerLargerThan512Bytes_isTruncatedWithoutEdns_andWholeWithIt() {
    byte[] classic = raw("127.0.0.1", port(), query(3, BIG, A));
    assertThat(answerBitTc(classic)).as("TC").isTrue();
    assertThat(classic.length).isLessThanOrEqualTo(512);
    assertThat(count(classic, 1)).isBetween(1, 39);

    DnsProbe.Answer edns = dns.query(BIG, DnsRecordType.A);
    assertThat(edns.truncated()).isFalse();
    assertThat(edns.addresses()).containsExactlyInAnyOrderElementsOf(
        IntStream.rangeClosed(1, 40).mapToObj(i -> "127.0.1." + i).toList());
  }

  @Test
  void aTruncatedAnswer_isAskedAgainOverTcp_byNettysResolver_andComesWhole() {
    try (DnsProbe classic = new DnsProbe("127.0.0.1", port(), true)) {
      DnsProbe.Answer r = classic.query(BIG, DnsRecordType.A);

      assertThat(r.code()).isEqualTo(DnsResponseCode.NOERROR);
      assertThat(r.authoritative()).isTrue();
      assertThat(r.truncated()).isFalse();
      assertThat(r.addresses()).containsExactlyInAnyOrderElementsOf(
          IntStream.rangeClosed(1, 40).mapToObj(i -> "127.0.1." + i).toList());
    }
  }

  @Test
  void overTcp_queriesOnOneConnection_areAnsweredInOrder_whateverTheReadsSplit_andARuntGetsNoAnswer() throws Exception {
    byte[] big = framed(query(21, BIG, A));
    byte[] runt = framed(new byte[] {0, 22, 1, 0, 0});
    byte[] web = framed(query(23, WEB, A));
    try (Socket socket = new Socket("127.0.0.1", port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      // The first message and half of the second's length in one write, the rest in a second.
      byte[] all = ByteBuffer.allocate(big.length + runt.length + web.length).put(big).put(runt).put(web).array();
      out.write(all, 0, big.length + 1);
      out.flush();
      out.write(all, big.length + 1, all.length - big.length - 1);
      out.flush();
      DataInputStream in = new DataInputStream(socket.getInputStream());

      byte[] first = readFramed(in);
      byte[] second = readFramed(in);

      assertThat(DnsProbe.id(first)).isEqualTo(21);
      assertThat(answerBitTc(first)).as("TC").isFalse();
      assertThat(first.length).isGreaterThan(512);
      assertThat(count(first, 1)).isEqualTo(40);
      assertThat(DnsProbe.id(second)).as("the runt between them got no answer").isEqualTo(23);
      assertThat(rcode(second)).isZero();
      assertThat(count(second, 1)).isEqualTo(2);
    }
  }

  @Test
  void overTcp_connectionsPastTheCap_areClosedAtOnce_andOneFreedIsTakenAgain() throws Exception {
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < DnsResponderVerticle.MAX_TCP_CONNECTIONS; i++) {
        open.add(new Socket("127.0.0.1", port()));
      }
      // Each of those is served (the last one opened is asked, so every one before it was counted).
      assertThat(DnsProbe.id(askOverTcp(open.get(open.size() - 1), 31))).isEqualTo(31);

      try (Socket extra = new Socket("127.0.0.1", port())) {
        extra.setSoTimeout(5_000); // under the idle timeout: a close is the cap's
        int first;
        try {
          extra.getOutputStream().write(framed(query(33, WEB, A)));
          first = extra.getInputStream().read();
        } catch (java.net.SocketException reset) {
          first = -1; // closed before the query went out: reset
        }
        assertThat(first).as("closed without an answer").isEqualTo(-1);
      }

      open.remove(0).close();
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        try (Socket again = new Socket("127.0.0.1", port())) {
          assertThat(DnsProbe.id(askOverTcp(again, 32))).isEqualTo(32);
        }
      });
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /** Sends a query for the web load balancer over {@code socket} and reads its answer. */
  private static byte[] askOverTcp(Socket socket, int id) throws IOException {
    socket.setSoTimeout(10_000);
    socket.getOutputStream().write(framed(query(id, WEB, A)));
    socket.getOutputStream().flush();
    return readFramed(new DataInputStream(socket.getInputStream()));
  }

  /** A DNS message as TCP carries it: its length in two bytes, then the message. */
  private static byte[] framed(byte[] message) {
    return ByteBuffer.allocate(2 + message.length).putShort((short) message.length).put(message).array();
  }

  private static byte[] readFramed(DataInputStream in) throws IOException {
    byte[] message = new byte[in.readUnsignedShort()];
    in.readFully(message);
    return message;
  }

  private static boolean answerBitTc(byte[] answer) {
    return (answer[2] & 0x02) != 0;
  }

  @Test
  void zoneFailingDnsFailover_leavesTheAnswer_andComesBackWhenItsTargetRecovers() {
    healthB.set(503);
    tick();
    tick();
    awaitA(WEB, "127.0.0.1");
    assertThat(dns.query(WEB, DnsRecordType.AAAA).addresses()).containsExactly("0:0:0:0:0:0:0:1");

    healthB.set(200);
    tick();
    tick();
    awaitA(WEB, "127.0.0.1", "127.0.0.2");
  }

  @Test
  void oneTargetGroupFailingInAZone_pullsTheZoneForTheWholeLoadBalancer_whileItsOtherGroupsStillServeThere() {
    healthApiB.set(503);
    tick();
    tick();

    awaitA(WEB, "127.0.0.1");
    Http.Response ready = http.get("127.0.0.1", gateway.controlPort(), "/health/ready/zone-b", Map.of());
    assertThat(ready.status()).isEqualTo(503);
    assertThat(new JsonObject(ready.body()).getJsonArray("failing").getJsonObject(0).getJsonArray("targetGroups"))
        .containsExactly("api");
    // A client that still has zone B's address (TTL 60) is served there: by tg's healthy target,
    // and by api's unhealthy one (its only target in the zone: routing fails open).
    assertThat(http.get("127.0.0.2", listenerPort, "/", Map.of()).body()).isEqualTo("b");
    assertThat(http.get("127.0.0.2", listenerPort, "/api/x", Map.of()).body()).isEqualTo("api-b");
  }

  /** Waits (up to 5 s) until the A answer is exactly these addresses: the zone status travels on the bus. */
  private void awaitA(String name, String... addresses) {
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
        assertThat(dns.query(name, DnsRecordType.A).addresses()).containsExactlyInAnyOrder(addresses));
  }

  @Test
  void dnsDisabled_startsNoResponder() {
    try (Gateway off = Gateway.start(TestVertx.create(), """
        dns: {enabled: false}
        load-balancers:
          - name: lb
        """)) {
      assertThat(off.dnsPort()).isEqualTo(-1);
    }
  }

  /** Runs a Vert.x DnsClient call on a context of its own (never from the test thread directly). */
  private <T> T vertxDns(Function<DnsClient, Future<T>> call) {
    Context ctx = backends.getOrCreateContext();
    DnsClient client = backends.createDnsClient(new DnsClientOptions().setHost("127.0.0.1").setPort(port())
        .setQueryTimeout(5000).setRecursionDesired(false));
    Promise<T> done = Promise.promise();
    ctx.runOnContext(v -> call.apply(client).onComplete(done));
    try {
      return Await.result(done.future());
    } finally {
      client.close();
    }
  }
}
