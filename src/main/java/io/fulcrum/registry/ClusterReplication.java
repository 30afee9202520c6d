package io.fulcrum.registry;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Resources;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import io.vertx.core.spi.cluster.ClusterManager;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resources the API owns, shared by the Fulcrum processes of a cluster (Vert.x clustering with
 * the Hazelcast cluster manager, DESIGN "scale-out").
 *
 * <p>The cluster's current resources are one entry of a cluster-wide map: their version and their
 * JSON (the state file's). A change made through any process's API is validated by its registry
 * as any change is, then written to the map only if the entry is still the one that process last
 * took (compare-and-set), and only then saved and applied; so changes made at once on two
 * processes are applied in one order everywhere. A process whose write found a newer entry takes
 * that entry first and applies the change again on top of it (up to {@value #ATTEMPTS} times).
 * Each write is announced on the clustered event bus; the other processes take the new entry,
 * save it to their state file and apply it as the registry applies any change. A process that
 * joins takes the cluster's entry (its own state file seeds a cluster that has none yet). Every
 * {@link #CHECK_MILLIS} each process looks at the entry anyway, and takes it if it is not its own.
 *
 * <p>The clustered Vert.x is this class's own: its event bus carries only these announcements, and
 * the data plane's Vert.x, its event loops and its local bus, stay as they are without a cluster.
 * The map's entry and every step on it are taken in the registry's turns
 * ({@link RegistryVerticle#inTurn}), so they are ordered with the API's changes on this process.
 */
public final class ClusterReplication {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterReplication.class);

  static final String MAP = "fulcrum.resources";
  static final String KEY = "resources";
  /** Published on the clustered bus after each write: the entry's new version. */
  static final String CHANGED = "fulcrum.resources.changed";
  static final int ATTEMPTS = 5;
  /**
   * How often each process compares the map's entry with its own anyway, in milliseconds, unless
   * the system property {@code fulcrum.cluster.checkMillis} says otherwise when it joins: an
   * announcement lost, or an entry a healed network split left behind, is repaired by the next look.
   */
  static final long CHECK_MILLIS = 30_000;

  static long checkMillis() {
    return Long.getLong("fulcrum.cluster.checkMillis", CHECK_MILLIS);
  }

  private final Vertx cluster;
  private final String name;
  private final RegistryVerticle registry;
  private final AsyncMap<String, String> map;
  private MessageConsumer<Long> consumer;
  /** The map's entry this process's resources are (as last taken or written); null after a failed save. */
  private volatile String taken;
  /** Its version. */
  private volatile long version = -1;

  private ClusterReplication(Vertx cluster, String name, RegistryVerticle registry, AsyncMap<String, String> map) {
    this.cluster = cluster;
    this.name = name;
    this.registry = registry;
    this.map = map;
  }

  /**
   * Joins the cluster of {@code config} with the resources of {@code registry} (deployed): takes
   * the cluster's resources, or, when it has none yet, gives it this process's.
   */
  public static Future<ClusterReplication> join(FulcrumConfig.Cluster config, RegistryVerticle registry) {
    VertxOptions options = new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(2).setInternalBlockingPoolSize(2)
        .setEventBusOptions(new EventBusOptions().setHost(config.host()).setPort(config.eventBusPort()));
    // Built on a thread of no Vert.x: the clustered Vert.x is one of its own, not one made inside another's context.
    return Future.fromCompletionStage(CompletableFuture.supplyAsync(() -> Vertx.builder().with(options)
            .withClusterManager(new HazelcastClusterManager(hazelcast(config))).buildClustered())
            .thenCompose(Future::toCompletionStage))
        .compose(vertx -> vertx.sharedData().<String, String>getAsyncMap(MAP)
            .map(map -> new ClusterReplication(vertx, config.name(), registry, map))
            .compose(ClusterReplication::start)
            .recover(e -> vertx.close().transform(closed -> Future.failedFuture(e))));
  }

  /** Hazelcast's configuration as Vert.x needs it, with {@code config}'s name, address and members. */
  static Config hazelcast(FulcrumConfig.Cluster config) {
    Config c = ConfigUtil.loadConfig();
    c.setClusterName(config.name());
    c.setProperty("hazelcast.phone.home.enabled", "false");
    c.setProperty("hazelcast.logging.type", "slf4j");
    // Fulcrum leaves the cluster itself, after its listeners have stopped.
    c.setProperty("hazelcast.shutdownhook.enabled", "false");
    c.setProperty("hazelcast.local.localAddress", config.host());
    // The member port on that address only: Hazelcast binds every interface unless told not to.
    c.setProperty("hazelcast.socket.bind.any", "false");
    // What the cluster holds is small (one entry, Vert.x's subscriptions): few partitions and threads,
    // not Hazelcast's defaults for a data grid (271 partitions, threads per core).
    c.setProperty("hazelcast.partition.count", "7");
    c.setProperty("hazelcast.operation.thread.count", "1");
    c.setProperty("hazelcast.operation.generic.thread.count", "1");
    c.setProperty("hazelcast.io.thread.count", "1");
    c.setProperty("hazelcast.event.thread.count", "1");
    c.setProperty("hazelcast.health.monitoring.level", "OFF");
    NetworkConfig network = c.getNetworkConfig();
    network.setPort(config.port()).setPortAutoIncrement(false);
    network.getInterfaces().setEnabled(true).setInterfaces(List.of(config.host()));
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(config.members());
    return c;
  }

  /**
   * Listens for the others' changes, then takes the cluster's resources (or gives it this
   * process's): in that order, so that no change announced while it joins goes unseen.
   */
  private Future<ClusterReplication> start() {
    consumer = cluster.eventBus().<Long>consumer(CHANGED, m -> {
      if (m.body() != version) {
        sync();
      }
    });
    cluster.setPeriodic(checkMillis(), id -> sync());
    return consumer.completion().compose(v -> registry.inTurn(() -> seedOrTake(0))).map(this);
  }

  /**
   * Applies {@code change} here and in the cluster; fails, changing nothing, as the registry's
   * {@link RegistryVerticle#mutate} does, or with {@code Throttling} when other processes' changes
   * kept coming first.
   */
  public Future<RegistryVerticle.MutationResult> mutate(Function<Resources, Resources> change) {
    return attempt(change, ATTEMPTS);
  }

  private Future<RegistryVerticle.MutationResult> attempt(Function<Resources, Resources> change, int left) {
    return registry.mutate(change, this::write)
        .recover(e -> {
          if (!(e instanceof Conflict)) {
            if (!(e instanceof InvalidModelException)) {
              // It may have failed after its entry was written (its save): take the map's entry before the next.
              taken = null;
            }
            return Future.failedFuture(e);
          }
          if (left <= 1) {
            return Future.failedFuture(new InvalidModelException(List.of(new Problem("", "Throttling", "the change met "
                + ATTEMPTS + " changes made at once on other processes of the cluster; try it again"))));
          }
          LOG.debug("a change met one made at once on another process: taking the cluster's resources to apply it again");
          return sync().compose(v -> attempt(change, left - 1));
        })
        .onSuccess(r -> cluster.eventBus().publish(CHANGED, version));
  }

  /** The gate of a change (in its turn): its resources become the map's entry, if the entry is still ours. */
  private Future<Void> write(Resources next) {
    String before = taken;
    if (before == null) {
      return Future.failedFuture(new Conflict());
    }
    long v = version + 1;
    String entry = entry(v, next);
    return map.replaceIfPresent(KEY, before, entry).compose(replaced -> {
      if (!replaced) {
        return Future.failedFuture(new Conflict());
      }
      taken = entry;
      version = v;
      return Future.succeededFuture();
    });
  }

  /**
   * Takes the map's entry, in a turn, when it is not the one this process has: the map is the
   * cluster's truth (after a split cluster merged again, its entry may even be of a lower version
   * than this process's). A map that lost its entry (every member that held it gone at once) gets
   * this process's again.
   */
  private Future<Void> sync() {
    return registry.inTurn(() -> registry.completingHere(map.get(KEY)).compose(entry -> entry == null
        ? seedOrTake(Math.max(version, 0)) : entry.equals(taken) ? Future.succeededFuture() : take(entry)));
  }

  /**
   * Gives the map this process's resources as version {@code v} when it has no entry (in a turn),
   * or takes the entry it has.
   */
  private Future<Void> seedOrTake(long v) {
    String mine = entry(v, registry.resources());
    return registry.completingHere(map.putIfAbsent(KEY, mine)).compose(existing -> {
      if (existing != null) {
        LOG.info("taking the cluster's resources (version {})", versionOf(existing));
        return take(existing);
      }
      LOG.info("the cluster had no resources: it takes this process's");
      taken = mine;
      version = v;
      return Future.succeededFuture();
    });
  }

  /** Adopts an entry's resources (on the registry's context, in a turn). */
  private Future<Void> take(String entry) {
    JsonObject json = new JsonObject(entry);
    Resources resources = ResourcesJson.decode(json.getJsonObject("resources"), registry.environment());
    long v = json.getLong("version");
    return registry.adopt(resources).map(r -> {
      taken = entry;
      version = v;
      LOG.info("applied the cluster's resources, version {}", v);
      return null;
    });
  }

  private static String entry(long version, Resources resources) {
    return new JsonObject().put("version", version).put("resources", ResourcesJson.encode(resources)).encode();
  }

  private static long versionOf(String entry) {
    return new JsonObject(entry).getLong("version");
  }

  /**
   * For the dashboard: the cluster's {@code name}, how many {@code members} it has now (this
   * process included), each member's {@code addresses} (the {@code address:port} it takes members
   * on, and whether it is this process: {@code self}), and the {@code version} of its resources
   * this process has applied.
   */
  public JsonObject describe() {
    ClusterManager manager = ((VertxInternal) cluster).clusterManager();
    JsonArray addresses = new JsonArray();
    if (manager instanceof HazelcastClusterManager hazelcast && hazelcast.getHazelcastInstance() != null) {
      for (Member m : hazelcast.getHazelcastInstance().getCluster().getMembers()) {
        String host = m.getAddress().getHost();
        addresses.add(new JsonObject().put("address", (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":"
            + m.getAddress().getPort()).put("self", m.localMember()));
      }
    }
    return new JsonObject().put("name", name).put("members", manager.getNodes().size()).put("addresses", addresses)
        .put("version", version);
  }

  /** The version of the cluster's resources this process has applied; -1 before it joined. */
  public long version() {
    return version;
  }

  /** The clustered Vert.x: its shared data and bus carry what the processes share (the stickiness keys too). */
  public Vertx clustered() {
    return cluster;
  }

  /** Leaves the cluster. */
  public Future<Void> close() {
    return cluster.close();
  }

  /** Another process changed the cluster's resources first. */
  private static final class Conflict extends RuntimeException {
    Conflict() {
      super("the cluster's resources changed meanwhile", null, false, false);
    }
  }
}
