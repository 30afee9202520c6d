package io.fulcrum.grpc;

import io.fulcrum.testing.TestCertificates;
import io.grpc.BindableService;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.testing.integration.TestServiceImpl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * grpc-java on both ends: servers (the interop {@link TestServiceImpl} with its metadata-echo
 * interceptors, or any service) that add an {@code x-target} response header naming them, and
 * channels to Fulcrum over h2c or TLS.
 */
final class GrpcJava {

  static final Metadata.Key<String> TARGET = Metadata.Key.of("x-target", Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<String> ECHO_INITIAL =
      Metadata.Key.of(VertxTestService.ECHO_INITIAL, Metadata.ASCII_STRING_MARSHALLER);
  static final Metadata.Key<byte[]> ECHO_TRAILING =
      Metadata.Key.of(VertxTestService.ECHO_TRAILING, Metadata.BINARY_BYTE_MARSHALLER);

  private GrpcJava() {
  }

  /** A started server; closing it stops the server and its executor. */
  record Target(Server server, ScheduledExecutorService executor) implements AutoCloseable {
    int port() {
      return server.getPort();
    }

    @Override
    public void close() {
      server.shutdownNow();
      executor.shutdownNow();
      try {
        server.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The interop TestService (with its interceptors) on a free loopback port, in clear text. */
  static Target testService(String id) {
    return testService(id, null);
  }

  /** The interop TestService over TLS when {@code tls} is given. */
  static Target testService(String id, TestCertificates.Pem tls) {
    ScheduledExecutorService exec = Executors.newScheduledThreadPool(2);
    List<ServerInterceptor> interceptors = new ArrayList<>(TestServiceImpl.interceptors());
    return server(id, tls, exec, ServerInterceptors.intercept(new TestServiceImpl(exec), interceptors));
  }

  /** Any services on a free loopback port, each answer carrying {@code x-target: id}. */
  static Target server(String id, TestCertificates.Pem tls, ServerServiceDefinition... services) {
    return server(id, tls, Executors.newScheduledThreadPool(1), services);
  }

  static Target server(String id, TestCertificates.Pem tls, BindableService service) {
    return server(id, tls, service.bindService());
  }

  private static Target server(String id, TestCertificates.Pem tls, ScheduledExecutorService exec,
      ServerServiceDefinition... services) {
    NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0));
    for (ServerServiceDefinition s : services) {
      b.addService(ServerInterceptors.intercept(s, identify(id)));
    }
    try {
      if (tls != null) {
        b.sslContext(GrpcSslContexts.forServer(tls.certificate().toFile(), tls.privateKey().toFile()).build());
      }
      return new Target(b.build().start(), exec);
    } catch (SSLException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ServerInterceptor identify(String id) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        return next.startCall(new SimpleForwardingServerCall<>(call) {
          @Override
          public void sendHeaders(Metadata responseHeaders) {
            responseHeaders.put(TARGET, id);
            super.sendHeaders(responseHeaders);
          }
        }, headers);
      }
    };
  }

  /** A plaintext (h2c prior knowledge) channel to {@code port}. */
  static ManagedChannel h2c(int port, ClientInterceptor... interceptors) {
    return NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().intercept(interceptors).build();
  }

  /** A TLS channel to {@code port} that trusts {@code trusted} (which must name 127.0.0.1). */
  static ManagedChannel tls(int port, TestCertificates.Pem trusted, ClientInterceptor... interceptors) {
    try {
      return NettyChannelBuilder.forAddress("127.0.0.1", port)
          .sslContext(GrpcSslContexts.forClient().trustManager(trusted.certificate().toFile()).build())
          .intercept(interceptors).build();
    } catch (SSLException e) {
      throw new IllegalStateException(e);
    }
  }

  static void close(ManagedChannel channel) {
    channel.shutdownNow();
    try {
      channel.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
