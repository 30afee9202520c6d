package io.fulcrum.observe;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.Shareable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every event loop's {@link LoopMeters} in one Vert.x instance. A listener verticle registers its
 * own as it starts; a scrape asks each loop for a copy of its counters, on that loop, and adds them
 * up, so that no counter is ever shared between threads.
 */
public final class Meters implements Shareable {

  private static final String MAP = "fulcrum.observe.meters";
  private static final String KEY = "loops";

  private record Loop(Context context, LoopMeters meters) {
  }

  private final List<Loop> loops = new CopyOnWriteArrayList<>();

  private Meters() {
  }

  /** The meters of {@code vertx} (one object per Vert.x instance). */
  public static Meters of(Vertx vertx) {
    var map = vertx.sharedData().<String, Meters>getLocalMap(MAP);
    Meters mine = new Meters();
    Meters existing = map.putIfAbsent(KEY, mine);
    return existing == null ? mine : existing;
  }

  /**
   * Adds the counters of the loop of {@code context}, which alone touches them.
   *
   * @return removes them again (the verticle stops)
   */
  public Runnable register(Context context, LoopMeters meters) {
    Loop loop = new Loop(context, meters);
    loops.add(loop);
    return () -> loops.remove(loop);
  }

  /** The sum over every loop of each load balancer's counters in each zone. Any thread. */
  public Future<Collection<LoadBalancerMeters>> collect() {
    List<Future<List<LoadBalancerMeters>>> copies = new ArrayList<>();
    for (Loop loop : loops) {
      Promise<List<LoadBalancerMeters>> p = Promise.promise();
      loop.context().runOnContext(v -> p.complete(loop.meters().copy()));
      copies.add(p.future());
    }
    return Future.all(copies).map(all -> {
      Map<String, LoadBalancerMeters> total = new LinkedHashMap<>();
      for (int i = 0; i < all.size(); i++) {
        List<LoadBalancerMeters> copy = all.resultAt(i);
        for (LoadBalancerMeters m : copy) {
          // Each is a copy already: the first of a load balancer and zone is the total the others add to.
          LoadBalancerMeters first = total.putIfAbsent(m.key(), m);
          if (first != null) {
            m.addTo(first);
          }
        }
      }
      return total.values();
    });
  }

  @Override
  public Shareable copy() {
    return this;
  }
}
