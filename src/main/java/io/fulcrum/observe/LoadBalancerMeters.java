package io.fulcrum.observe;

import java.util.HashMap;
import java.util.Map;

/**
 * The counters of one load balancer in one zone on one event loop: CloudWatch's
 * {@code LoadBalancer, AvailabilityZone} dimensions (SPEC §10), and the {@link GroupMeters} of the
 * target groups it forwarded to from there. Plain fields: only the owning event loop writes them,
 * and {@link LoopMeters} copies them on that loop when metrics are scraped.
 */
public final class LoadBalancerMeters {

  final String loadBalancer;
  final String zone;
  long newConnections;
  long activeConnections;
  /** Responses the load balancer made itself, by status class (index 3 for 3XX, ...). */
  final long[] elbByClass = new long[6];
  long elb500;
  long elb502;
  long elb503;
  long elb504;
  long fixedResponses;
  long redirects;
  long nonSticky;
  long desyncNonCompliant;
  long clientTlsErrors;
  long droppedInvalidHeaders;
  long forwardedInvalidHeaders;
  long processedBytes;
  long targetControlRequests;
  long targetControlRejects;
  long targetControlQueued;
  long newFlows;
  long activeFlows;
  long newUdpFlows;
  long activeUdpFlows;
  long udpBytes;
  long udpPackets;
  long clientResets;
  long elbResets;
  long targetResets;
  long authSuccesses;
  long authFailures;
  long authErrors;
  long authRefreshes;
  long authClaimsTooLarge;
  /** {@code ELBAuthLatency}. */
  final LatencyHistogram authLatency = new LatencyHistogram();
  final Map<String, GroupMeters> groups = new HashMap<>();

  /**
   * @param loadBalancer the {@code LoadBalancer} dimension, {@code app/<name>/<id>}
   * @param zone         the zone of the node
   */
  public LoadBalancerMeters(String loadBalancer, String zone) {
    this.loadBalancer = loadBalancer;
    this.zone = zone;
  }

  /** What tells one load balancer in one zone from another, in maps of them. */
  static String key(String loadBalancer, String zone) {
    return loadBalancer + '\n' + zone;
  }

  String key() {
    return key(loadBalancer, zone);
  }

  /** The counters of requests this load balancer's node in this zone sends to the group {@code arn}. */
  public GroupMeters group(String arn) {
    GroupMeters g = groups.get(arn);
    if (g == null) {
      g = new GroupMeters(this, arn);
      groups.put(arn, g);
    }
    return g;
  }

  /** A client connection opened ({@code NewConnectionCount}, {@code ActiveConnectionCount}). */
  public void connectionOpened() {
    newConnections++;
    activeConnections++;
  }

  public void connectionClosed() {
    activeConnections--;
  }

  /** The load balancer answered with {@code status} itself ({@code HTTPCode_ELB_*}). */
  public void elbStatus(int status) {
    int c = status / 100;
    if (c >= 0 && c < elbByClass.length) {
      elbByClass[c]++;
    }
    switch (status) {
      case 500 -> elb500++;
      case 502 -> elb502++;
      case 503 -> elb503++;
      case 504 -> elb504++;
      default -> { }
    }
  }

  /** A fixed-response action answered ({@code HTTP_Fixed_Response_Count}). */
  public void fixedResponse(int status) {
    fixedResponses++;
    elbStatus(status);
  }

  /** A redirect action answered ({@code HTTP_Redirect_Count}). */
  public void redirect(int status) {
    redirects++;
    elbStatus(status);
  }

  /**
   * A request to a sticky target group went to a target chosen by the algorithm: it had no
   * stickiness cookie, or one that no longer names a target that may take it
   * ({@code NonStickyRequestCount}).
   */
  public void nonSticky() {
    nonSticky++;
  }

  /** A request desync mitigation did not find Compliant ({@code DesyncMitigationMode_NonCompliant_Request_Count}). */
  public void desyncNonCompliant() {
    desyncNonCompliant++;
  }

  /**
   * A client's TLS connection did not establish a session: the handshake failed (no protocol or
   * cipher in common, a bad record, ...) ({@code ClientTLSNegotiationErrorCount}).
   */
  public void clientTlsNegotiationError() {
    clientTlsErrors++;
  }

  /**
   * Headers with names that are not valid were removed from a request
   * ({@code routing.http.drop_invalid_header_fields.enabled}: {@code DroppedInvalidHeaderRequestCount}).
   */
  public void droppedInvalidHeader() {
    droppedInvalidHeaders++;
  }

  /**
   * A request with headers whose names are not valid went on with them: the load balancer does
   * not drop them ({@code ForwardedInvalidHeaderRequestCount}).
   */
  public void forwardedInvalidHeader() {
    forwardedInvalidHeaders++;
  }

  /**
   * The load balancer processed {@code bytes} of HTTP: read from or written to a client connection
   * (after TLS), or sent to or received from a Lambda function ({@code ProcessedBytes}).
   */
  public void processed(long bytes) {
    processedBytes += bytes;
  }

  /** A request went to a target whose agent granted a credit for it ({@code TargetControlRequestCount}). */
  public void targetControlRequest() {
    targetControlRequests++;
  }

  /**
   * The load balancer answered 503 because no target's agent had room for the request
   * ({@code TargetControlRequestRejectCount}).
   */
  public void targetControlReject() {
    targetControlRejects++;
  }

  /** Requests waiting for a target optimizer credit, up or down ({@code TargetControlWorkQueueLength}). */
  public void targetControlQueued(int change) {
    targetControlQueued += change;
  }

  /** A connection to a network load balancer's listener opened ({@code NewFlowCount}, {@code ActiveFlowCount}). */
  public void flowOpened() {
    newFlows++;
    activeFlows++;
  }

  public void flowClosed() {
    activeFlows--;
  }

  /**
   * A UDP flow opened: the first datagram from a client address and port on a UDP or TCP_UDP
   * listener ({@code NewFlowCount_UDP}, {@code ActiveFlowCount_UDP}; they count in
   * {@code NewFlowCount} and {@code ActiveFlowCount} too).
   */
  public void udpFlowOpened() {
    flowOpened();
    newUdpFlows++;
    activeUdpFlows++;
  }

  public void udpFlowClosed() {
    flowClosed();
    activeUdpFlows--;
  }

  /**
   * A datagram of {@code bytes} (its payload) relayed either way ({@code ProcessedBytes_UDP},
   * {@code ProcessedPackets_UDP}; the bytes count in {@code ProcessedBytes} too).
   */
  public void udpRelayed(int bytes) {
    processedBytes += bytes;
    udpBytes += bytes;
    udpPackets++;
  }

  /** A client reset its connection ({@code TCP_Client_Reset_Count}). */
  public void clientReset() {
    clientResets++;
  }

  /**
   * The load balancer reset a client's connection: no target to take it, a target it could not
   * reach, an unhealthy or deregistered target's connection ended ({@code TCP_ELB_Reset_Count}).
   */
  public void elbReset() {
    elbResets++;
  }

  /** A target reset its connection, and the load balancer passed the reset on ({@code TCP_Target_Reset_Count}). */
  public void targetReset() {
    targetResets++;
  }

  /**
   * An authenticate-oidc sign-in ended: {@code ELBAuthSuccess} when it read the user's claims,
   * {@code ELBAuthFailure} when the IdP denied the user or refused the code (a 561, or 401 for the
   * browser's way back), {@code ELBAuthError} when the IdP could not be reached or answered unusably
   * (a 500), and {@code ELBAuthUserClaimsSizeExceeded} when the claims were too large.
   *
   * @param status      what the user got: 302 (signed in), 401, 500 or 561
   * @param sizeTooLarge whether the claims and access token were above 11K
   */
  public void authenticated(int status, boolean sizeTooLarge) {
    if (status == 302) {
      authSuccesses++;
    } else if (status == 500) {
      authErrors++;
    } else {
      authFailures++;
    }
    if (sizeTooLarge) {
      authClaimsTooLarge++;
    }
  }

  /**
   * The IdP took {@code nanos} to give the ID token or access token and the user's claims, or to
   * fail to ({@code ELBAuthLatency}): from the token request to the user info's answer, for a
   * sign-in or a refresh.
   */
  public void authLatency(long nanos) {
    authLatency.record(nanos);
  }

  /** A session's claims renewed with its refresh token ({@code ELBAuthRefreshTokenSuccess}). */
  public void authRefreshed() {
    authRefreshes++;
  }

  /** Adds these counters, and their groups', to {@code total} (of the same load balancer and zone). */
  void addTo(LoadBalancerMeters total) {
    total.newConnections += newConnections;
    total.activeConnections += activeConnections;
    for (int i = 0; i < elbByClass.length; i++) {
      total.elbByClass[i] += elbByClass[i];
    }
    total.elb500 += elb500;
    total.elb502 += elb502;
    total.elb503 += elb503;
    total.elb504 += elb504;
    total.fixedResponses += fixedResponses;
    total.redirects += redirects;
    total.nonSticky += nonSticky;
    total.desyncNonCompliant += desyncNonCompliant;
    total.clientTlsErrors += clientTlsErrors;
    total.droppedInvalidHeaders += droppedInvalidHeaders;
    total.forwardedInvalidHeaders += forwardedInvalidHeaders;
    total.processedBytes += processedBytes;
    total.targetControlRequests += targetControlRequests;
    total.targetControlRejects += targetControlRejects;
    total.targetControlQueued += targetControlQueued;
    total.newFlows += newFlows;
    total.activeFlows += activeFlows;
    total.newUdpFlows += newUdpFlows;
    total.activeUdpFlows += activeUdpFlows;
    total.udpBytes += udpBytes;
    total.udpPackets += udpPackets;
    total.clientResets += clientResets;
    total.elbResets += elbResets;
    total.targetResets += targetResets;
    total.authSuccesses += authSuccesses;
    total.authFailures += authFailures;
    total.authErrors += authErrors;
    total.authRefreshes += authRefreshes;
    total.authClaimsTooLarge += authClaimsTooLarge;
    authLatency.addTo(total.authLatency);
    groups.forEach((arn, g) -> g.addTo(total.group(arn)));
  }
}
