package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.transport.Transport;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NetworkTransportTest {

  @Test
  void auto_isEpollWhereAvailable_elseNio() {
    Transport expected = Transport.EPOLL != null && Transport.EPOLL.available() ? Transport.EPOLL : Transport.NIO;

    assertThat(NetworkTransport.choose(Map.of())).isSameAs(expected);
    assertThat(NetworkTransport.choose(Map.of("FULCRUM_TRANSPORT", "auto"))).isSameAs(expected);
    assertThat(NetworkTransport.choose(Map.of("FULCRUM_TRANSPORT", " "))).isSameAs(expected);
  }

  @Test
  void onLinux_auto_isEpoll() {
    assumeTrue(System.getProperty("os.name").startsWith("Linux")
        && System.getProperty("os.arch").matches("amd64|x86_64|aarch64"));

    assertThat(NetworkTransport.choose(Map.of()).name()).isEqualTo("epoll");
  }

  @ParameterizedTest
  @ValueSource(strings = {"nio", "NIO", " nio "})
  void nio_isAlwaysThere(String value) {
    assertThat(NetworkTransport.choose(Map.of("FULCRUM_TRANSPORT", value))).isSameAs(Transport.NIO);
  }

  @Test
  void theOlderSwitchStillMeansNio_unlessTheNewOneIsSet() {
    assertThat(NetworkTransport.choose(Map.of("FULCRUM_NATIVE_TRANSPORT", "false"))).isSameAs(Transport.NIO);
    assertThat(NetworkTransport.choose(Map.of("FULCRUM_NATIVE_TRANSPORT", "true"))).isSameAs(NetworkTransport.choose(Map.of()));
    assertThat(NetworkTransport.choose(Map.of("FULCRUM_NATIVE_TRANSPORT", "false", "FULCRUM_TRANSPORT", "auto")))
        .isSameAs(NetworkTransport.choose(Map.of()));
  }

  @Test
  void aNamedNativeTransport_isThatOne_whenAvailable() {
    for (Transport t : new Transport[] {Transport.IO_URING, Transport.EPOLL}) {
      if (t != null && t.available()) {
        assertThat(NetworkTransport.choose(Map.of("FULCRUM_TRANSPORT", t.name()))).isSameAs(t);
      }
    }
  }

  @Test
  void aNamedTransportThatIsNotAvailable_isRefusedWithTheReason() {
    Transport missing = new Transport() {
      @Override
      public String name() {
        return "io_uring";
      }

      @Override
      public boolean available() {
        return false;
      }

      @Override
      public Throwable unavailabilityCause() {
        return new IllegalStateException("setup", new UnsupportedOperationException("io_uring_setup: Operation not permitted"));
      }

      @Override
      public io.vertx.core.spi.transport.Transport implementation() {
        throw new AssertionError("not used");
      }
    };

    assertThatThrownBy(() -> NetworkTransport.available(missing, "io_uring"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("FULCRUM_TRANSPORT=io_uring: io_uring is not available here"
            + " (java.lang.UnsupportedOperationException: io_uring_setup: Operation not permitted)");
    assertThatThrownBy(() -> NetworkTransport.available(null, "epoll"))
        .hasMessage("FULCRUM_TRANSPORT=epoll: epoll is not available on this platform");
  }

  @ParameterizedTest
  @ValueSource(strings = {"dpdk", "uring", "native"})
  void anUnknownValue_isRefusedNamingTheVariableAndTheValues(String value) {
    assertThatThrownBy(() -> NetworkTransport.choose(Map.of("FULCRUM_TRANSPORT", value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("FULCRUM_TRANSPORT=" + value + ": not a transport; use one of auto, io_uring, epoll, nio");
  }

  @Test
  void theVertxRunsOnTheChosenTransport() {
    Vertx vertx = NetworkTransport.vertx(Map.of("FULCRUM_TRANSPORT", "nio"));
    try {
      assertThat(((VertxInternal) vertx).transport().getClass().getSimpleName()).isEqualTo("NioTransport");
    } finally {
      vertx.close().await();
    }
  }
}
