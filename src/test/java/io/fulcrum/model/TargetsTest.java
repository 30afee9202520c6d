package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Target registration rules: IP ranges, families, instances, zones and ports (SPEC §8.1, §8.2). */
class TargetsTest {

  private static final String VE = Problem.VALIDATION_ERROR;
  private static final String IT = Problem.INVALID_TARGET;

  private static final String RUNNING = "i-0123456789abcdef0";
  private static final String STOPPED = "i-0badc0de";

  /** Two zones, the default "VPC" CIDRs (loopback), and an instance inventory. */
  private static final Environment ENV = new Environment("us-east-1", "000000000000",
      List.of(new Node("zone-a", "127.0.0.1"), new Node("zone-b", "127.0.0.2")),
      List.of(Cidr.parse("127.0.0.0/8"), Cidr.parse("::1/128")),
      Map.of(RUNNING, new Instance(RUNNING, "10.0.1.5", "zone-b", "running"),
          STOPPED, new Instance(STOPPED, "10.0.1.6", "zone-a", "stopped")),
      Map.of("my-function", new FunctionDefinition.InProcess("my-function", "com.example.Handler", null, 3, 128, 0)));

  private static final String PUBLIC = " is publicly routable and cannot be registered (expected: 10.0.0.0/8,"
      + " 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 or one of the VPC CIDRs 127.0.0.0/8, ::1/128)";

  record Result(Target target, List<Problem> problems) {
  }

  private static Result resolve(TargetDescription d, TargetType type, IpAddressType ipType, Environment env) {
    Problems problems = new Problems();
    return new Result(Targets.resolve(d, type, 80, ipType, env, problems), problems.list());
  }

  private static Result ip(String id) {
    return resolve(new TargetDescription(id, null, null), TargetType.IP, IpAddressType.IPV4, ENV);
  }

  private static Result ip(String id, Integer port, String zone) {
    return resolve(new TargetDescription(id, port, zone), TargetType.IP, IpAddressType.IPV4, ENV);
  }

  private static Result instance(String id, Integer port, String zone) {
    return resolve(new TargetDescription(id, port, zone), TargetType.INSTANCE, IpAddressType.IPV4, ENV);
  }

  private static Target ok(Result r) {
    assertThat(r.problems()).isEmpty();
    assertThat(r.target()).isNotNull();
    return r.target();
  }

  private static void rejected(Result r, Problem... expected) {
    assertThat(r.problems()).containsExactly(expected);
    assertThat(r.target()).isNull();
  }

  @Nested
  class IpRanges {

    @ParameterizedTest
    @ValueSource(strings = {
        "10.0.0.0", "10.255.255.255",
        "172.16.0.0", "172.31.255.255",
        "192.168.0.0", "192.168.255.255",
        "100.64.0.0", "100.127.255.255"})
    void privateAddress_isAccepted(String address) {
      Target t = ok(ip(address));
      assertThat(t).isEqualTo(new Target(address, 80, "all", address, false));
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.0.2", "127.255.255.254"})
    void loopbackAddress_isAccepted_throughTheDefaultVpcCidrs(String address) {
      assertThat(ok(ip(address)).address()).isEqualTo(address);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "172.15.255.255", "172.32.0.0",
        "9.255.255.255", "11.0.0.0",
        "192.167.255.255", "192.169.0.0",
        "100.63.255.255", "100.128.0.0",
        "8.8.8.8", "169.254.169.254", "0.0.0.0", "255.255.255.255"})
    void publicAddress_isRejected_namingTheAddress(String address) {
      rejected(ip(address), new Problem("id", IT, "The IP address '" + address + "'" + PUBLIC));
    }

    @Test
    void loopbackAddress_isRejected_whenTheVpcCidrsDoNotHoldIt() {
      Environment noLoopback = new Environment("us-east-1", "000000000000", ENV.nodes(),
          List.of(Cidr.parse("203.0.113.0/24")), Map.of());
      rejected(resolve(new TargetDescription("127.0.0.1", null, null), TargetType.IP, IpAddressType.IPV4, noLoopback),
          new Problem("id", IT, "The IP address '127.0.0.1' is publicly routable and cannot be registered (expected:"
              + " 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 or one of the VPC CIDRs 203.0.113.0/24)"));
      assertThat(ok(resolve(new TargetDescription("203.0.113.9", null, null), TargetType.IP, IpAddressType.IPV4,
          noLoopback)).address()).isEqualTo("203.0.113.9");
    }

    @Test
    void notAnIpAddress_isRejected() {
      rejected(ip("web-1"), new Problem("id", VE, "'web-1' is not an IP address (target type ip)"));
      rejected(ip("10.0.0"), new Problem("id", VE, "'10.0.0' is not an IP address (target type ip)"));
    }

    @Test
    void missingId_isRejected() {
      rejected(ip(null), new Problem("id", VE, "a target id is required"));
      rejected(ip(""), new Problem("id", VE, "a target id is required"));
    }
  }

  @Nested
  class Ipv6 {

    private Result v6(String id, Environment env) {
      return resolve(new TargetDescription(id, null, null), TargetType.IP, IpAddressType.IPV6, env);
    }

    @Test
    void ipv6Address_inAnIpv4Group_isAFamilyMismatch() {
      rejected(ip("::1"), new Problem("id", VE,
          "the IP address '::1' is not an IPv4 address, as the target group's IP address type ipv4 requires"));
    }

    @Test
    void ipv4Address_inAnIpv6Group_isAFamilyMismatch() {
      rejected(v6("10.0.0.1", ENV), new Problem("id", VE,
          "the IP address '10.0.0.1' is not an IPv6 address, as the target group's IP address type ipv6 requires"));
    }

    @Test
    void ipv6Loopback_isAccepted_andCanonicalised() {
      Target t = ok(v6("0:0:0:0:0:0:0:1", ENV));
      assertThat(t.id()).isEqualTo("::1");
      assertThat(t.address()).isEqualTo("::1");
    }

    @Test
    void ipv6Address_outsideTheVpcCidrs_isRejected_withoutTheIpv4Ranges() {
      rejected(v6("2001:db8::1", ENV), new Problem("id", IT, "The IP address '2001:db8::1' is publicly routable and"
          + " cannot be registered (expected: one of the VPC CIDRs 127.0.0.0/8, ::1/128)"));
    }

    @Test
    void ipv6Address_insideAVpcCidr_isAccepted() {
      Environment env = new Environment("us-east-1", "000000000000", ENV.nodes(),
          List.of(Cidr.parse("2001:db8::/32")), Map.of());
      assertThat(ok(v6("2001:db8:0:0::10", env)).id()).isEqualTo("2001:db8::10");
    }
  }

  @Nested
  class Instances {

    @Test
    void runningInstance_resolvesToItsAddressAndZone() {
      assertThat(ok(instance(RUNNING, null, null))).isEqualTo(new Target(RUNNING, 80, "zone-b", "10.0.1.5", false));
      assertThat(ok(instance(RUNNING, 8080, null)).port()).isEqualTo(8080);
    }

    @Test
    void unknownInstance_isAnInvalidTarget() {
      rejected(instance("i-0000000000000000f", null, null), new Problem("id", IT, "The specified target does not exist"
          + " or is not in the same VPC as the target group. ('i-0000000000000000f' is not in the instance inventory)"));
    }

    @Test
    void stoppedInstance_isAnInvalidTarget_withAwsMessage() {
      rejected(instance(STOPPED, null, null), new Problem("id", IT,
          "The following targets are not in a running state and cannot be registered: 'i-0badc0de'"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "::1", "i-123", "i-0123456789ABCDEF0", "web-1"})
    void idThatIsNotAnInstanceId_isNotValid(String id) {
      rejected(instance(id, null, null), new Problem("id", VE, "Instance ID '" + id + "' is not valid"));
    }

    @Test
    void instanceTarget_cannotHaveAZone() {
      rejected(instance(RUNNING, null, "zone-a"), new Problem("zone", VE,
          "an Availability Zone cannot be specified for instance targets; it comes from the instance"));
    }
  }

  @Nested
  class ZonesAndPorts {

    @Test
    void zoneOfANode_isAccepted_andMarkedAsGiven() {
      assertThat(ok(ip("10.0.0.1", null, "zone-b"))).isEqualTo(new Target("10.0.0.1", 80, "zone-b", "10.0.0.1", true));
    }

    @Test
    void zoneAll_isAccepted_andMarkedAsGiven() {
      assertThat(ok(ip("10.0.0.1", null, "all"))).isEqualTo(new Target("10.0.0.1", 80, "all", "10.0.0.1", true));
    }

    @Test
    void noZone_meansAll_notGiven() {
      Target t = ok(ip("10.0.0.1", null, null));
      assertThat(t.zone()).isEqualTo("all");
      assertThat(t.zoneGiven()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"zone-c", "us-east-1a", "ALL", ""})
    void unknownZone_isRejected(String zone) {
      rejected(ip("10.0.0.1", null, zone), new Problem("zone", VE,
          "'" + zone + "' is not a zone of this deployment (expected: all or one of zone-a, zone-b)"));
    }

    @ParameterizedTest
    @CsvSource({"1", "65535", "8080"})
    void portOverride_withinRange_isUsed(int port) {
      assertThat(ok(ip("10.0.0.1", port, null)).port()).isEqualTo(port);
    }

    @ParameterizedTest
    @CsvSource({"0, 0 is below the minimum 1", "65536, 65536 is above the maximum 65535"})
    void portOverride_outsideRange_isRejected(int port, String message) {
      rejected(ip("10.0.0.1", port, null), new Problem("port", VE, message));
    }

    @Test
    void sameAddressWithDifferentPorts_areDifferentRegistrations() {
      Target a = ok(ip("10.0.0.1", 8080, null));
      Target b = ok(ip("10.0.0.1", 8081, null));
      assertThat(a.key()).isEqualTo("10.0.0.1:8080");
      assertThat(b.key()).isEqualTo("10.0.0.1:8081");
      assertThat(ok(ip("10.0.0.1", 8080, "zone-a")).key()).isEqualTo(a.key());
    }
  }

  @Nested
  class OtherTypes {

    private Result lambda(Integer port, String zone) {
      return resolve(new TargetDescription("my-function", port, zone), TargetType.LAMBDA, IpAddressType.IPV4, ENV);
    }

    @Test
    void lambdaTarget_hasNoPortAndZoneAll() {
      assertThat(ok(lambda(null, null))).isEqualTo(new Target("my-function", 0, "all", null, false));
      assertThat(ok(lambda(null, "all")).zoneGiven()).isTrue();
    }

    @Test
    void lambdaTarget_namesAFunctionOfTheRegistry_byNameOrSameAccountArn() {
      assertThat(ok(resolve(new TargetDescription("arn:aws:lambda:us-east-1:000000000000:function:my-function:prod", null,
          null), TargetType.LAMBDA, IpAddressType.IPV4, ENV)).id())
          .isEqualTo("arn:aws:lambda:us-east-1:000000000000:function:my-function:prod");
      rejected(resolve(new TargetDescription("other", null, null), TargetType.LAMBDA, IpAddressType.IPV4, ENV),
          new Problem("id", IT, "The specified target does not exist ('other' is not in the function registry;"
              + " expected one of: my-function)"));
      rejected(resolve(new TargetDescription("arn:aws:lambda:us-east-1:111111111111:function:my-function", null, null),
          TargetType.LAMBDA, IpAddressType.IPV4, ENV), new Problem("id", IT, "The Lambda function"
          + " 'arn:aws:lambda:us-east-1:111111111111:function:my-function' must be in the same account and Region as the"
          + " target group (000000000000, us-east-1)"));
    }

    @Test
    void lambdaTarget_rejectsAPortAndAZoneOtherThanAll() {
      rejected(lambda(80, null), new Problem("port", VE, "a port cannot be specified for lambda targets"));
      rejected(lambda(null, "zone-a"), new Problem("zone", VE,
          "the Availability Zone of a lambda target can only be 'all'"));
    }

    private static final String ALB = "arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/web/0123";

    private static Result alb(String id, Integer port, String zone) {
      return resolve(new TargetDescription(id, port, zone), TargetType.ALB, IpAddressType.IPV4, ENV);
    }

    @Test
    void albTarget_isAnApplicationLoadBalancersArn_onTheGroupsPortOrItsOwn_inTheLoadBalancersZones() {
      assertThat(ok(alb(ALB, null, null))).as("the address is the load balancer's node, set once it is known")
          .isEqualTo(new Target(ALB, 80, "all", null, false));
      assertThat(ok(alb(ALB, 8080, null)).port()).isEqualTo(8080);
    }

    @Test
    void albTarget_rejectsOtherIdsAndAZone() {
      String expected = " is not the ARN of an application load balancer in us-east-1 of account 000000000000"
          + " (expected arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/<name>/<id>)";
      for (String id : List.of("web", "10.0.0.1", ALB.replace("/app/", "/net/"), ALB.replace("us-east-1", "eu-west-1"),
          ALB + "/extra", "arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/web/0123")) {
        rejected(alb(id, null, null), new Problem("id", IT, "'" + id + "'" + expected));
      }
      rejected(alb(ALB, null, "zone-a"), new Problem("zone", VE,
          "an Availability Zone cannot be specified for alb targets: the load balancer is in its own zones"));
    }
  }
}
