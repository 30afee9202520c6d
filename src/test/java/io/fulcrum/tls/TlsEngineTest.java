package io.fulcrum.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TlsEngineTest {

  @Test
  @EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "aarch64"})
  void onLinux_theJarsBoringSslLoads_andAutoPicksIt() {
    assertThat(OpenSsl.isAvailable()).as("BoringSSL: %s", OpenSsl.unavailabilityCause()).isTrue();
    assertThat(TlsEngine.choose(Map.of())).isSameAs(TlsEngine.OPENSSL);
    assertThat(TlsEngine.choose(Map.of("FULCRUM_TLS_ENGINE", " Auto "))).isSameAs(TlsEngine.OPENSSL);
    assertThat(TlsEngine.choose(Map.of("FULCRUM_TLS_ENGINE", "openssl"))).isSameAs(TlsEngine.OPENSSL);
    assertThat(TlsEngine.OPENSSL.description()).startsWith("BoringSSL");
  }

  @Test
  void jdk_isAlwaysThere() {
    assertThat(TlsEngine.choose(Map.of("FULCRUM_TLS_ENGINE", "JDK"))).isSameAs(TlsEngine.JDK);
    assertThat(TlsEngine.JDK.vertxOptions()).isInstanceOf(JdkSSLEngineOptions.class);
    assertThat(TlsEngine.JDK.nettyProvider()).isEqualTo(SslProvider.JDK);
    assertThat(TlsEngine.JDK.description()).startsWith("JDK ");
  }

  @Test
  void openssl_configuresVertxAndNettyForIt() {
    assertThat(TlsEngine.OPENSSL.vertxOptions()).isInstanceOf(OpenSSLEngineOptions.class);
    assertThat(TlsEngine.OPENSSL.nettyProvider()).isEqualTo(SslProvider.OPENSSL);
  }

  @Test
  @EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "aarch64"})
  void boringSsl_lacksTheCbcSuitesWithSha2Macs_whichTheJdkHas() {
    String[] gone = {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
        "TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA256"};
    assertThat(TlsEngine.OPENSSL.cipherSuites()).doesNotContain(gone)
        .contains("TLS_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA");
    assertThat(TlsEngine.JDK.cipherSuites()).contains(gone);
  }

  @ParameterizedTest
  @ValueSource(strings = {"libressl", "boringssl", "true"})
  void anUnknownValue_isRefusedNamingTheVariableAndTheValues(String value) {
    assertThatThrownBy(() -> TlsEngine.choose(Map.of("FULCRUM_TLS_ENGINE", value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("FULCRUM_TLS_ENGINE=" + value + ": not a TLS engine; use one of auto, openssl, jdk");
  }
}
