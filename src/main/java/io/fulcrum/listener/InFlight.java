package io.fulcrum.listener;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.HttpForwarder;

/**
 * The proxied requests in flight on one event loop, in an intrusive doubly linked list: adding
 * and removing cost a few pointer writes and no lookup. When a snapshot drops a target whose
 * deregistration delay is over (or that left with a delay of 0), its requests still running are
 * cut (SPEC §2.4: the client gets 502). Touched only on the owning event loop.
 */
final class InFlight {

  private Node head;
  private int size;

  /** One request in flight; also its exchange listener, so that it leaves the list when it ends. */
  static final class Node implements HttpForwarder.ExchangeListener {
    final String groupArn;
    final Upstream target;
    HttpForwarder.Handle exchange;
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
      if (status >= 500) {
        target.failed();
      }
    }

    @Override
    public void failed(ElbError error) {
      if (error.targetFault()) {
        target.failed();
      }
    }

    @Override
    public void finished(boolean complete) {
      if (deadlineTimer != -1) {
        vertx.cancelTimer(deadlineTimer);
        deadlineTimer = -1;
      }
      if (owner != null) {
        owner.remove(this);
        target.completed();
      }
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
    Node n = new Node(groupArn, target);
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
