package io.vertx.core.http.impl;

import io.netty.handler.codec.http2.Http2Stream;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpFrame;
import io.vertx.core.http.StreamPriority;

/**
 * Fulcrum's one class inside Vert.x's HTTP/2 package (written against Vert.x 5.0's package-private
 * API; a Vert.x upgrade that changes it fails the build, not a request). Fulcrum's direct path
 * serves some streams of a Vert.x HTTP/2 server connection itself (io.fulcrum.listener.StreamLane).
 * Vert.x's connection assumes every active stream is one of its own: on a connection error (a
 * RST_STREAM flood, a protocol error) it walks the active streams and fails each, and a stream
 * without its object would end that walk with a NullPointerException, before the GOAWAY is sent.
 * Those streams therefore carry a stand-in, one per connection, on which every event Vert.x
 * delivers does nothing: the direct path learns of the stream's events from Netty itself.
 */
public final class FulcrumStreams {

  private FulcrumStreams() {
  }

  /** The stand-in for the streams Fulcrum serves on {@code connection}; made once per connection. */
  public static Object standIn(Http2ServerConnection connection) {
    return new StandIn(connection);
  }

  /** Marks {@code stream} of {@code connection} as served by Fulcrum, with the connection's stand-in. */
  public static void claim(Http2ServerConnection connection, Object standIn, Http2Stream stream) {
    stream.setProperty(connection.streamKey, (StandIn) standIn);
  }

  private static final class StandIn extends VertxHttp2Stream<Http2ServerConnection> {

    StandIn(Http2ServerConnection connection) {
      super(connection, connection.context());
    }

    @Override
    void onClose() {
    }

    @Override
    void onException(Throwable cause) {
    }

    @Override
    void onReset(long code) {
    }

    @Override
    void onPriorityChange(StreamPriority priority) {
    }

    @Override
    void onCustomFrame(HttpFrame frame) {
    }

    @Override
    void onWritabilityChanged() {
    }

    @Override
    void onData(Buffer data) {
    }

    @Override
    void onEnd(MultiMap trailers) {
    }

    @Override
    void handleException(Throwable cause) {
    }
  }
}
