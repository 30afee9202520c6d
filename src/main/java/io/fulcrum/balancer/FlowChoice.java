package io.fulcrum.balancer;

import java.util.function.Predicate;

/**
 * How a network load balancer picks the target of a new connection (SPEC §4): by a hash of the
 * flow, the connection's addresses and ports with a secret of the process in place of the TCP
 * sequence number, so that flows spread evenly and each stays on its target for its lifetime; or,
 * with {@code source_ip} stickiness, by the client's address alone, over rendezvous hashing, so
 * that a client keeps its target while that target stays eligible, and only the clients of a
 * target that leaves move. Stateless; the scope is the snapshot's.
 */
public final class FlowChoice {

  private FlowChoice() {
  }

  /**
   * The target for a flow, or null when the scope has none.
   *
   * @param flowHash   a hash of the flow's addresses and ports (see {@link #flowHash})
   * @param sourceHash a hash of the client's address alone (see {@link #addressHash})
   * @param sourceIp   whether the group has {@code source_ip} stickiness
   */
  public static Upstream choose(Scope scope, long flowHash, long sourceHash, boolean sourceIp) {
    return choose(scope, flowHash, sourceHash, sourceIp, null);
  }

  /**
   * Like {@link #choose(Scope, long, long, boolean)}, passing over the targets {@code avoided}
   * holds for (NLB's passive health checks): the flow goes to the next target of the scope in
   * order that is not avoided, or to its own when all are. Not with {@code source_ip}
   * stickiness, which keeps a client's target whatever happens to its connections.
   *
   * @param avoided null when no target is avoided
   */
  public static Upstream choose(Scope scope, long flowHash, long sourceHash, boolean sourceIp,
      Predicate<Upstream> avoided) {
    Upstream[] eligible = scope.eligible();
    int n = eligible.length;
    if (n == 0) {
      return null;
    }
    if (!sourceIp) {
      int i = (int) Long.remainderUnsigned(mix(flowHash), n);
      if (avoided != null && avoided.test(eligible[i])) {
        for (int k = 1; k < n; k++) {
          Upstream next = eligible[(i + k) % n];
          if (!avoided.test(next)) {
            return next;
          }
        }
      }
      return eligible[i];
    }
    Upstream best = null;
    long bestScore = 0;
    for (Upstream u : eligible) {
      long score = mix(sourceHash ^ mix(u.key().hashCode()));
      if (best == null || Long.compareUnsigned(score, bestScore) > 0) {
        best = u;
        bestScore = score;
      }
    }
    return best;
  }

  /** IANA protocol numbers, the first member of a flow's 5-tuple. */
  public static final int TCP = 6;
  public static final int UDP = 17;

  /** A hash of a TCP flow: the client's and the listener's address and port, and {@code secret}. */
  public static long flowHash(byte[] client, int clientPort, byte[] listener, int listenerPort, long secret) {
    return flowHash(TCP, client, clientPort, listener, listenerPort, secret);
  }

  /**
   * A hash of a flow: its protocol ({@link #TCP} or {@link #UDP}), the client's and the listener's
   * address and port, and {@code secret}.
   */
  public static long flowHash(int protocol, byte[] client, int clientPort, byte[] listener, int listenerPort,
      long secret) {
    long h = mix(secret ^ protocol);
    h = mix(h ^ addressHash(client));
    h = mix(h ^ ((long) clientPort << 16 | listenerPort));
    return mix(h ^ addressHash(listener));
  }

  /** A hash of an address's bytes (IPv4 or IPv6). */
  public static long addressHash(byte[] address) {
    long h = 0x9E3779B97F4A7C15L;
    for (byte b : address) {
      h = (h ^ (b & 0xFF)) * 0x100000001B3L;
    }
    return mix(h);
  }

  /**
   * A hash for choosing among a forward action's weighted groups from a flow's or an address's hash:
   * mixed apart from the one that chooses the target, so that the two choices do not line up.
   */
  public static long groupHash(long hash) {
    return mix(hash ^ 0xC2B2AE3D27D4EB4FL);
  }

  /** SplitMix64's finalizer: every input bit moves about half of the output's. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
