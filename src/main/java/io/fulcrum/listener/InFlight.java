package io.fulcrum.listener;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ExchangeOutcome;
import io.fulcrum.bus.LambdaError;
import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.observe.GroupMeters;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The proxied requests in flight on one event loop, in an intrusive doubly linked list: adding
 * and removing cost a few pointer writes and no lookup. When a snapshot drops a target whose
 * deregistration delay is over (or that left with a delay of 0), its requests still running are
 * cut (SPEC §2.4: the client gets 502). When a request ends, its {@link ExchangeOutcome} goes to
 * the outcome sink, while anyone listens, and its line to the access log, when its load balancer
 * has one. Touched only on the owning event loop.
 */
final class InFlight {

  /** ALB's status for a request whose client closed the connection before it was answered. */
  static final int CLIENT_CLOSED = 460;

  private final BooleanSupplier listened;
  private final Consumer<ExchangeOutcome> outcomes;
  private final Consumer<String> creditReturned;
  private Node head;
  private int size;

  InFlight() {
    this(() -> false, o -> { }, arn -> { });
  }

  /**
   * @param listened       whether anyone consumes outcomes now; when not, none is built
   * @param outcomes       takes how each request ended
   * @param creditReturned told the target group's ARN when a request gives its target optimizer
   *                       credit back, so that requests waiting for one take it
   */
  InFlight(BooleanSupplier listened, Consumer<ExchangeOutcome> outcomes, Consumer<String> creditReturned) {
    this.listened = listened;
    this.outcomes = outcomes;
    this.creditReturned = creditReturned;
  }

  /**
   * One request in flight; also its exchange listener, so that it leaves the list when it ends,
   * and the record of how it went.
   */
  static final class Node implements HttpForwarder.ExchangeListener {
    final String groupArn;
    final Upstream target;
    HttpForwarder.Handle exchange;
    String loadBalancer;
    String method;
    String uri;
    /** Whether the target is a Lambda function (the access log prints no target for it). */
    boolean function;
    /** The status the client got, 0 while none. */
    int elbStatus;
    /** The target's status, -1 while none. */
    int targetStatus = -1;
    /** The access log's error_reason, or null. */
    String errorReason;
    /** Where the request is counted, or null (not counted). */
    GroupMeters meters;
    /** When the request left for the target ({@link System#nanoTime()}): TargetResponseTime runs from here. */
    long sentAt;
    /** The request's access log line, or null (no access log). */
    AccessEntry entry;
    /**
     * Target optimizer: the generation of the credit the request took ({@link Upstream#creditEpoch}),
     * -1 when it took none.
     */
    int creditEpoch = -1;
    private InFlight owner;
    private io.vertx.core.Vertx vertx;
    private long deadlineTimer = -1;
    private Node prev;
    private Node next;

    Node(String groupArn, Upstream target) {
      this.groupArn = groupArn;
      this.target = target;
    }

    @Override
    public void responseHead(int status) {
      targetStatus = status;
      elbStatus = status;
      if (meters != null || entry != null) {
        long now = System.nanoTime();
        if (meters != null) {
          meters.targetResponse(status, now - sentAt);
        }
        if (entry != null) {
          entry.headNanos = now;
        }
      }
      if (status >= 500) {
        target.failed();
      }
    }

    @Override
    public void failed(ElbError error) {
      if (targetStatus == -1) {
        // Else the client has the target's status already, and its response is cut (or a gRPC call's
        // trailers carry the error).
        elbStatus = error.status();
        if (meters != null) {
          meters.loadBalancer().elbStatus(error.status());
        }
      }
      if (meters != null) {
        if (error == ElbError.TARGET_REFUSED || error == ElbError.CONNECT_TIMEOUT) {
          meters.targetConnectionError();
        } else if (error == ElbError.TARGET_TLS) {
          meters.targetTlsError();
        }
      }
      if (error.targetFault()) {
        target.failed();
      }
    }

    /** A Lambda function's request failed with {@code error}, which the client gets. */
    void lambdaFailed(LambdaError error) {
      errorReason = error.code();
      if (meters != null) {
        meters.lambdaError(error.userError());
      }
      failed(error.elbError());
    }

    @Override
    public void finished(boolean complete) {
      if (deadlineTimer != -1) {
        vertx.cancelTimer(deadlineTimer);
        deadlineTimer = -1;
      }
      InFlight o = owner;
      if (o != null) {
        if (elbStatus == 0 && meters != null) {
          // Nothing was answered: the client went away first (ALB's 460).
          meters.loadBalancer().elbStatus(CLIENT_CLOSED);
        }
        o.remove(this);
        target.completed();
        if (creditEpoch != -1 && exchange != null && !exchange.headSent()) {
          // None of the request reached the agent (no connection, or the client left first): the agent
          // still counts the credit as granted, so it is good for another request.
          if (target.returnCredit(creditEpoch)) {
            o.creditReturned.accept(groupArn);
          }
        }
        if (entry != null) {
          log(entry);
        }
        if (o.listened.getAsBoolean()) {
          o.outcomes.accept(new ExchangeOutcome(loadBalancer, groupArn, function ? null : target.key(), method, uri,
              elbStatus, targetStatus, errorReason));
        }
      }
    }

    private void log(AccessEntry e) {
      e.sentNanos = sentAt == 0 ? -1 : sentAt;
      e.elbStatus = elbStatus;
      e.targetStatus = targetStatus;
      if (errorReason != null) {
        e.errorReason = errorReason; // else what routing noted stays (AWSALBTGCookieInvalid)
      }
      e.groupArn = groupArn;
      e.target = function ? null : target.endpoint();
      if (exchange instanceof io.fulcrum.forward.LaneExchange lane && e.received >= 0) {
        e.received += lane.bodyReceived();
        e.sent += lane.bodySent();
      }
      e.write();
    }

    /** A gRPC call's {@code grpc-timeout}: past it, the call ends with DEADLINE_EXCEEDED. */
    void deadline(io.vertx.core.Vertx vertx, long millis) {
      this.vertx = vertx;
      deadlineTimer = vertx.setTimer(millis, id -> {
        deadlineTimer = -1;
        if (exchange != null) {
          exchange.cut(ElbError.GRPC_DEADLINE_EXCEEDED);
        }
      });
    }
  }

  /** Adds a request dispatched to {@code target} (whose outstanding count the caller has raised). */
  Node add(String groupArn, Upstream target) {
    return add(groupArn, target, null, null, null, false);
  }

  /**
   * Adds a request dispatched to {@code target}, with what its outcome reports.
   *
   * @param function whether the target is a Lambda function
   */
  Node add(String groupArn, Upstream target, String loadBalancer, String method, String uri, boolean function) {
    Node n = new Node(groupArn, target);
    n.loadBalancer = loadBalancer;
    n.method = method;
    n.uri = uri;
    n.function = function;
    n.owner = this;
    n.next = head;
    if (head != null) {
      head.prev = n;
    }
    head = n;
    size++;
    return n;
  }

  private void remove(Node n) {
    if (n.prev != null) {
      n.prev.next = n.next;
    } else {
      head = n.next;
    }
    if (n.next != null) {
      n.next.prev = n.prev;
    }
    n.prev = null;
    n.next = null;
    n.owner = null;
    size--;
  }

  int size() {
    return size;
  }

  /**
   * Cuts every request to a target that {@code next} no longer keeps: its group is still served
   * but the target is neither registered nor draining. Requests of groups that left the snapshot
   * (no longer used by any rule) finish normally.
   */
  void cutDeregistered(DataPlaneSnapshot next) {
    Node n = head;
    while (n != null) {
      Node following = n.next;
      TargetGroupPlan plan = next.groups().get(n.groupArn);
      if (plan != null && !plan.keepsInFlight(n.target.key()) && n.exchange != null) {
        // cut() ends the exchange, whose listener (this node) then leaves the list.
        n.exchange.cut(ElbError.DEREGISTRATION_TIMEOUT);
      }
      n = following;
    }
  }
}
