package io.fulcrum.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.awaitility.Awaitility;

/**
 * HTTP/2 frame by frame over a plain socket (prior knowledge) or TLS (ALPN h2), with Netty's HPACK
 * coder: for what well-behaved clients never do (a 129th concurrent stream, streams opened and
 * reset in a loop) and for seeing every frame the server sends (SETTINGS, RST_STREAM, GOAWAY,
 * PUSH_PROMISE). A reader thread collects frames, acknowledges SETTINGS and opens flow-control
 * windows for received DATA. Writes come from the test thread.
 */
public final class H2Wire implements AutoCloseable {

  public static final int DATA = 0;
  public static final int HEADERS = 1;
  public static final int RST_STREAM = 3;
  public static final int SETTINGS = 4;
  public static final int PUSH_PROMISE = 5;
  public static final int PING = 6;
  public static final int GOAWAY = 7;
  public static final int WINDOW_UPDATE = 8;
  public static final int CONTINUATION = 9;
  public static final int END_STREAM = 0x1;
  public static final int ACK = 0x1;
  public static final int END_HEADERS = 0x4;

  public static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
  public static final int SETTINGS_ENABLE_PUSH = 0x2;
  public static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
  public static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

  public static final long REFUSED_STREAM = 0x7;
  public static final long CANCEL = 0x8;
  public static final long ENHANCE_YOUR_CALM = 0xb;

  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** A frame the server sent; {@code headers} is the decoded block of HEADERS (with its CONTINUATIONs). */
  public record Frame(int type, int flags, int streamId, byte[] payload, Http2Headers headers) {
    /** The error code of RST_STREAM or GOAWAY. */
    public long errorCode() {
      int at = type == GOAWAY ? 4 : 0;
      return ((payload[at] & 0xffL) << 24) | ((payload[at + 1] & 0xffL) << 16) | ((payload[at + 2] & 0xffL) << 8)
          | (payload[at + 3] & 0xffL);
    }

    /** GOAWAY's last stream id. */
    public int lastStreamId() {
      return ((payload[0] & 0x7f) << 24) | ((payload[1] & 0xff) << 16) | ((payload[2] & 0xff) << 8)
          | (payload[3] & 0xff);
    }

    public String status() {
      return headers == null || headers.status() == null ? null : headers.status().toString();
    }
  }

  private final Socket socket;
  private final OutputStream out;
  private final List<Frame> frames = new CopyOnWriteArrayList<>();
  private final Map<Integer, Long> serverSettings = new LinkedHashMap<>();
  private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE);
  private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
  private final Thread reader;
  /** The reader saw the connection end. */
  private volatile boolean ended;
  private volatile boolean closing;
  private volatile boolean serverSettingsReceived;
  /** A header block this side's HPACK decoder refused (the reading ended there). */
  private volatile Http2Exception decodeFailure;
  /** DATA read is not given back to the stream's window (the test does it with {@link #windowUpdate}). */
  private volatile boolean holdWindow;

  private H2Wire(Socket socket) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
    this.reader = new Thread(this::read, "h2wire-reader-" + socket.getLocalPort());
    reader.setDaemon(true);
  }

  /**
   * Connects and sends the preface and SETTINGS ({@code settings}: id to value), and a large
   * connection window; with {@code tls} ALPN offers only h2.
   */
  public static H2Wire connect(String host, int port, SSLContext tls, Map<Integer, Long> settings) {
    return connect(host, port, tls, settings, 1 << 30);
  }

  /**
   * As {@link #connect(String, int, SSLContext, Map)}, growing the connection window by
   * {@code connectionWindowIncrement} (0: the server may send 65,535 bytes of DATA in all until a
   * {@link #windowUpdate} for stream 0).
   */
  public static H2Wire connect(String host, int port, SSLContext tls, Map<Integer, Long> settings,
      long connectionWindowIncrement) {
    try {
      Socket s;
      if (tls != null) {
        SSLSocket ssl = (SSLSocket) tls.getSocketFactory().createSocket();
        ssl.connect(new InetSocketAddress(host, port), 5000);
        SSLParameters p = ssl.getSSLParameters();
        p.setApplicationProtocols(new String[] {"h2"});
        ssl.setSSLParameters(p);
        ssl.startHandshake();
        if (!"h2".equals(ssl.getApplicationProtocol())) {
          throw new IllegalStateException("ALPN chose '" + ssl.getApplicationProtocol() + "', not h2");
        }
        s = ssl;
      } else {
        s = new Socket();
        s.connect(new InetSocketAddress(host, port), 5000);
      }
      s.setTcpNoDelay(true);
      H2Wire w = new H2Wire(s);
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      b.write(PREFACE);
      w.applyDecoderSettings(settings);
      b.write(settingsFrame(settings));
      if (connectionWindowIncrement > 0) {
        b.write(windowUpdateFrame(0, connectionWindowIncrement));
      }
      w.write(b.toByteArray());
      w.reader.start();
      return w;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Sends a SETTINGS frame ({@code settings}: id to value). A header table size applies to this
   * side's HPACK decoder at once: the server's next header block must then start with a dynamic
   * table size update (RFC 7541 §4.2), or the decoder fails and the connection's reading ends.
   */
  public void settings(Map<Integer, Long> settings) {
    applyDecoderSettings(settings);
    write(settingsFrame(settings));
  }

  /** This side's HPACK decoder takes the table size and header list limit this side announces. */
  private void applyDecoderSettings(Map<Integer, Long> settings) {
    Long size = settings.get(SETTINGS_HEADER_TABLE_SIZE);
    Long listSize = settings.get(SETTINGS_MAX_HEADER_LIST_SIZE);
    synchronized (decoder) {
      try {
        if (size != null) {
          decoder.maxHeaderTableSize(size);
        }
        if (listSize != null) {
          decoder.maxHeaderListSize(listSize, listSize);
        }
      } catch (Http2Exception e) {
        throw new IllegalArgumentException(e);
      }
    }
  }

  private static byte[] settingsFrame(Map<Integer, Long> settings) {
    byte[] payload = new byte[settings.size() * 6];
    int i = 0;
    for (Map.Entry<Integer, Long> e : settings.entrySet()) {
      payload[i] = (byte) (e.getKey() >> 8);
      payload[i + 1] = (byte) (int) e.getKey().intValue();
      putInt(payload, i + 2, e.getValue());
      i += 6;
    }
    return frame(SETTINGS, 0, 0, payload);
  }

  /** Request headers for {@code method path}; more may be added to the result. */
  public static Http2Headers request(String method, String scheme, String authority, String path) {
    return new DefaultHttp2Headers().method(method).scheme(scheme).authority(authority).path(path);
  }

  /** The HPACK block for {@code headers} (never indexed, so one block may be sent many times). */
  public byte[] encode(Http2Headers headers) {
    ByteBuf buf = Unpooled.buffer();
    try {
      encoder.encodeHeaders(1, headers, buf);
      byte[] b = new byte[buf.readableBytes()];
      buf.readBytes(b);
      return b;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    } finally {
      buf.release();
    }
  }

  /** HEADERS frame bytes for {@code streamId} carrying an already encoded block. */
  public static byte[] headersFrame(int streamId, byte[] block, boolean endStream) {
    return frame(HEADERS, END_HEADERS | (endStream ? END_STREAM : 0), streamId, block);
  }

  /** A HEADERS frame for {@code streamId} without END_HEADERS: CONTINUATION frames carry the rest of the block. */
  public static byte[] openHeadersFrame(int streamId, byte[] block) {
    return frame(HEADERS, 0, streamId, block);
  }

  /** A CONTINUATION frame of {@code streamId}'s header block, the last one when {@code endHeaders}. */
  public static byte[] continuationFrame(int streamId, byte[] block, boolean endHeaders) {
    return frame(CONTINUATION, endHeaders ? END_HEADERS : 0, streamId, block);
  }

  public static byte[] rstFrame(int streamId, long code) {
    byte[] p = new byte[4];
    putInt(p, 0, code);
    return frame(RST_STREAM, 0, streamId, p);
  }

  public static byte[] dataFrame(int streamId, byte[] data, boolean endStream) {
    return frame(DATA, endStream ? END_STREAM : 0, streamId, data);
  }

  public void headers(int streamId, Http2Headers headers, boolean endStream) {
    write(headersFrame(streamId, encode(headers), endStream));
  }

  /** Writes raw frame bytes; false once the server has closed the connection. */
  public synchronized boolean write(byte[] bytes) {
    try {
      out.write(bytes);
      out.flush();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Stops (or restarts) giving each stream's window back as its DATA is read: the server may then
   * send a stream only what the initial window and {@link #windowUpdate}s allow.
   */
  public H2Wire holdWindow(boolean hold) {
    holdWindow = hold;
    return this;
  }

  /** Grants the server {@code increment} more bytes of DATA on {@code streamId} (0: the connection). */
  public void windowUpdate(int streamId, long increment) {
    write(windowUpdateFrame(streamId, increment));
  }

  private static byte[] windowUpdateFrame(int streamId, long increment) {
    byte[] p = new byte[4];
    putInt(p, 0, increment);
    return frame(WINDOW_UPDATE, 0, streamId, p);
  }

  private static byte[] frame(int type, int flags, int streamId, byte[] payload) {
    byte[] f = new byte[9 + payload.length];
    f[0] = (byte) (payload.length >> 16);
    f[1] = (byte) (payload.length >> 8);
    f[2] = (byte) payload.length;
    f[3] = (byte) type;
    f[4] = (byte) flags;
    putInt(f, 5, streamId & 0x7fffffffL);
    System.arraycopy(payload, 0, f, 9, payload.length);
    return f;
  }

  private static void putInt(byte[] b, int at, long v) {
    b[at] = (byte) (v >> 24);
    b[at + 1] = (byte) (v >> 16);
    b[at + 2] = (byte) (v >> 8);
    b[at + 3] = (byte) v;
  }

  private void read() {
    try {
      DataInputStream in = new DataInputStream(socket.getInputStream());
      ByteArrayOutputStream block = null;
      int blockStream = 0;
      int blockFlags = 0;
      while (true) {
        int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int stream = in.readInt() & 0x7fffffff;
        byte[] payload = new byte[length];
        in.readFully(payload);
        if (type == SETTINGS && (flags & ACK) == 0) {
          for (int i = 0; i + 6 <= length; i += 6) {
            int id = ((payload[i] & 0xff) << 8) | (payload[i + 1] & 0xff);
            long v = ((payload[i + 2] & 0xffL) << 24) | ((payload[i + 3] & 0xffL) << 16)
                | ((payload[i + 4] & 0xffL) << 8) | (payload[i + 5] & 0xffL);
            synchronized (serverSettings) {
              serverSettings.put(id, v);
            }
          }
          serverSettingsReceived = true;
          write(frame(SETTINGS, ACK, 0, new byte[0]));
        } else if (type == PING && (flags & ACK) == 0) {
          write(frame(PING, ACK, 0, payload));
        } else if (type == DATA && length > 0 && !holdWindow) {
          write(windowUpdateFrame(stream, length));
        }
        if (type == HEADERS || type == PUSH_PROMISE) {
          block = new ByteArrayOutputStream();
          blockStream = stream;
          blockFlags = flags;
          block.write(headerBlock(type, flags, payload));
          if ((flags & END_HEADERS) == 0) {
            continue;
          }
        } else if (type == CONTINUATION && block != null) {
          block.write(payload);
          if ((flags & END_HEADERS) == 0) {
            continue;
          }
          type = HEADERS;
          flags = blockFlags;
          stream = blockStream;
        }
        Http2Headers headers = null;
        if (block != null) {
          ByteBuf buf = Unpooled.wrappedBuffer(block.toByteArray());
          try {
            synchronized (decoder) {
              headers = decoder.decodeHeaders(stream, buf);
            }
          } catch (Http2Exception e) {
            decodeFailure = e;
            throw e;
          } finally {
            buf.release();
          }
          block = null;
        }
        frames.add(new Frame(type, flags, stream, payload, headers));
      }
    } catch (EOFException e) {
      // The server closed the connection.
    } catch (Exception e) {
      // A reset or a close from this side.
    } finally {
      ended = true;
    }
  }

  private static byte[] headerBlock(int type, int flags, byte[] payload) {
    int from = 0;
    int to = payload.length;
    if ((flags & 0x8) != 0) {
      from = 1;
      to -= payload[0] & 0xff;
    }
    if (type == HEADERS && (flags & 0x20) != 0) {
      from += 5;
    }
    if (type == PUSH_PROMISE) {
      from += 4;
    }
    byte[] b = new byte[to - from];
    System.arraycopy(payload, from, b, 0, b.length);
    return b;
  }

  /** One stream's answer as the client saw it once the stream ended: each part may be absent. */
  public record Answer(Http2Headers head, byte[] body, Http2Headers trailers, Frame reset) {
    public String status() {
      return head == null || head.status() == null ? null : head.status().toString();
    }

    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /**
   * Waits for {@code stream} to end (a frame with END_STREAM, or RST_STREAM) and returns what came on
   * it: the first HEADERS (the head), the DATA, a second HEADERS (the trailers) and the reset.
   */
  public Answer answer(int stream, Duration atMost) {
    await(f -> f.streamId() == stream && (f.type() == RST_STREAM || (f.flags() & END_STREAM) != 0), atMost);
    Http2Headers head = null;
    Http2Headers trailers = null;
    Frame reset = null;
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (Frame f : frames) {
      if (f.streamId() != stream) {
        continue;
      }
      if (f.type() == HEADERS) {
        if (head == null) {
          head = f.headers();
        } else {
          trailers = f.headers();
        }
      } else if (f.type() == DATA) {
        body.writeBytes(f.payload());
      } else if (f.type() == RST_STREAM) {
        reset = f;
      }
    }
    return new Answer(head, body.toByteArray(), trailers, reset);
  }

  /** Every frame received so far. */
  public List<Frame> frames() {
    return frames;
  }

  /** Waits for the first frame matching {@code match}. */
  public Frame await(Predicate<Frame> match, Duration atMost) {
    Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(5))
        .until(() -> {
          if (decodeFailure != null) {
            throw new AssertionError("a header block from the server could not be decoded", decodeFailure);
          }
          return frames.stream().anyMatch(match);
        });
    return frames.stream().filter(match).findFirst().orElseThrow();
  }

  /** The server's SETTINGS, once the first arrived. */
  public Map<Integer, Long> serverSettings(Duration atMost) {
    Awaitility.await().atMost(atMost).until(() -> serverSettingsReceived);
    synchronized (serverSettings) {
      return new LinkedHashMap<>(serverSettings);
    }
  }

  /** Whether the server has closed the connection (the reader saw its end). */
  public boolean closedByServer() {
    return ended && !closing;
  }

  @Override
  public void close() {
    closing = true;
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
