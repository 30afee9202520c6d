package io.fulcrum.observe;

import io.fulcrum.model.Arns;

/**
 * The counters of the requests one load balancer's node in one zone sent to one target group, on
 * one event loop: CloudWatch's {@code LoadBalancer, AvailabilityZone, TargetGroup} dimensions
 * (SPEC §10). Plain fields, written by the owning event loop only.
 */
public final class GroupMeters {

  final LoadBalancerMeters owner;
  final String arn;
  final String targetGroup;
  long requests;
  long grpcRequests;
  long unhealthyRouting;
  long unhealthyRoutingFlows;
  /** Target answers by status class (index 2 for 2XX, ...). */
  final long[] targetByClass = new long[6];
  /** {@code TargetResponseTime}. */
  final LatencyHistogram responseTimes = new LatencyHistogram();
  long targetConnectionErrors;
  long targetTlsErrors;
  long lambdaUserErrors;
  long lambdaInternalErrors;
  long lambdaBytes;

  GroupMeters(LoadBalancerMeters owner, String arn) {
    this.owner = owner;
    this.arn = arn;
    this.targetGroup = Arns.targetGroupDimension(arn);
  }

  /** The load balancer and zone these requests came through. */
  public LoadBalancerMeters loadBalancer() {
    return owner;
  }

  /**
   * A target was chosen for a request ({@code RequestCount}).
   *
   * @param grpc             it is a gRPC call ({@code GrpcRequestCount})
   * @param unhealthyRouting the group's routing threshold is breached in this zone, so requests
   *                         go to unhealthy targets too ({@code UnhealthyRoutingRequestCount})
   */
  public void request(boolean grpc, boolean unhealthyRouting) {
    requests++;
    if (grpc) {
      grpcRequests++;
    }
    if (unhealthyRouting) {
      this.unhealthyRouting++;
    }
  }

  /**
   * The target's response head arrived {@code nanos} after the request left for it
   * ({@code HTTPCode_Target_*}, {@code TargetResponseTime}).
   */
  public void targetResponse(int status, long nanos) {
    int c = status / 100;
    if (c >= 0 && c < targetByClass.length) {
      targetByClass[c]++;
    }
    responseTimes.record(nanos);
  }

  /** No connection to the target could be made ({@code TargetConnectionErrorCount}). */
  public void targetConnectionError() {
    targetConnectionErrors++;
  }

  /** The TLS handshake with the target failed ({@code TargetTLSNegotiationErrorCount}). */
  public void targetTlsError() {
    targetTlsErrors++;
  }

  /**
   * A request to a Lambda function failed.
   *
   * @param userError whether the function is to blame ({@code LambdaUserError}), else the load
   *                  balancer or Lambda ({@code LambdaInternalError})
   */
  public void lambdaError(boolean userError) {
    if (userError) {
      lambdaUserErrors++;
    } else {
      lambdaInternalErrors++;
    }
  }

  /**
   * {@code bytes} went to a Lambda function in an event and came back in its response
   * ({@code LambdaTargetProcessedBytes}); they count in the load balancer's {@code ProcessedBytes} too.
   */
  public void lambdaProcessed(long bytes) {
    lambdaBytes += bytes;
    owner.processed(bytes);
  }

  /**
   * A target was chosen for a connection to a network load balancer's listener; counted when
   * {@code unhealthyRouting}, the zone failed open ({@code UnhealthyRoutingFlowCount}).
   */
  public void flow(boolean unhealthyRouting) {
    if (unhealthyRouting) {
      unhealthyRoutingFlows++;
    }
  }

  void addTo(GroupMeters total) {
    total.unhealthyRoutingFlows += unhealthyRoutingFlows;
    total.requests += requests;
    total.grpcRequests += grpcRequests;
    total.unhealthyRouting += unhealthyRouting;
    for (int i = 0; i < targetByClass.length; i++) {
      total.targetByClass[i] += targetByClass[i];
    }
    responseTimes.addTo(total.responseTimes);
    total.targetConnectionErrors += targetConnectionErrors;
    total.targetTlsErrors += targetTlsErrors;
    total.lambdaUserErrors += lambdaUserErrors;
    total.lambdaInternalErrors += lambdaInternalErrors;
    total.lambdaBytes += lambdaBytes;
  }
}
