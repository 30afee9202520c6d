package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.bus.LocalCodec;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Node;
import io.fulcrum.model.Resources;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** API mutations of the registry: a change that fails in any way is answered, and changes nothing. */
class RegistryMutationTest {

  @TempDir
  Path dir;

  private final Vertx vertx = TestVertx.create();

  @AfterEach
  void close() {
    Await.result(vertx.close());
  }

  @Test
  void changeThatThrowsAnything_failsTheMutation_andTheNextOneStillRuns() {
    Environment env = new Environment("us-east-1", "000000000000", List.of(new Node("zone-a", "127.0.0.1")),
        List.of(), Map.of());
    RegistryVerticle registry = new RegistryVerticle(env, Resources.EMPTY, new VirtualTime(), new StateStore(dir));
    LocalCodec.registerAll(vertx);
    Await.result(vertx.deployVerticle(registry));

    assertThatThrownBy(() -> Await.result(registry.mutate(r -> {
      throw new IllegalStateException("a bug in an operation");
    }))).hasMessageContaining("a bug in an operation");

    assertThat(registry.resources()).isSameAs(Resources.EMPTY);
    Resources tagged = new Resources(List.of(), List.of(), Map.of("arn:x", Map.of("k", "v")));
    assertThat(Await.result(registry.mutate(r -> tagged)).resources()).isEqualTo(tagged);
  }
}
