package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.testing.integration.Messages;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.TestServiceImpl;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GrpcSmokeTest {

  @Test
  void unaryCall_throughAnH2cListener_toAGrpcGroup() throws Exception {
    ScheduledExecutorService exec = Executors.newScheduledThreadPool(2);
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(new TestServiceImpl(exec)).build().start();
    int port = Ports.free();
    Gateway gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners: [{protocol: HTTP, port: %d, h2c: true, default-actions: [{type: forward, target-group: grpc}]}]
        target-groups:
          - {name: grpc, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, server.getPort()));
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      Messages.SimpleResponse r = TestServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
          .unaryCall(Messages.SimpleRequest.newBuilder().setResponseSize(10)
              .setPayload(Messages.Payload.newBuilder().setBody(ByteString.copyFromUtf8("hello"))).build());
      assertThat(r.getPayload().getBody().size()).isEqualTo(10);
    } finally {
      channel.shutdownNow();
      gateway.close();
      server.shutdownNow();
      exec.shutdownNow();
    }
  }
}
