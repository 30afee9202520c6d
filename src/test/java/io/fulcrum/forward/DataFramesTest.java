package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DATA frames written past Netty's flow-control queue, on a server-side HTTP/2 connection handler
 * in an embedded channel: what goes on the wire, how the windows are charged, and when the frame
 * goes to Netty's encoder instead.
 */
class DataFramesTest {

  private static final int DATA = 0x0;

  private EmbeddedChannel channel;
  private Http2ConnectionHandler h2;
  private ChannelHandlerContext ctx;
  private Http2RemoteFlowController flow;
  private Http2Stream stream;

  /** One frame read back from the channel's output. */
  private record Frame(int length, int type, int flags, int streamId, byte[] payload) {
  }

  @BeforeEach
  void setUp() throws Exception {
    h2 = new Http2ConnectionHandlerBuilder().server(true).frameListener(new Http2FrameAdapter()).build();
    channel = new EmbeddedChannel(h2);
    ctx = channel.pipeline().context(h2);
    flow = h2.encoder().flowController();
    stream = h2.connection().remote().createStream(1, false); // a client's request, still sending
    frames(); // the server's SETTINGS
  }

  @AfterEach
  void tearDown() {
    channel.finishAndReleaseAll();
  }

  /** The frames written and flushed since the last call. */
  private List<Frame> frames() {
    channel.flush();
    List<Frame> out = new ArrayList<>();
    ByteBuf all = Unpooled.buffer();
    for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
      all.writeBytes(b);
      b.release();
    }
    while (all.readableBytes() >= 9) {
      int length = all.readUnsignedMedium();
      int type = all.readUnsignedByte();
      int flags = all.readUnsignedByte();
      int id = all.readInt() & 0x7fffffff;
      byte[] payload = new byte[length];
      all.readBytes(payload);
      out.add(new Frame(length, type, flags, id, payload));
    }
    assertThat(all.readableBytes()).as("whole frames only").isZero();
    all.release();
    return out;
  }

  private static ByteBuf bytes(int n) {
    return Unpooled.buffer(n).writeZero(n);
  }

  @Test
  void frameThatFitsTheWindows_isWrittenAtOnce_andChargedToBoth() {
    int stream0 = flow.windowSize(stream);
    int connection0 = flow.windowSize(h2.connection().connectionStream());
    ByteBuf data = bytes(100);

    DataFrames.write(h2, ctx, stream, data, false);

    assertThat(data.refCnt()).as("copied behind its header, released").isZero();
    assertThat(flow.hasFlowControlled(stream)).as("nothing queued").isFalse();
    assertThat(flow.windowSize(stream)).isEqualTo(stream0 - 100);
    assertThat(flow.windowSize(h2.connection().connectionStream())).isEqualTo(connection0 - 100);
    assertThat(frames()).singleElement().satisfies(f -> {
      assertThat(f.type()).isEqualTo(DATA);
      assertThat(f.flags()).isZero();
      assertThat(f.streamId()).isEqualTo(1);
      assertThat(f.length()).isEqualTo(100);
    });
  }

  @Test
  void largePayload_goesAsItIs_behindItsOwnHeader() {
    ByteBuf data = bytes(4096);

    DataFrames.write(h2, ctx, stream, data.retain(), true);

    assertThat(frames()).singleElement().satisfies(f -> {
      assertThat(f.length()).isEqualTo(4096);
      assertThat(f.flags()).as("END_STREAM").isEqualTo(0x1);
    });
    assertThat(data.refCnt()).as("written as it is, not copied: the channel had it and released it").isEqualTo(1);
    data.release();
    assertThat(stream.state()).as("the stream's sending side ended").isEqualTo(Http2Stream.State.HALF_CLOSED_LOCAL);
  }

  @Test
  void emptyFrameThatDoesNotEndTheStream_isNotSent() {
    ByteBuf empty = Unpooled.buffer(0);

    DataFrames.write(h2, ctx, stream, empty, false);

    assertThat(empty.refCnt()).isZero();
    assertThat(frames()).isEmpty();
  }

  @Test
  void frameLargerThanTheStreamWindow_goesToNettysQueue_inOrderWithWhatFollows() throws Exception {
    flow.incrementWindowSize(stream, 50 - flow.windowSize(stream)); // the client allows 50 bytes

    DataFrames.write(h2, ctx, stream, bytes(80), false);
    DataFrames.write(h2, ctx, stream, bytes(10), true); // small enough, but queued behind the first

    assertThat(flow.hasFlowControlled(stream)).isTrue();
    List<Frame> sent = frames();
    assertThat(sent).extracting(Frame::length).containsExactly(50);
    assertThat(stream.state()).isEqualTo(Http2Stream.State.OPEN);

    flow.incrementWindowSize(stream, 1000);
    assertThat(frames()).as("the rest and the last frame, which Netty's queue merged")
        .singleElement().satisfies(f -> {
          assertThat(f.length()).isEqualTo(40);
          assertThat(f.flags()).as("END_STREAM").isEqualTo(0x1);
        });
    assertThat(stream.state()).isEqualTo(Http2Stream.State.HALF_CLOSED_LOCAL);
  }
}
