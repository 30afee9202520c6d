package io.fulcrum.observe;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import io.fulcrum.optimizer.TargetControlVerticle;

/**
 * Writes the metrics in Prometheus's text exposition format (version 0.0.4), under CloudWatch's
 * names and dimensions (SPEC §10, namespace {@code AWS/ApplicationELB}; a network load balancer's
 * under {@code AWS/NetworkELB}'s, and only those): each series carries the
 * finest set of dimensions CloudWatch has for the metric ({@code LoadBalancer},
 * {@code AvailabilityZone} and, for target metrics, {@code TargetGroup}) as labels, and the coarser
 * ones are sums over them ({@code sum by (LoadBalancer) (rate(RequestCount[1m]))}). Counters count
 * from the start of the process; {@code TargetResponseTime} and {@code ELBAuthLatency} are histograms in seconds.
 */
public final class PrometheusText {

  /** The content type of the format. */
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final StringBuilder out = new StringBuilder(4096);

  private PrometheusText() {
  }

  /**
   * The whole page: every load balancer's counters, the target groups' state, then the process's
   * (null: left out).
   */
  public static String render(Collection<LoadBalancerMeters> counters, List<GroupGauges> gauges,
      ProcessMetrics process) {
    return render(counters, gauges, List.of(), process);
  }

  /** The whole page, with the target optimizer's control channels by target group. */
  public static String render(Collection<LoadBalancerMeters> counters, List<GroupGauges> gauges,
      List<TargetControlVerticle.ChannelCounts> channels, ProcessMetrics process) {
    List<LoadBalancerMeters> lbs = new ArrayList<>(counters);
    lbs.sort(Comparator.comparing((LoadBalancerMeters m) -> m.loadBalancer).thenComparing(m -> m.zone));
    List<GroupMeters> groups = new ArrayList<>();
    for (LoadBalancerMeters m : lbs) {
      m.groups.values().stream().sorted(Comparator.comparing(g -> g.targetGroup)).forEach(groups::add);
    }
    // AWS/ApplicationELB's metrics are written for application load balancers (and their target
    // groups) only, AWS/NetworkELB's for network ones only: a network load balancer's page has no
    // RequestCount that stays 0, an application one's no NewFlowCount. A few metrics both namespaces
    // have (ProcessedBytes, the TLS and target connection errors, the hosts' states) are on both.
    List<LoadBalancerMeters> albs = lbs.stream().filter(m -> !network(m.loadBalancer)).toList();
    List<LoadBalancerMeters> networkLbs = lbs.stream().filter(m -> network(m.loadBalancer)).toList();
    List<GroupMeters> albGroups = groups.stream().filter(g -> !network(g.owner.loadBalancer)).toList();
    List<GroupMeters> networkGroups = groups.stream().filter(g -> network(g.owner.loadBalancer)).toList();
    PrometheusText t = new PrometheusText();

    t.lbCounter(albs, "NewConnectionCount", "Client connections opened.", m -> m.newConnections);
    t.lbMetric(albs, "ActiveConnectionCount", "gauge", "Client connections open now.", m -> m.activeConnections);
    t.lbCounter(lbs, "ProcessedBytes",
        "Bytes the load balancer read from and wrote to clients (after TLS; UDP payloads), and sent to and received"
            + " from Lambda functions.",
        m -> m.processedBytes);
    t.lbCounter(lbs, "ClientTLSNegotiationErrorCount", "Client TLS connections that did not establish a session.",
        m -> m.clientTlsErrors);
    for (int c = 3; c <= 5; c++) {
      int k = c;
      t.lbCounter(albs, "HTTPCode_ELB_" + c + "XX_Count", c + "XX responses the load balancer made itself"
          + (c == 3 ? " (redirect actions)." : " (errors, fixed responses)."), m -> m.elbByClass[k]);
    }
    t.lbCounter(albs, "HTTPCode_ELB_500_Count", "500 responses the load balancer made itself.", m -> m.elb500);
    t.lbCounter(albs, "HTTPCode_ELB_502_Count", "502 responses the load balancer made itself.", m -> m.elb502);
    t.lbCounter(albs, "HTTPCode_ELB_503_Count", "503 responses the load balancer made itself.", m -> m.elb503);
    t.lbCounter(albs, "HTTPCode_ELB_504_Count", "504 responses the load balancer made itself.", m -> m.elb504);
    t.lbCounter(albs, "HTTP_Fixed_Response_Count", "Fixed-response actions answered.", m -> m.fixedResponses);
    t.lbCounter(albs, "HTTP_Redirect_Count", "Redirect actions answered.", m -> m.redirects);
    t.lbCounter(albs, "ELBAuthSuccess", "authenticate-oidc sign-ins that read the user's claims.",
        m -> m.authSuccesses);
    t.lbCounter(albs, "ELBAuthFailure", "authenticate-oidc sign-ins the IdP denied, or whose way back was refused.",
        m -> m.authFailures);
    t.lbCounter(albs, "ELBAuthError",
        "authenticate-oidc sign-ins that failed for an IdP not reached or not understood.", m -> m.authErrors);
    t.lbCounter(albs, "ELBAuthRefreshTokenSuccess", "Sessions whose claims were renewed with their refresh token.",
        m -> m.authRefreshes);
    t.lbCounter(albs, "ELBAuthUserClaimsSizeExceeded", "Sign-ins refused because the user's claims were above 11K.",
        m -> m.authClaimsTooLarge);
    t.histogram(albs.stream().filter(m -> m.authLatency.count() > 0).toList(), "ELBAuthLatency",
        "Seconds the IdP took to give the tokens and the user's claims of an authenticate-oidc sign-in or refresh,"
            + " or to fail to.", m -> m.authLatency, (m, le) -> t.labels(m.loadBalancer, m.zone, null, le));
    t.lbCounter(albs, "NonStickyRequestCount",
        "Requests to a sticky target group routed without a usable stickiness cookie.", m -> m.nonSticky);
    t.lbCounter(albs, "DroppedInvalidHeaderRequestCount",
        "Requests whose headers with names that are not valid were removed.", m -> m.droppedInvalidHeaders);
    t.lbCounter(albs, "ForwardedInvalidHeaderRequestCount",
        "Requests with headers whose names are not valid, forwarded with them.", m -> m.forwardedInvalidHeaders);
    t.lbCounter(albs, "DesyncMitigationMode_NonCompliant_Request_Count",
        "HTTP/1.x requests desync mitigation classified other than Compliant.", m -> m.desyncNonCompliant);

    t.lbCounter(albs, "TargetControlRequestCount",
        "Requests forwarded to targets whose target optimizer agent granted room for them.",
        m -> m.targetControlRequests);
    t.lbCounter(albs, "TargetControlRequestRejectCount",
        "Requests answered 503 because no target's agent had room for them.", m -> m.targetControlRejects);
    t.lbMetric(albs, "TargetControlWorkQueueLength", "gauge",
        "Requests waiting for a target optimizer agent to have room.", m -> m.targetControlQueued);
    t.channels(channels);

    t.lbCounter(networkLbs, "NewFlowCount", "Flows opened: connections to TCP and TLS listeners, UDP flows.",
        m -> m.newFlows);
    t.lbMetric(networkLbs, "ActiveFlowCount", "gauge", "Flows open now: connections to TCP and TLS listeners, UDP flows.",
        m -> m.activeFlows);
    t.lbCounter(networkLbs, "NewFlowCount_UDP", "UDP flows opened (a client address and port's first datagram).",
        m -> m.newUdpFlows);
    t.lbMetric(networkLbs, "ActiveFlowCount_UDP", "gauge", "UDP flows open now (not idle for 120 s, not ended).",
        m -> m.activeUdpFlows);
    t.lbCounter(networkLbs, "ProcessedBytes_UDP", "Bytes of UDP payload relayed either way.", m -> m.udpBytes);
    t.lbCounter(networkLbs, "ProcessedPackets_UDP", "Datagrams relayed either way.", m -> m.udpPackets);
    t.lbCounter(networkLbs, "TCP_Client_Reset_Count", "Resets clients sent.", m -> m.clientResets);
    t.lbCounter(networkLbs, "TCP_ELB_Reset_Count",
        "Resets the load balancer sent: no target, a target it could not reach, a connection it ended.",
        m -> m.elbResets);
    t.lbCounter(networkLbs, "TCP_Target_Reset_Count", "Resets targets sent, passed on to clients.",
        m -> m.targetResets);

    t.groupCounter(albGroups, "RequestCount", "Requests for which a target was chosen.", g -> g.requests);
    t.groupCounter(albGroups, "GrpcRequestCount", "gRPC calls for which a target was chosen.", g -> g.grpcRequests);
    t.groupCounter(albGroups, "UnhealthyRoutingRequestCount",
        "Requests routed while the routing threshold was breached (fail-open).", g -> g.unhealthyRouting);
    t.groupCounter(networkGroups, "UnhealthyRoutingFlowCount",
        "Connections routed while the routing threshold was breached (fail-open).", g -> g.unhealthyRoutingFlows);
    for (int c = 2; c <= 5; c++) {
      int k = c;
      t.groupCounter(albGroups, "HTTPCode_Target_" + c + "XX_Count", c + "XX responses from targets.",
          g -> g.targetByClass[k]);
    }
    t.groupCounter(groups, "TargetConnectionErrorCount", "Connections to targets that could not be made.",
        g -> g.targetConnectionErrors);
    t.groupCounter(groups, "TargetTLSNegotiationErrorCount", "TLS handshakes with targets that failed.",
        g -> g.targetTlsErrors);
    t.groupCounter(albGroups, "LambdaUserError", "Requests to a Lambda function that failed because of the function.",
        g -> g.lambdaUserErrors);
    t.groupCounter(albGroups, "LambdaInternalError",
        "Requests to a Lambda function that failed because of the load balancer or Lambda.",
        g -> g.lambdaInternalErrors);
    t.groupCounter(albGroups, "LambdaTargetProcessedBytes",
        "Bytes of the events sent to Lambda functions and of their responses.", g -> g.lambdaBytes);
    t.histogram(albGroups, "TargetResponseTime",
        "Seconds from the request leaving for the target to the target's response head.", g -> g.responseTimes,
        (g, le) -> t.labels(g.owner.loadBalancer, g.owner.zone, g.targetGroup, le));

    t.gauge(gauges.stream().filter(GroupGauges::healthChecked).toList(), "HealthyHostCount",
        "Targets passing their health checks.", GroupGauges::healthy);
    t.gauge(gauges.stream().filter(GroupGauges::healthChecked).toList(), "UnHealthyHostCount",
        "Targets failing their health checks.", GroupGauges::unhealthy);
    t.gauge(gauges, "HealthyStateRouting", "1 when the zone meets the target group's routing threshold.",
        g -> g.routingHealthy() ? 1 : 0);
    t.gauge(gauges, "UnhealthyStateRouting",
        "1 when the zone fails the routing threshold and its node routes to every target (fail-open).",
        g -> g.routingHealthy() ? 0 : 1);
    t.gauge(gauges, "HealthyStateDNS", "1 when the zone meets the target group's DNS-failover threshold.",
        g -> g.dnsHealthy() ? 1 : 0);
    t.gauge(gauges, "UnhealthyStateDNS", "1 when the zone fails the DNS-failover threshold.",
        g -> g.dnsHealthy() ? 0 : 1);
    List<GroupGauges> albGauges = gauges.stream().filter(g -> !network(g.loadBalancer())).toList();
    t.gauge(albGauges, "AnomalousHostCount", "Targets anomaly detection finds anomalous.",
        GroupGauges::anomalous);
    t.gauge(albGauges, "MitigatedHostCount", "Targets whose share anomaly mitigation has lowered.",
        GroupGauges::mitigated);
    if (process != null) {
      t.process(process);
    }
    return t.out.toString();
  }

  /** Whether the {@code LoadBalancer} dimension {@code loadBalancer} is a network load balancer's ({@code net/...}). */
  private static boolean network(String loadBalancer) {
    return loadBalancer.startsWith("net/");
  }

  /** The target optimizer's control channels, by target group (one channel per target serves every load balancer). */
  private void channels(List<TargetControlVerticle.ChannelCounts> channels) {
    if (channels.isEmpty()) {
      return;
    }
    channelMetric(channels, "TargetControlActiveChannelCount", "gauge", "Control channels open to agents.",
        TargetControlVerticle.ChannelCounts::active);
    channelMetric(channels, "TargetControlNewChannelCount", "counter", "Control channels opened to agents.",
        TargetControlVerticle.ChannelCounts::opened);
    channelMetric(channels, "TargetControlChannelErrorCount", "counter",
        "Control channels that could not open or ended in an error.", TargetControlVerticle.ChannelCounts::errors);
    channelMetric(channels, "TargetControlProcessedBytes", "counter", "Bytes sent and received on control channels.",
        TargetControlVerticle.ChannelCounts::processedBytes);
  }

  private void channelMetric(List<TargetControlVerticle.ChannelCounts> channels, String name, String type, String help,
      ToLongFunction<TargetControlVerticle.ChannelCounts> value) {
    head(name, type, help);
    for (TargetControlVerticle.ChannelCounts c : channels) {
      out.append(name).append("{TargetGroup=\"");
      escaped(io.fulcrum.model.Arns.targetGroupDimension(c.targetGroup()));
      out.append("\"} ").append(value.applyAsLong(c)).append('\n');
    }
  }

  private void process(ProcessMetrics p) {
    if (p.cpuSeconds() >= 0) {
      plain("process_cpu_seconds_total", "counter", "CPU time of the process, user and system, in seconds.",
          Double.toString(p.cpuSeconds()));
    }
    if (p.residentBytes() >= 0) {
      plain("process_resident_memory_bytes", "gauge", "Resident memory of the process, in bytes.",
          Long.toString(p.residentBytes()));
    }
    if (p.openFds() >= 0) {
      plain("process_open_fds", "gauge", "Open file descriptors.", Long.toString(p.openFds()));
      plain("process_max_fds", "gauge", "The limit of open file descriptors.", Long.toString(p.maxFds()));
    }
    plain("process_start_time_seconds", "gauge", "When the process started, in Unix time.",
        Double.toString(p.startTimeSeconds()));
    head("jvm_memory_used_bytes", "gauge", "JVM memory in use, in bytes.");
    out.append("jvm_memory_used_bytes{area=\"heap\"} ").append(p.heapUsed()).append('\n');
    out.append("jvm_memory_used_bytes{area=\"nonheap\"} ").append(p.nonHeapUsed()).append('\n');
    head("jvm_memory_committed_bytes", "gauge", "JVM memory committed, in bytes.");
    out.append("jvm_memory_committed_bytes{area=\"heap\"} ").append(p.heapCommitted()).append('\n');
    out.append("jvm_memory_committed_bytes{area=\"nonheap\"} ").append(p.nonHeapCommitted()).append('\n');
    plain("jvm_threads_current", "gauge", "Live JVM threads.", Integer.toString(p.threads()));
    if (!p.collections().isEmpty()) {
      head("jvm_gc_collection_seconds", "summary", "Garbage collections and the seconds they took, by collector.");
      for (ProcessMetrics.Collections c : p.collections()) {
        out.append("jvm_gc_collection_seconds_count{gc=\"");
        escaped(c.gc());
        out.append("\"} ").append(c.count()).append('\n');
        out.append("jvm_gc_collection_seconds_sum{gc=\"");
        escaped(c.gc());
        out.append("\"} ").append(c.seconds()).append('\n');
      }
    }
  }

  private void plain(String name, String type, String help, String value) {
    head(name, type, help);
    out.append(name).append(' ').append(value).append('\n');
  }

  private void lbCounter(List<LoadBalancerMeters> lbs, String name, String help,
      ToLongFunction<LoadBalancerMeters> value) {
    lbMetric(lbs, name, "counter", help, value);
  }

  private void lbMetric(List<LoadBalancerMeters> lbs, String name, String type, String help,
      ToLongFunction<LoadBalancerMeters> value) {
    if (lbs.isEmpty()) {
      return;
    }
    head(name, type, help);
    for (LoadBalancerMeters m : lbs) {
      out.append(name);
      labels(m.loadBalancer, m.zone, null, null);
      out.append(' ').append(value.applyAsLong(m)).append('\n');
    }
  }

  private void groupCounter(List<GroupMeters> groups, String name, String help, ToLongFunction<GroupMeters> value) {
    if (groups.isEmpty()) {
      return;
    }
    head(name, "counter", help);
    for (GroupMeters g : groups) {
      out.append(name);
      labels(g.owner.loadBalancer, g.owner.zone, g.targetGroup, null);
      out.append(' ').append(value.applyAsLong(g)).append('\n');
    }
  }

  /**
   * A histogram in seconds, one series per element of {@code of}: {@code histogram} gives its
   * counts, {@code labels} writes its labels (with the bucket's {@code le}, or none when null).
   */
  private <T> void histogram(List<T> of, String name, String help, Function<T, LatencyHistogram> histogram,
      BiConsumer<T, String> labels) {
    if (of.isEmpty()) {
      return;
    }
    head(name, "histogram", help);
    for (T series : of) {
      LatencyHistogram h = histogram.apply(series);
      long cumulative = 0;
      for (int i = 0; i <= LatencyHistogram.BOUNDS.length; i++) {
        cumulative += h.counts[i];
        out.append(name).append("_bucket");
        labels.accept(series, i < LatencyHistogram.BOUNDS.length ? Double.toString(LatencyHistogram.BOUNDS[i]) : "+Inf");
        out.append(' ').append(cumulative).append('\n');
      }
      out.append(name).append("_sum");
      labels.accept(series, null);
      out.append(' ').append(h.sumNanos / 1e9).append('\n');
      out.append(name).append("_count");
      labels.accept(series, null);
      out.append(' ').append(cumulative).append('\n');
    }
  }

  private void gauge(List<GroupGauges> gauges, String name, String help, Function<GroupGauges, Integer> value) {
    if (gauges.isEmpty()) {
      return;
    }
    head(name, "gauge", help);
    for (GroupGauges g : gauges) {
      out.append(name);
      labels(g.loadBalancer(), g.zone(), g.targetGroup(), null);
      out.append(' ').append(value.apply(g)).append('\n');
    }
  }

  private void head(String name, String type, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private void labels(String loadBalancer, String zone, String targetGroup, String le) {
    out.append("{LoadBalancer=\"");
    escaped(loadBalancer);
    out.append("\",AvailabilityZone=\"");
    escaped(zone);
    if (targetGroup != null) {
      out.append("\",TargetGroup=\"");
      escaped(targetGroup);
    }
    if (le != null) {
      out.append("\",le=\"").append(le);
    }
    out.append("\"}");
  }

  /** A label value: backslash, double quote and line feed escaped. */
  private void escaped(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
  }
}
