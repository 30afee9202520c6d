package io.fulcrum.optimizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ControlMessagesTest {

  private static List<byte[]> deframe(ControlMessages.Deframer d, Buffer... chunks) {
    List<byte[]> out = new ArrayList<>();
    for (Buffer c : chunks) {
      d.feed(c, out::add);
    }
    return out;
  }

  @Test
  void ready_isProtocolBuffersInAGrpcFrame_andReadsBack() {
    Buffer framed = ControlMessages.ready(new ControlMessages.Ready(3, 300, 0, "c7"));
    // flags 0, length 9, then field 1 = 3, field 2 = 300 (two-byte varint), field 3 (zero) left out,
    // field 4 = "c7"
    assertThat(framed.getBytes()).containsExactly(0, 0, 0, 0, 9, 0x08, 3, 0x10, (byte) 0xac, 0x02, 0x22, 2, 'c', '7');
    List<byte[]> messages = deframe(new ControlMessages.Deframer(), framed);
    assertThat(messages).hasSize(1);
    assertThat(ControlMessages.parseReady(messages.get(0))).isEqualTo(new ControlMessages.Ready(3, 300, 0, "c7"));
  }

  @Test
  void hello_carriesTheNode() {
    List<byte[]> messages = deframe(new ControlMessages.Deframer(), ControlMessages.hello("fulcrum/12@host"));
    assertThat(ControlMessages.parseHello(messages.get(0))).isEqualTo(new ControlMessages.Hello("fulcrum/12@host", -1));
  }

  @Test
  void report_carriesTheSpentCredits_zeroIncluded() {
    assertThat(ControlMessages.report(0).getBytes()).containsExactly(0, 0, 0, 0, 2, 0x10, 0);
    List<byte[]> messages = deframe(new ControlMessages.Deframer(), ControlMessages.report(0),
        ControlMessages.report(300));
    assertThat(messages).extracting(ControlMessages::parseHello).containsExactly(
        new ControlMessages.Hello("", 0), new ControlMessages.Hello("", 300));
  }

  @Test
  void deframer_joinsFramesSplitAnywhere_andSplitsFramesSentTogether() {
    Buffer two = ControlMessages.ready(new ControlMessages.Ready(1, 2, 1, "c1"))
        .appendBuffer(ControlMessages.ready(new ControlMessages.Ready(7, 8, 0, "")));
    ControlMessages.Deframer d = new ControlMessages.Deframer();
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < two.length(); i++) {
      d.feed(two.getBuffer(i, i + 1), out::add);
    }
    assertThat(out).extracting(ControlMessages::parseReady).containsExactly(
        new ControlMessages.Ready(1, 2, 1, "c1"), new ControlMessages.Ready(7, 8, 0, null));
  }

  @Test
  void unknownFields_areSkipped() {
    // field 9 varint, field 4 fixed64, field 5 length-delimited, field 6 fixed32, then ready = 2
    byte[] m = {0x48, 1, 0x21, 1, 2, 3, 4, 5, 6, 7, 8, 0x2a, 2, 'h', 'i', 0x35, 1, 2, 3, 4, 0x08, 2};
    assertThat(ControlMessages.parseReady(m)).isEqualTo(new ControlMessages.Ready(2, 0, 0, ""));
  }

  @Test
  void malformedInput_isRefused() {
    assertThatThrownBy(() -> ControlMessages.parseReady(new byte[] {0x08, (byte) 0x80}))
        .hasMessageContaining("varint runs past");
    assertThatThrownBy(() -> ControlMessages.parseReady(new byte[] {0x2a, 9, 1}))
        .hasMessageContaining("runs past the message");
    assertThatThrownBy(() -> ControlMessages.parseReady(new byte[] {0x08, (byte) 0xff, (byte) 0xff, (byte) 0xff,
        (byte) 0xff, 0x0f})).hasMessageContaining("out of range");
    assertThatThrownBy(() -> deframe(new ControlMessages.Deframer(), Buffer.buffer(new byte[] {1, 0, 0, 0, 0})))
        .hasMessageContaining("compressed");
    assertThatThrownBy(() -> deframe(new ControlMessages.Deframer(), Buffer.buffer(new byte[] {0, 0, 1, 0, 0})))
        .hasMessageContaining("65536 bytes");
  }
}
