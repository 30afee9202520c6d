package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * HTTP/1.1 written as bytes, below Netty's HTTP encoders, for the direct path: a request head in
 * one buffer, and body parts as they came or in the chunked coding (a chunk per part, the last
 * chunk with the trailers). Netty's encoders do the same work through a message encoder, a type
 * check per message and a state machine per connection; the direct path knows its messages'
 * framing already.
 */
final class Http1Wire {

  static final short CRLF = ('\r' << 8) | '\n';
  private static final ByteBuf CRLF_BYTES =
      Unpooled.unreleasableBuffer(Unpooled.directBuffer(2).writeShort(CRLF)).asReadOnly();
  private static final byte[] HTTP_1_1_CRLF = {' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n'};

  private Http1Wire() {
  }

  /**
   * The request line ({@code METHOD URI HTTP/1.1}) and headers of {@code request}, the headers the
   * load balancer sets ({@code forwarded}) after them, and the empty line.
   */
  static ByteBuf requestHead(ByteBufAllocator alloc, HttpRequest request, ForwardHeaders.Values forwarded) {
    // Sized for the whole head at once: a buffer grown header by header (a browser's kilobytes of
    // cookies, authenticate-oidc's claims) is reallocated and copied at each step.
    ByteBuf buf = alloc.buffer(FORWARDED_ROOM + request.uri().length() + fieldsLength(request.headers()));
    writeRequestLine(buf, request);
    writeFields(buf, request.headers());
    forwarded.writeTo(buf);
    buf.writeShort(CRLF);
    return buf;
  }

  /**
   * Writes the request line {@code METHOD URI HTTP/1.1} of {@code request}. The URI goes one byte
   * per char, as the decoders read it (HTTP/1.x request lines and HPACK alike), so that bytes
   * outside ASCII go on as they came; Netty's encoder writes it in UTF-8, which encoded them twice.
   */
  static void writeRequestLine(ByteBuf buf, HttpRequest request) {
    ByteBufUtil.copy(request.method().asciiName(), buf);
    buf.writeByte(' ');
    ByteBufUtil.writeAscii(buf, request.uri());
    buf.writeBytes(HTTP_1_1_CRLF);
  }

  /** Room for the request line's method and version and the headers the load balancer sets. */
  private static final int FORWARDED_ROOM = 256;

  /** The bytes of header fields as {@link #writeFields} writes them. */
  static int fieldsLength(HttpHeaders fields) {
    int length = 0;
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = fields.iteratorCharSequence(); it.hasNext(); ) {
      Map.Entry<CharSequence, CharSequence> field = it.next();
      length += field.getKey().length() + field.getValue().length() + 4;
    }
    return length;
  }

  /** Writes header (or trailer) fields, one {@code name: value} line each. */
  static void writeFields(ByteBuf buf, HttpHeaders fields) {
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = fields.iteratorCharSequence(); it.hasNext(); ) {
      writeField(buf, it.next());
    }
  }

  private static void writeField(ByteBuf buf, Map.Entry<CharSequence, CharSequence> field) {
    writeText(buf, field.getKey());
    buf.writeByte(':').writeByte(' ');
    writeText(buf, field.getValue());
    buf.writeShort(CRLF);
  }

  /** Text at least this long is copied by the JDK rather than char by char. */
  private static final int LONG_TEXT = 48;

  /**
   * Writes header text one byte per char, {@code ?} for a char above U+00FF, as Netty's
   * {@link ByteBufUtil#writeAscii} does. A long String (a browser's cookies, authenticate-oidc's
   * claims) goes through {@link String#getBytes} in ISO-8859-1, an array copy for the JDK's
   * one-byte strings, where Netty's loop costs a few nanoseconds a char: a fifth of the CPU of a
   * request with 3 KB of headers.
   */
  static void writeText(ByteBuf buf, CharSequence text) {
    if (text instanceof String s && s.length() >= LONG_TEXT) {
      buf.writeBytes(s.getBytes(StandardCharsets.ISO_8859_1));
    } else {
      ByteBufUtil.writeAscii(buf, text);
    }
  }

  /**
   * Fields a trailer section may not carry (RFC 9110 §6.5.1: those that frame the message, route
   * it, authenticate it, modify the request, control the response or describe the content), as Go's
   * HTTP client refuses to send them. A recipient that merges trailers into the header section would
   * take a trailing {@code Host: evil} for the request's host, after every rule had matched another.
   */
  private static final Set<String> NOT_IN_TRAILERS = Set.of("authorization", "cache-control", "connection",
      "content-encoding", "content-length", "content-range", "content-type", "cookie", "expect", "host", "keep-alive",
      "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "proxy-connection", "range", "set-cookie",
      "te", "trailer", "transfer-encoding", "upgrade", "www-authenticate");

  /** {@link #NOT_IN_TRAILERS} by length: a name is looked up without a copy (every gRPC call has trailers). */
  private static final String[][] NOT_IN_TRAILERS_BY_LENGTH = byLength(NOT_IN_TRAILERS);

  private static String[][] byLength(Set<String> names) {
    int longest = names.stream().mapToInt(String::length).max().orElse(0);
    String[][] out = new String[longest + 1][];
    for (int n = 0; n <= longest; n++) {
      int length = n;
      out[n] = names.stream().filter(name -> name.length() == length).toArray(String[]::new);
    }
    return out;
  }

  /** Whether a trailer section may carry a field named {@code name} (any case). */
  static boolean mayTrail(CharSequence name) {
    int n = name.length();
    if (n >= NOT_IN_TRAILERS_BY_LENGTH.length) {
      return true;
    }
    for (String forbidden : NOT_IN_TRAILERS_BY_LENGTH[n]) {
      if (AsciiString.contentEqualsIgnoreCase(name, forbidden)) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code trailers} without the fields no trailer may carry: the same object when it has none of
   * them (a gRPC call's grpc-status and metadata), else a copy without them.
   */
  static Http2Headers trailing(Http2Headers trailers) {
    boolean clean = true;
    for (Map.Entry<CharSequence, CharSequence> field : trailers) {
      clean &= mayTrail(field.getKey());
    }
    if (clean) {
      return trailers;
    }
    Http2Headers kept = new DefaultHttp2Headers(false, trailers.size());
    for (Map.Entry<CharSequence, CharSequence> field : trailers) {
      if (mayTrail(field.getKey())) {
        kept.add(field.getKey(), field.getValue());
      }
    }
    return kept;
  }

  /** Writes trailer fields, one {@code name: value} line each, but for those no trailer may carry. */
  static void writeTrailers(ByteBuf buf, HttpHeaders trailers) {
    for (Iterator<Map.Entry<CharSequence, CharSequence>> it = trailers.iteratorCharSequence(); it.hasNext(); ) {
      Map.Entry<CharSequence, CharSequence> field = it.next();
      if (mayTrail(field.getKey())) {
        writeField(buf, field);
      }
    }
  }

  /** Writes body bytes to {@code out} (the buffer is the callee's): as they are, or as one chunk. */
  static void writeBody(ChannelHandlerContext out, ByteBuf content, boolean chunked) {
    if (!chunked) {
      out.write(content, out.voidPromise());
      return;
    }
    int n = content.readableBytes();
    if (n == 0) {
      content.release(); // an empty chunk would end the body
      return;
    }
    ByteBuf size = out.alloc().buffer(10);
    ByteBufUtil.writeAscii(size, Integer.toHexString(n));
    size.writeShort(CRLF);
    out.write(size, out.voidPromise());
    out.write(content, out.voidPromise());
    out.write(CRLF_BYTES.duplicate(), out.voidPromise());
  }

  /**
   * Writes the end of a body to {@code out} ({@code last} is the callee's): its last bytes, and in
   * the chunked coding the last chunk and the trailers; flushed when {@code flush}.
   */
  static void writeEnd(ChannelHandlerContext out, LastHttpContent last, boolean chunked, boolean flush) {
    ByteBuf content = last.content();
    ByteBuf end;
    if (chunked) {
      writeBody(out, content, true);
      HttpHeaders trailers = last.trailingHeaders();
      end = out.alloc().buffer(trailers.isEmpty() ? 5 : 256);
      end.writeByte('0').writeShort(CRLF);
      writeTrailers(end, trailers);
      end.writeShort(CRLF);
    } else {
      end = content;
    }
    if (flush) {
      out.writeAndFlush(end, out.voidPromise());
    } else {
      out.write(end, out.voidPromise());
    }
  }
}
