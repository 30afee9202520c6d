package io.fulcrum.optimizer;

import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * The target optimizer's control channel on the wire (SPEC §9; docs/target-optimizer.md): one gRPC
 * bidirectional stream, {@code fulcrum.targetcontrol.v1.TargetControl/Channel}, over TLS, which the
 * load balancer opens to the agent's control port. The messages, in protocol buffers:
 *
 * <pre>
 * // load balancer to agent: first its node, then every second the credits it has spent
 * message Hello { string node = 1; optional uint64 spent = 2; }
 * // agent to load balancer, whenever it has room for more requests
 * message Ready { uint32 ready = 1; uint32 max_concurrency = 2; uint32 in_flight = 3; string channel = 4; }
 * </pre>
 *
 * {@code ready} is how many more requests this load balancer may send (credits, added to those it
 * holds); {@code channel} names the channel: a request sent with one of its credits carries it in
 * the {@value #CREDIT_HEADER} header, so that the agent knows whose credit it used; the other two
 * say how the agent stands, for the dashboard. {@code spent} counts the credits of this channel
 * the load balancer has spent on requests that went out: when it has not moved for a report, every
 * such request has arrived, and the agent takes those that never did as lost and grants them again. When the stream ends, for
 * either side, its credits are void. Hand-encoded: two small messages do not need generated code.
 */
public final class ControlMessages {

  public static final String SERVICE = "fulcrum.targetcontrol.v1.TargetControl";
  public static final String PATH = "/" + SERVICE + "/Channel";
  /** The request header naming the channel whose credit a request used; the agent removes it. */
  public static final String CREDIT_HEADER = "x-fulcrum-credit";
  /** The largest message either side accepts. */
  static final int MAX_MESSAGE = 4096;

  private ControlMessages() {
  }

  /** The agent's side of the channel: how many more requests, and its state. */
  public record Ready(int ready, int maxConcurrency, int inFlight, String channel) {
    public Ready {
      channel = channel == null ? "" : channel;
    }
  }

  /** The load balancer's {@code Hello}, framed. */
  public static Buffer hello(String node) {
    ByteArrayOutputStream m = new ByteArrayOutputStream();
    byte[] s = node.getBytes(StandardCharsets.UTF_8);
    m.write(0x0a); // field 1, length-delimited
    varint(m, s.length);
    m.write(s, 0, s.length);
    return frame(m.toByteArray());
  }

  /** The agent's {@code Ready}, framed (zero fields are left out, as protocol buffers do). */
  public static Buffer ready(Ready r) {
    ByteArrayOutputStream m = new ByteArrayOutputStream();
    field(m, 1, r.ready());
    field(m, 2, r.maxConcurrency());
    field(m, 3, r.inFlight());
    if (!r.channel().isEmpty()) {
      byte[] c = r.channel().getBytes(StandardCharsets.UTF_8);
      m.write(0x22); // field 4, length-delimited
      varint(m, c.length);
      m.write(c, 0, c.length);
    }
    return frame(m.toByteArray());
  }

  /** The load balancer's side: its node (empty when absent), and its spent credits (-1 when absent). */
  public record Hello(String node, long spent) {
  }

  /** The load balancer's report of the credits it has spent on this channel, framed. */
  public static Buffer report(long spent) {
    ByteArrayOutputStream m = new ByteArrayOutputStream();
    m.write(2 << 3); // field 2, varint: written even when 0 (its presence is what tells a report)
    varint(m, spent);
    return frame(m.toByteArray());
  }

  /** Reads a {@code Hello}. */
  public static Hello parseHello(byte[] message) {
    String[] node = {""};
    long[] spent = {-1};
    fields(message, (tag, value, bytes) -> {
      if (tag == 1 && bytes != null) {
        node[0] = new String(bytes, StandardCharsets.UTF_8);
      } else if (tag == 2 && bytes == null) {
        spent[0] = value;
      }
    });
    if (spent[0] < -1) {
      throw new IllegalArgumentException("spent out of range");
    }
    return new Hello(node[0], spent[0]);
  }

  /** Reads a {@code Ready}. */
  public static Ready parseReady(byte[] message) {
    long[] v = new long[4];
    String[] channel = {""};
    fields(message, (tag, value, bytes) -> {
      if (tag >= 1 && tag <= 3 && bytes == null) {
        v[tag] = value;
      } else if (tag == 4 && bytes != null) {
        channel[0] = new String(bytes, StandardCharsets.UTF_8);
      }
    });
    for (int i = 1; i <= 3; i++) {
      if (v[i] < 0 || v[i] > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("field " + i + " out of range: " + v[i]);
      }
    }
    return new Ready((int) v[1], (int) v[2], (int) v[3], channel[0]);
  }

  private static Buffer frame(byte[] message) {
    Buffer b = Buffer.buffer(5 + message.length);
    b.appendByte((byte) 0).appendInt(message.length).appendBytes(message);
    return b;
  }

  private static void field(ByteArrayOutputStream m, int number, int value) {
    if (value != 0) {
      m.write(number << 3); // varint
      varint(m, value & 0xffffffffL);
    }
  }

  private static void varint(ByteArrayOutputStream m, long v) {
    while ((v & ~0x7fL) != 0) {
      m.write((int) (v & 0x7f) | 0x80);
      v >>>= 7;
    }
    m.write((int) v);
  }

  private interface FieldVisitor {
    /** A varint field ({@code bytes} null) or a length-delimited one. */
    void field(int tag, long value, byte[] bytes);
  }

  /** Visits a message's fields; skips fixed-width ones; throws on a malformed message. */
  private static void fields(byte[] m, FieldVisitor visitor) {
    int[] pos = {0};
    while (pos[0] < m.length) {
      long key = readVarint(m, pos);
      int tag = (int) (key >>> 3);
      switch ((int) (key & 7)) {
        case 0 -> visitor.field(tag, readVarint(m, pos), null);
        case 1 -> skip(m, pos, 8);
        case 2 -> {
          long len = readVarint(m, pos);
          if (len > m.length - pos[0]) {
            throw new IllegalArgumentException("field " + tag + " runs past the message");
          }
          byte[] bytes = java.util.Arrays.copyOfRange(m, pos[0], pos[0] + (int) len);
          pos[0] += (int) len;
          visitor.field(tag, 0, bytes);
        }
        case 5 -> skip(m, pos, 4);
        default -> throw new IllegalArgumentException("unsupported wire type " + (key & 7));
      }
    }
  }

  private static void skip(byte[] m, int[] pos, int n) {
    if (n > m.length - pos[0]) {
      throw new IllegalArgumentException("a field runs past the message");
    }
    pos[0] += n;
  }

  private static long readVarint(byte[] m, int[] pos) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos[0] >= m.length) {
        throw new IllegalArgumentException("a varint runs past the message");
      }
      byte b = m[pos[0]++];
      v |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("a varint longer than 10 bytes");
  }

  /**
   * Cuts a stream of gRPC frames into messages (uncompressed only; each at most
   * {@link #MAX_MESSAGE} bytes). Not thread-safe: one per stream.
   */
  public static final class Deframer {
    private Buffer pending = Buffer.buffer();

    /** Adds {@code data}; hands each whole message to {@code out}; throws on a frame it refuses. */
    public void feed(Buffer data, Consumer<byte[]> out) {
      pending.appendBuffer(data);
      int at = 0;
      while (pending.length() - at >= 5) {
        byte flags = pending.getByte(at);
        long length = pending.getUnsignedInt(at + 1);
        if (flags != 0) {
          throw new IllegalArgumentException("compressed or unknown frame flags " + flags);
        }
        if (length > MAX_MESSAGE) {
          throw new IllegalArgumentException("a message of " + length + " bytes (at most " + MAX_MESSAGE + ")");
        }
        if (pending.length() - at - 5 < length) {
          break;
        }
        out.accept(pending.getBytes(at + 5, at + 5 + (int) length));
        at += 5 + (int) length;
      }
      if (at > 0) {
        pending = pending.getBuffer(at, pending.length());
      }
    }
  }
}
