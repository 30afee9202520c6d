package io.fulcrum.listener;

import io.fulcrum.observe.LoadBalancerMeters;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;

/**
 * Counts the bytes a client connection reads and writes, as HTTP (after TLS, before the HTTP/1.x
 * codec or the HTTP/2 frame codec): its load balancer's {@code ProcessedBytes}, and over HTTP/1.x
 * the access log's {@code received_bytes} and {@code sent_bytes}, which are what a request's
 * exchange added (see {@link ClientConnection#received}). Three additions per buffer. Only the
 * connection's event loop runs it.
 *
 * <p>On a cleartext listener that takes h2c too, Vert.x makes the connection only once the first
 * request's head is decoded (or the HTTP/2 preface read): a counter put in then would miss those
 * bytes. There the transport puts one in as it accepts ({@link #installEarly}), counting before it
 * knows its load balancer; the connection takes it over ({@link #attach}).
 */
public final class ByteCounter extends ChannelDuplexHandler {

  static final String NAME = "fulcrumBytes";

  /** Where the bytes count in {@code ProcessedBytes}; null until an early counter is attached. */
  private LoadBalancerMeters meters;
  long read;
  long written;

  ByteCounter(LoadBalancerMeters meters) {
    this.meters = meters;
  }

  /** Counts an accepted connection's bytes from its first one, before its load balancer is known. */
  public static void installEarly(ChannelPipeline pipeline) {
    pipeline.addFirst(NAME, new ByteCounter(null));
  }

  /** Whether the counter knows its load balancer yet. */
  boolean attached() {
    return meters != null;
  }

  /** Counts from now on in {@code meters}, which get what was counted before too. */
  void attach(LoadBalancerMeters meters) {
    this.meters = meters;
    meters.processed(read + written);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    int n = size(msg);
    read += n;
    if (meters != null) {
      meters.processed(n);
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    int n = size(msg);
    written += n;
    if (meters != null) {
      meters.processed(n);
    }
    ctx.write(msg, promise);
  }

  private static int size(Object msg) {
    if (msg instanceof ByteBuf b) {
      return b.readableBytes();
    }
    return msg instanceof ByteBufHolder h ? h.content().readableBytes() : 0;
  }

  @Override
  public boolean isSharable() {
    return false;
  }
}
