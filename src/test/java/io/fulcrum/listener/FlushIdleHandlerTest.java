package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The idle handler put in place of Vert.x's on HTTP/2 client connections, on Netty's test clock. */
class FlushIdleHandlerTest {

  private final List<IdleStateEvent> events = new ArrayList<>();
  private EmbeddedChannel channel;

  @BeforeEach
  void setUp() {
    channel = new EmbeddedChannel();
    channel.freezeTime();
    channel.pipeline().addLast("idle", new IdleStateHandler(0, 0, 1000, TimeUnit.MILLISECONDS));
    channel.pipeline().addLast(new ChannelInboundHandlerAdapter() {
      @Override
      public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        events.add((IdleStateEvent) evt);
      }
    });
    FlushIdleHandler.replace(channel.pipeline());
  }

  private void advance(long millis) {
    channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
  }

  @Test
  void replace_keepsTheNameAndTimeouts() {
    IdleStateHandler h = (IdleStateHandler) channel.pipeline().get("idle");
    assertThat(h).isInstanceOf(FlushIdleHandler.class);
    assertThat(h.getAllIdleTimeInMillis()).isEqualTo(1000);
    assertThat(h.getReaderIdleTimeInMillis()).isZero();
    assertThat(h.getWriterIdleTimeInMillis()).isZero();
  }

  @Test
  void connection_withNoTraffic_goesIdleAfterTheTimeout() {
    advance(999);
    assertThat(events).isEmpty();
    advance(2);
    assertThat(events).extracting(IdleStateEvent::state).containsExactly(IdleState.ALL_IDLE);
  }

  @Test
  void flushedWrites_keepTheConnectionBusy_andPassThroughUnchanged() {
    advance(800);
    ByteBuf frame = Unpooled.copiedBuffer(new byte[] {1, 2, 3});
    channel.write(frame, channel.voidPromise()); // a void promise is allowed: no listener is added
    channel.flush();
    assertThat((ByteBuf) channel.readOutbound()).isSameAs(frame);
    frame.release();

    advance(900); // 1,700 ms after the start, 900 after the write
    assertThat(events).isEmpty();
    advance(101);
    assertThat(events).extracting(IdleStateEvent::state).containsExactly(IdleState.ALL_IDLE);
  }

  @Test
  void flushesWithNothingWritten_doNotCount() {
    advance(800);
    channel.flush();

    advance(201);
    assertThat(events).extracting(IdleStateEvent::state).containsExactly(IdleState.ALL_IDLE);
  }

  @Test
  void reads_keepTheConnectionBusy() {
    advance(800);
    channel.writeInbound(Unpooled.copiedBuffer(new byte[] {1}));
    ((ByteBuf) channel.readInbound()).release();

    advance(900);
    assertThat(events).isEmpty();
    advance(101);
    assertThat(events).hasSize(1);
  }
}
