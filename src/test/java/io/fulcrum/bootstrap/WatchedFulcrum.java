package io.fulcrum.bootstrap;

import io.fulcrum.config.ConfigLoader;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.Problem;
import io.fulcrum.testing.Await;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Fulcrum started from its config file and watching it as Main does: valid edits (and files the
 * configuration names, replaced in place) are applied, refused ones collected in {@link #rejected}.
 * The watch has read the file as it is when {@link #start} returns: edits made after that count.
 */
final class WatchedFulcrum implements AutoCloseable {

  final Fulcrum fulcrum;
  final List<List<Problem>> rejected = new CopyOnWriteArrayList<>();
  private final ConfigLoader loader;

  private WatchedFulcrum(ConfigLoader loader, Fulcrum fulcrum) {
    this.loader = loader;
    this.fulcrum = fulcrum;
  }

  static WatchedFulcrum start(Vertx vertx, Path file, int instances) {
    ConfigLoader loader = new ConfigLoader(vertx, file, Map.of());
    FulcrumConfig initial = Await.result(loader.load());
    WatchedFulcrum w = new WatchedFulcrum(loader, Await.result(Fulcrum.start(vertx, initial, instances,
        Clock.systemUTC())));
    Await.result(loader.watch(initial.reload().scanPeriodMillis(), w.fulcrum::reload, w.rejected::add));
    return w;
  }

  @Override
  public void close() {
    loader.stopWatching();
    Await.result(fulcrum.shutdown());
  }
}
