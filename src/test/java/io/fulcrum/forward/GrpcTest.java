package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What counts as gRPC (the gRPC over HTTP/2 wire spec's Content-Type and Timeout grammar). */
class GrpcTest {

  @ParameterizedTest
  @ValueSource(strings = {"application/grpc", "application/grpc+proto", "application/grpc+json",
      "application/grpc+thrift", "Application/GRPC", "application/grpc; charset=utf-8"})
  void grpcContentTypes(String type) {
    assertThat(Grpc.isGrpc(type)).isTrue();
  }

  /** gRPC-Web is another protocol (browsers, over plain HTTP), and a type that only starts alike is no gRPC. */
  @ParameterizedTest
  @ValueSource(strings = {"application/grpc-web", "application/grpc-web+proto", "application/grpc-web-text",
      "application/grpcxyz", "application/json", "application/grp", ""})
  void otherContentTypes(String type) {
    assertThat(Grpc.isGrpc(type)).isFalse();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "1S | 1000", "100m | 100", "1H | 3600000", "2M | 120000", "1500u | 1", "99999999n | 99",
      "+1S | -1", "-1S | -1", "' 1S' | -1", "1 S | -1", "S | -1", "123456789S | -1", "1s | -1", "1.5S | -1"})
  void timeouts(String header, long millis) {
    assertThat(Grpc.timeoutMillis(header)).isEqualTo(millis);
  }
}
