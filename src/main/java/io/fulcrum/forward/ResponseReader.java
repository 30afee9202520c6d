package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Reads an HTTP/1.x target's responses, in place of Netty's response decoder: each head is read
 * into the reader's one {@link TargetResponse} (its bytes copied once into arrays kept from head to
 * head, no object per header), which is what it is only until the next head; its body the
 * {@link DefaultHttpContent} slices of what was read (no copy) and a {@link LastHttpContent}
 * (with the trailers of a chunked body). The body is framed as RFC 9112 §6.3 has it: none for a
 * 1xx, 204 or 304 or the answer to a HEAD; the chunked coding (a Transfer-Encoding of any other
 * coding is malformed: {@link TargetResponse}); Content-Length; otherwise up to the connection's
 * close. After a {@code 101 Switching Protocols} that answers an upgrade request, every byte that
 * follows, up to the connection's close, is the other protocol's ({@link DefaultHttpContent}
 * slices, then a {@link LastHttpContent} at the close); a 101 to any other request is malformed.
 *
 * <p>A response it cannot read (not HTTP/1.x, an invalid header or length, a head over its
 * limits, a broken chunk) ends in a {@link LastHttpContent} whose decoder result is the failure,
 * and nothing more is read from the connection. A connection that closes mid-response ends
 * nothing: its exchange learns of the close.
 */
final class ResponseReader {

  /** The longest status line accepted (Vert.x's client default). */
  static final int MAX_STATUS_LINE = 4096;
  /** The longest chunk-size line accepted (with its extensions). */
  private static final int MAX_CHUNK_LINE = 4096;
  private static final int MAX_LINES = 1024;

  private enum State { HEAD, FIXED, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, UNTIL_CLOSE, SWITCHED, FAILED }

  private final int maxHeaderBytes;
  /** Every head of the connection, read into the same object (valid until the next: {@link TargetResponse}). */
  private final TargetResponse head = new TargetResponse();
  private State state = State.HEAD;
  private boolean headRequest;
  private boolean upgradeRequest;
  /** FIXED: body bytes still to come; CHUNK_DATA: bytes of the chunk still to come. */
  private long remaining;
  /** HEAD: bytes from the reader index already split into {@link #lineEnds}. */
  private int scanned;
  /** HEAD: where each line's LF is, from the reader index. */
  private int[] lineEnds = new int[32];
  private int lines;
  /** TRAILERS: the trailer fields read so far, or null. */
  private HttpHeaders trailers;
  private int trailerBytes;

  /** @param maxHeaderBytes the most bytes a response's header lines (or a chunked body's trailers) may take */
  ResponseReader(int maxHeaderBytes) {
    this.maxHeaderBytes = maxHeaderBytes;
  }

  /** Whether the request now on the connection is a HEAD (its response has no body, whatever its head says). */
  void headRequest(boolean head) {
    this.headRequest = head;
  }

  /**
   * Whether the request now on the connection asks to switch protocols (a WebSocket upgrade): a
   * {@code 101} then ends HTTP on the connection instead of coming before the final response.
   */
  void upgradeRequest(boolean upgrade) {
    this.upgradeRequest = upgrade;
  }

  /**
   * Reads what {@code in} has, handing each part of a response to {@code out} as soon as it is
   * read; what does not make a whole part yet stays in {@code in}, for the next call with more
   * bytes after it. {@code out} may take the connection for the next request before this returns.
   */
  void read(ByteBuf in, Consumer<Object> out) {
    try {
      readParts(in, out);
    } catch (TargetResponse.MalformedException e) {
      failed(in, out, e);
    }
  }

  private void readParts(ByteBuf in, Consumer<Object> out) {
    for (;;) {
      switch (state) {
        case HEAD -> {
          TargetResponse head = readHead(in);
          if (head == null) {
            return;
          }
          if (head.status() == 101 && !upgradeRequest) {
            // RFC 9110 §15.2.2: a server switches only to a protocol the client asked for. What follows
            // is another protocol's, and no final response comes.
            throw new TargetResponse.MalformedException("101 Switching Protocols to a request that asked for no upgrade");
          }
          out.accept(head);
          if (head.status() == 101) {
            state = State.SWITCHED;
          } else {
            startBody(head, out);
          }
        }
        case FIXED -> {
          int n = in.readableBytes();
          if (n == 0) {
            return;
          }
          if (n < remaining) {
            remaining -= n;
            out.accept(new DefaultHttpContent(in.readRetainedSlice(n)));
            return;
          }
          state = State.HEAD;
          out.accept(new DefaultLastHttpContent(in.readRetainedSlice((int) remaining), EmptyHttpHeaders.INSTANCE));
        }
        case UNTIL_CLOSE, SWITCHED -> {
          int n = in.readableBytes();
          if (n > 0) {
            out.accept(new DefaultHttpContent(in.readRetainedSlice(n)));
          }
          return;
        }
        case CHUNK_SIZE -> {
          if (!readChunkSize(in)) {
            return;
          }
        }
        case CHUNK_DATA -> {
          int n = (int) Math.min(in.readableBytes(), remaining);
          if (n == 0) {
            return;
          }
          remaining -= n;
          if (remaining == 0) {
            state = State.CHUNK_END;
          }
          out.accept(new DefaultHttpContent(in.readRetainedSlice(n)));
        }
        case CHUNK_END -> {
          if (!in.isReadable()) {
            return;
          }
          byte b = in.getByte(in.readerIndex());
          if (b == '\r') {
            if (in.readableBytes() < 2) {
              return;
            }
            b = in.getByte(in.readerIndex() + 1);
            in.skipBytes(1);
          }
          if (b != '\n') {
            throw new TargetResponse.MalformedException("a chunk not followed by CRLF");
          }
          in.skipBytes(1);
          state = State.CHUNK_SIZE;
        }
        case TRAILERS -> {
          if (!readTrailer(in, out)) {
            return;
          }
        }
        case FAILED -> {
          in.skipBytes(in.readableBytes());
          return;
        }
        default -> throw new IllegalStateException(state.name());
      }
    }
  }

  /** Reads a whole head, or returns null (nothing consumed) until it has all come. */
  private TargetResponse readHead(ByteBuf in) {
    int start = in.readerIndex();
    int limit = in.writerIndex();
    int from = start + scanned;
    for (;;) {
      int lf = in.indexOf(from, limit, (byte) '\n');
      if (lf < 0) {
        scanned = limit - start;
        checkHeadSize(scanned);
        return null;
      }
      int lineStart = lines == 0 ? start : start + lineEnds[lines - 1] + 1;
      int length = lf - lineStart;
      boolean empty = length == 0 || (length == 1 && in.getByte(lineStart) == '\r');
      if (lines == 0 && empty) {
        // Line breaks before a status line are skipped, as RFC 9112 §2.2 has a server skip them before a
        // request line. (On a target connection, bytes after a whole response close it: TargetConnection.)
        in.readerIndex(lf + 1);
        start = lf + 1;
        from = start;
        continue;
      }
      if (lines == lineEnds.length) {
        if (lines == MAX_LINES) {
          throw new TargetResponse.MalformedException("too many header lines");
        }
        lineEnds = Arrays.copyOf(lineEnds, lines * 2);
      }
      lineEnds[lines++] = lf - start;
      checkHeadSize(lf + 1 - start);
      from = lf + 1;
      if (empty && lines > 1) {
        int n = lines;
        lines = 0;
        scanned = 0;
        head.read(in, lf + 1 - start, lineEnds, n, headRequest);
        return head;
      }
    }
  }

  /** Refuses a head that grows past the status line's or the headers' limit. */
  private void checkHeadSize(int size) {
    int statusLine = lines > 0 ? lineEnds[0] + 1 : size;
    if (statusLine > MAX_STATUS_LINE + 2) {
      throw new TargetResponse.MalformedException("a status line over " + MAX_STATUS_LINE + " bytes");
    }
    if (size - statusLine > maxHeaderBytes) {
      throw new TargetResponse.MalformedException("response headers over " + maxHeaderBytes + " bytes");
    }
  }

  private void startBody(TargetResponse head, Consumer<Object> out) {
    if (headRequest || head.bodyless()) {
      out.accept(LastHttpContent.EMPTY_LAST_CONTENT);
    } else if (head.chunked()) {
      state = State.CHUNK_SIZE;
    } else if (head.contentLength() < 0) {
      state = State.UNTIL_CLOSE;
    } else if (head.contentLength() == 0) {
      out.accept(LastHttpContent.EMPTY_LAST_CONTENT);
    } else {
      remaining = head.contentLength();
      state = State.FIXED;
    }
  }

  /** Reads a chunk-size line (hex digits, then extensions, which are ignored), or returns false until it has come. */
  private boolean readChunkSize(ByteBuf in) {
    int start = in.readerIndex();
    int lf = in.indexOf(start, in.writerIndex(), (byte) '\n');
    if (lf < 0) {
      if (in.readableBytes() > MAX_CHUNK_LINE) {
        throw new TargetResponse.MalformedException("a chunk-size line over " + MAX_CHUNK_LINE + " bytes");
      }
      return false;
    }
    long size = 0;
    int i = start;
    for (; i < lf; i++) {
      int digit = Character.digit(in.getByte(i), 16);
      if (digit < 0) {
        break;
      }
      if (i - start == 15) {
        throw new TargetResponse.MalformedException("a chunk too large");
      }
      size = size * 16 + digit;
    }
    if (i == start) {
      throw new TargetResponse.MalformedException("a chunk without a size");
    }
    for (int k = i; k < lf; k++) {
      byte b = in.getByte(k);
      if (b == ';') {
        break;
      }
      if (b != ' ' && b != '\t' && !(b == '\r' && k == lf - 1)) {
        throw new TargetResponse.MalformedException("an invalid chunk size");
      }
    }
    in.readerIndex(lf + 1);
    if (size == 0) {
      state = State.TRAILERS;
      trailerBytes = 0;
    } else {
      remaining = size;
      state = State.CHUNK_DATA;
    }
    return true;
  }

  /** Reads one trailer line, or the empty line that ends the body; false until a whole line has come. */
  private boolean readTrailer(ByteBuf in, Consumer<Object> out) {
    int start = in.readerIndex();
    int lf = in.indexOf(start, in.writerIndex(), (byte) '\n');
    if (lf < 0) {
      if (trailerBytes + in.readableBytes() > maxHeaderBytes) {
        throw new TargetResponse.MalformedException("trailers over " + maxHeaderBytes + " bytes");
      }
      return false;
    }
    int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
    trailerBytes += lf + 1 - start;
    if (trailerBytes > maxHeaderBytes) {
      throw new TargetResponse.MalformedException("trailers over " + maxHeaderBytes + " bytes");
    }
    in.readerIndex(lf + 1);
    if (end == start) {
      HttpHeaders t = trailers;
      trailers = null;
      state = State.HEAD;
      out.accept(t == null ? LastHttpContent.EMPTY_LAST_CONTENT : new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, t));
      return true;
    }
    // A trailer line is checked as a header line is.
    byte[] line = new byte[end - start];
    in.getBytes(start, line);
    int colon = TargetResponse.colonAfterName(line, 0, line.length);
    TargetResponse.checkText(line, colon + 1, line.length);
    String name = new String(line, 0, colon, StandardCharsets.ISO_8859_1);
    String value = new String(line, colon + 1, line.length - colon - 1, StandardCharsets.ISO_8859_1).strip();
    // Fields that frame the message have no place among trailers (as Netty's decoder, they are dropped).
    if (!AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.CONTENT_LENGTH)
        && !AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.TRANSFER_ENCODING)
        && !AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.TRAILER)) {
      if (trailers == null) {
        trailers = HeadersMultiMap.httpHeaders();
      }
      trailers.add(name, value);
    }
    return true;
  }

  /** The response cannot be read: it ends in a failure, and nothing more is read from the connection. */
  private void failed(ByteBuf in, Consumer<Object> out, Exception cause) {
    state = State.FAILED;
    lines = 0;
    scanned = 0;
    trailers = null;
    in.skipBytes(in.readableBytes());
    LastHttpContent failure = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, EmptyHttpHeaders.INSTANCE);
    failure.setDecoderResult(DecoderResult.failure(cause));
    out.accept(failure);
  }

  /** The connection closed: a body that ends with it ends. */
  void closed(Consumer<Object> out) {
    lines = 0;
    scanned = 0;
    trailers = null;
    if (state == State.UNTIL_CLOSE || state == State.SWITCHED) {
      state = State.HEAD;
      out.accept(LastHttpContent.EMPTY_LAST_CONTENT);
    }
  }
}
