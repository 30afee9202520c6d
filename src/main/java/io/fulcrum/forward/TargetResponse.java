package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An HTTP/1.x target's response head, as {@link ResponseReader} read it: its bytes as they came
 * (one copy; an obs-fold replaced by spaces, RFC 9112 §5.2), where each header's name and value lie
 * in them, and what the load balancer needs to know: the status, how the body is framed, whether
 * the connection stays open. Nothing else is made per header.
 *
 * <p>Each target connection's reader has one, and reads every head of the connection into it,
 * into the same arrays (while they are large enough and not over {@link #KEPT_BYTES}): a head is
 * what it reads only until the connection's next head, so whoever it is handed to takes what it
 * needs at once. What it hands out to keep ({@link #headers}, {@link #reason}, {@link #upgrade},
 * {@link #keepAliveHeader}, {@link #addTo}) is copied.
 *
 * <p>The hop-by-hop headers (RFC 9110 §7.6.1: Connection and those it names, Keep-Alive,
 * Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade), and a Content-Length that a
 * Transfer-Encoding overrides, are marked, and left out wherever the head goes: written as bytes to
 * an HTTP/1.1 client ({@link #writeTo}), or as a header map ({@link #headers}) for the paths that
 * need one.
 */
final class TargetResponse {

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final byte[] HTTP_1_1 = "HTTP/1.1 ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CHUNKED_LINE = "transfer-encoding: chunked\r\n".getBytes(StandardCharsets.US_ASCII);
  /** The line that ends the client connection after this response. */
  static final byte[] CONNECTION_CLOSE_LINE = "connection: close\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final short CRLF = ('\r' << 8) | '\n';

  /** The largest head whose array is kept for the connection's next heads (a larger one gets its own). */
  static final int KEPT_BYTES = 4096;
  /** Ints per header in {@link #fields}. */
  private static final int FIELD = 5;
  /** The most headers whose places are kept for the next heads. */
  private static final int KEPT_FIELDS = 128;

  // Header kinds (fields[FIELD * i + 4]).
  private static final int PASSED = 0;
  private static final int DROPPED = 1;

  private static final byte[] NO_BYTES = {};
  private static final int[] NO_FIELDS = {};

  /** The arrays kept from one head to the next (made by the first head). */
  private byte[] keptBytes = NO_BYTES;
  private int[] keptFields = NO_FIELDS;

  /** The head: status line, header lines, the empty line, in its first {@link #length} bytes. */
  private byte[] bytes;
  private int length;
  private int status;
  private boolean http11;
  /** The status code's first byte; the reason phrase's span (empty when the target sent none). */
  private int codeAt;
  private int reasonStart;
  private int reasonEnd;
  /** Per header: name start, name end, value start, value end (trimmed), kind. */
  private int[] fields;
  private int count;
  /** The body's length from Content-Length, or -1 (none, or overridden by Transfer-Encoding). */
  private long contentLength;
  private boolean chunked;
  private boolean close;
  private String keepAlive;
  /** The response answers a HEAD request (it has no body, whatever its head says). */
  private boolean toHead;

  /** A head that a {@link #read} fills. */
  TargetResponse() {
  }

  /** A head the target sent that the load balancer does not pass on (502). */
  static final class MalformedException extends RuntimeException {
    MalformedException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Reads a whole head from {@code in} into this one, in place of the head it held.
   *
   * @param in the bytes, the head from its reader index: {@code size} of them are read
   * @param size the head's length, from the status line to the empty line that ends it, both included
   * @param lineEnds where each line's LF is, from the head's start: the status line's first, the empty line's last
   * @param lines how many lines there are (at least 2)
   * @param toHead whether the response answers a HEAD request
   * @throws MalformedException when the head is not one to pass on
   */
  void read(ByteBuf in, int size, int[] lineEnds, int lines, boolean toHead) {
    bytes = size <= keptBytes.length ? keptBytes : grown(size);
    in.readBytes(bytes, 0, size);
    length = size;
    int fieldInts = FIELD * (lines - 2);
    fields = fieldInts <= keptFields.length ? keptFields : grownFields(fieldInts);
    this.toHead = toHead;
    parse(lineEnds, lines);
  }

  /** An array for a head of {@code size} bytes, kept for the next heads when not over {@link #KEPT_BYTES}. */
  private byte[] grown(int size) {
    byte[] b = new byte[grownLength(size, keptBytes.length, 512, KEPT_BYTES)];
    if (b.length <= KEPT_BYTES) {
      keptBytes = b;
    }
    return b;
  }

  /** An array for {@code ints} places of headers, kept for the next heads when not over {@link #KEPT_FIELDS}. */
  private int[] grownFields(int ints) {
    int[] f = new int[grownLength(ints, keptFields.length, FIELD * 16, FIELD * KEPT_FIELDS)];
    if (f.length <= FIELD * KEPT_FIELDS) {
      keptFields = f;
    }
    return f;
  }

  /** Twice the {@code kept} length ({@code least} at least, {@code cap} at most), or {@code needed} when that is more. */
  private static int grownLength(int needed, int kept, int least, int cap) {
    return Math.max(needed, Math.min(Math.max(least, 2 * kept), cap));
  }

  /**
   * A head of its own, with this one's bytes and what was read from them, which the connection's
   * next head leaves as it is.
   */
  TargetResponse copy() {
    TargetResponse c = new TargetResponse();
    c.bytes = Arrays.copyOf(bytes, length);
    c.length = length;
    c.status = status;
    c.http11 = http11;
    c.codeAt = codeAt;
    c.reasonStart = reasonStart;
    c.reasonEnd = reasonEnd;
    c.fields = Arrays.copyOf(fields, FIELD * count);
    c.count = count;
    c.contentLength = contentLength;
    c.chunked = chunked;
    c.close = close;
    c.keepAlive = keepAlive;
    c.toHead = toHead;
    return c;
  }

  private void parse(int[] lineEnds, int lines) {
    byte[] bytes = this.bytes;
    int[] fields = this.fields;
    int statusEnd = contentEnd(bytes, 0, lineEnds[0]);
    // HTTP-version SP status-code [SP reason-phrase], leniently about the spaces (as Netty's decoder).
    if (statusEnd < 12 || !startsWithVersion(bytes) || !isSpace(bytes[8])) {
      throw new MalformedException("not an HTTP/1.x status line");
    }
    http11 = bytes[7] == '1';
    int at = skipSpaces(bytes, 8, statusEnd);
    if (statusEnd - at < 3 || !isDigit(bytes[at]) || !isDigit(bytes[at + 1]) || !isDigit(bytes[at + 2])
        || bytes[at] == '0' || (statusEnd > at + 3 && !isSpace(bytes[at + 3]))) {
      throw new MalformedException("no status code in the status line");
    }
    status = (bytes[at] - '0') * 100 + (bytes[at + 1] - '0') * 10 + (bytes[at + 2] - '0');
    codeAt = at;
    reasonStart = skipSpaces(bytes, at + 3, statusEnd);
    reasonEnd = statusEnd;
    checkText(bytes, reasonStart, statusEnd);

    int count = 0;
    long contentLength = -1;
    boolean transferEncoding = false;
    int chunkedCodings = 0;
    boolean close = false;
    String keepAlive = null;
    for (int line = 1; line < lines - 1; line++) {
      int start = lineEnds[line - 1] + 1;
      int end = contentEnd(bytes, start, lineEnds[line]);
      if (isSpace(bytes[start])) {
        // obs-fold: the line continues the previous value; the line break becomes spaces.
        if (count == 0) {
          throw new MalformedException("a continuation line before any header");
        }
        checkText(bytes, start, end);
        int f = FIELD * (count - 1);
        int text = skipSpaces(bytes, start, end);
        int textEnd = end;
        while (textEnd > text && isSpace(bytes[textEnd - 1])) {
          textEnd--;
        }
        if (text < textEnd) {
          for (int i = fields[f + 3]; i < text; i++) {
            bytes[i] = ' '; // the line is written from its name to its value's end: no line break in between
          }
          if (fields[f + 2] == fields[f + 3]) {
            fields[f + 2] = text; // the value starts on the continuation line
          }
          fields[f + 3] = textEnd;
        }
        continue;
      }
      int colon = colonAfterName(bytes, start, end);
      int valueStart = skipSpaces(bytes, colon + 1, end);
      int valueEnd = end;
      while (valueEnd > valueStart && isSpace(bytes[valueEnd - 1])) {
        valueEnd--;
      }
      checkText(bytes, valueStart, valueEnd);
      int f = FIELD * count++;
      fields[f] = start;
      fields[f + 1] = colon;
      fields[f + 2] = valueStart;
      fields[f + 3] = valueEnd;
      fields[f + 4] = PASSED;
    }
    // A second pass, once folds are joined: framing, the connection, the hop-by-hop headers.
    for (int i = 0; i < count; i++) {
      int f = FIELD * i;
      int name = fields[f];
      int nameLength = fields[f + 1] - name;
      int value = fields[f + 2];
      int valueEnd = fields[f + 3];
      switch (nameLength) {
        case 2, 7, 16 -> {
          if (is(bytes, name, nameLength, "te") || is(bytes, name, nameLength, "trailer")
              || is(bytes, name, nameLength, "upgrade") || is(bytes, name, nameLength, "proxy-connection")) {
            fields[f + 4] = DROPPED;
          }
        }
        case 10 -> {
          if (is(bytes, name, nameLength, "connection")) {
            fields[f + 4] = DROPPED;
            for (int t = value; t < valueEnd; ) {
              int tokenEnd = indexOf(bytes, t, valueEnd, (byte) ',');
              int ts = skipSpaces(bytes, t, tokenEnd);
              int te = tokenEnd;
              while (te > ts && isSpace(bytes[te - 1])) {
                te--;
              }
              if (is(bytes, ts, te - ts, "close")) {
                close = true;
              } else if (te > ts && !is(bytes, ts, te - ts, "keep-alive") && !is(bytes, ts, te - ts, "content-length")) {
                // A header this connection's alone (RFC 9110 §7.6.1); never the length that frames the body,
                // without which the client could not tell where the body ends (HopByHop keeps it too).
                dropNamed(bytes, fields, count, ts, te - ts);
              }
              t = tokenEnd + 1;
            }
          } else if (is(bytes, name, nameLength, "keep-alive")) {
            fields[f + 4] = DROPPED;
            keepAlive = new String(bytes, value, valueEnd - value, StandardCharsets.ISO_8859_1);
          }
        }
        case 14 -> {
          if (is(bytes, name, nameLength, "content-length")) {
            boolean first = contentLength < 0;
            contentLength = contentLength(bytes, value, valueEnd, contentLength);
            // One length given more than once (a list, or more fields; one that differs is refused) goes on
            // once, as RFC 9110 §8.6 lets a recipient take it: HTTP/2 clients reset a stream with "5, 5".
            if (!first) {
              fields[f + 4] = DROPPED;
            } else {
              int e = indexOf(bytes, value, valueEnd, (byte) ',');
              while (e > value && isSpace(bytes[e - 1])) {
                e--;
              }
              fields[f + 3] = e;
            }
          }
        }
        case 17 -> {
          if (is(bytes, name, nameLength, "transfer-encoding")) {
            fields[f + 4] = DROPPED;
            transferEncoding = true;
            chunkedCodings += chunkedCodings(bytes, value, valueEnd);
          }
        }
        default -> {
        }
      }
    }
    if (transferEncoding && chunkedCodings != 1) {
      throw new MalformedException("a Transfer-Encoding with the chunked coding more than once, or none");
    }
    boolean chunked = transferEncoding;
    if (transferEncoding && contentLength >= 0) {
      // Transfer-Encoding overrides Content-Length (RFC 9112 §6.3): the length is not passed on.
      contentLength = -1;
      dropAll(bytes, fields, count, "content-length");
    } else if (contentLength >= 0 && (status < 200 || status == 204)) {
      // No 1xx or 204 has a Content-Length (RFC 9110 §8.6): HTTP/2 clients (curl, nghttp2) refuse the
      // stream that has one, and an HTTP/1.1 client may wait for the body it announces.
      contentLength = -1;
      dropAll(bytes, fields, count, "content-length");
    }
    this.count = count;
    this.contentLength = contentLength;
    this.chunked = chunked;
    this.close = close;
    this.keepAlive = keepAlive;
  }

  int status() {
    return status;
  }

  /** The reason phrase as the target sent it (possibly empty). */
  String reason() {
    return new String(bytes, reasonStart, reasonEnd - reasonStart, StandardCharsets.ISO_8859_1);
  }

  /** The status code as text, for an HTTP/2 {@code :status}. */
  AsciiString codeAsText() {
    return HttpResponseStatus.valueOf(status).codeAsText();
  }

  /** Whether the response can have no body, whatever its head says (1xx, 204, 304). */
  boolean bodyless() {
    return ElbResponses.bodyless(status);
  }

  /** The body's length when its Content-Length gives one from 1 to {@code limit} and it has a body; else 0. */
  int smallBody(int limit) {
    return !bodyless() && contentLength > 0 && contentLength <= limit ? (int) contentLength : 0;
  }

  /** The body's length from Content-Length, or -1 when the head has none that counts. */
  long contentLength() {
    return contentLength;
  }

  /** Whether the body comes in the chunked coding (the head's Transfer-Encoding, which can be nothing else). */
  boolean chunked() {
    return chunked;
  }

  /**
   * Whether the connection may carry another request after this response: HTTP/1.1 without
   * {@code Connection: close}, and no body that ends with the connection.
   */
  boolean keepAlive() {
    return http11 && !close && (toHead || bodyless() || chunked || contentLength >= 0);
  }

  /** The Keep-Alive header's value, or null. */
  String keepAliveHeader() {
    return keepAlive;
  }

  /** An upper bound of what {@link #writeTo} writes. */
  int size() {
    return length + CHUNKED_LINE.length + HTTP_1_1.length;
  }

  /**
   * Writes the head for an HTTP/1.1 client: the status line as HTTP/1.1, every header the target
   * sent but the hop-by-hop ones, {@code Transfer-Encoding: chunked} when {@code chunked}, the empty line.
   */
  void writeTo(ByteBuf out, boolean chunkedBody) {
    writeTo(out, chunkedBody, false);
  }

  /** @param close the response ends the client connection ({@code Connection: close}) */
  void writeTo(ByteBuf out, boolean chunkedBody, boolean close) {
    writeStatusLine(out);
    for (int f = 0; f < FIELD * count; f += FIELD) {
      if (fields[f + 4] == PASSED) {
        out.writeBytes(bytes, fields[f], fields[f + 3] - fields[f]);
        out.writeShort(CRLF);
      }
    }
    if (chunkedBody) {
      out.writeBytes(CHUNKED_LINE);
    }
    if (close) {
      out.writeBytes(CONNECTION_CLOSE_LINE);
    }
    out.writeShort(CRLF);
  }

  /** Writes the status line as HTTP/1.1, with the target's code and reason phrase. */
  void writeStatusLine(ByteBuf out) {
    out.writeBytes(HTTP_1_1);
    out.writeBytes(bytes, codeAt, 3);
    out.writeByte(' ');
    out.writeBytes(bytes, reasonStart, reasonEnd - reasonStart);
    out.writeShort(CRLF);
  }

  /**
   * Adds the headers but the hop-by-hop ones to an HTTP/2 header block, names in lower case,
   * copied: the encoder may keep them in its dynamic table, and the next head is read over these bytes.
   */
  void addTo(Http2Headers h2) {
    for (int f = 0; f < FIELD * count; f += FIELD) {
      if (fields[f + 4] == PASSED) {
        h2.add(H2Names.lowerCase(new AsciiString(bytes, fields[f], fields[f + 1] - fields[f], true)),
            new AsciiString(bytes, fields[f + 2], fields[f + 3] - fields[f + 2], true));
      }
    }
  }

  /** An upper bound of what {@link #writeBlock} writes. */
  int blockSize() {
    return HpackLiterals.STATUS_SIZE + length + HpackLiterals.FIELD_OVERHEAD * count;
  }

  /**
   * Writes the head as an HTTP/2 header block ({@link HpackLiterals}) into {@code out} from
   * {@code from}: {@code :status}, then the headers but the hop-by-hop ones, names in lower case.
   * {@code out} must hold {@link #blockSize} bytes from there; returns where the block ends.
   */
  int writeBlock(byte[] out, int from) {
    int at = HpackLiterals.status(out, from, status);
    for (int f = 0; f < FIELD * count; f += FIELD) {
      if (fields[f + 4] == PASSED) {
        at = HpackLiterals.field(out, at, bytes, fields[f], fields[f + 1] - fields[f], fields[f + 2],
            fields[f + 3] - fields[f + 2]);
      }
    }
    return at;
  }

  /**
   * Whether the header list is over {@code limit}; counted only when it could be (it is at most the
   * head's bytes and 32 per field, {@code :status} included), so an unbounded limit costs nothing.
   */
  boolean headerListOver(long limit) {
    return limit < length + 32L * (count + 1) && headerListSize() > limit;
  }

  /** The size of the header list as SETTINGS_MAX_HEADER_LIST_SIZE counts it (RFC 9113 §6.5.2), {@code :status} included. */
  long headerListSize() {
    long size = ":status".length() + 3 + 32;
    for (int f = 0; f < FIELD * count; f += FIELD) {
      if (fields[f + 4] == PASSED) {
        size += fields[f + 1] - fields[f] + fields[f + 3] - fields[f + 2] + 32;
      }
    }
    return size;
  }

  /** The Upgrade header's value (what a {@code 101} switches to), or null without one. */
  String upgrade() {
    for (int f = 0; f < FIELD * count; f += FIELD) {
      if (fields[f + 1] - fields[f] == 7 && is(bytes, fields[f], 7, "upgrade")) {
        return new String(bytes, fields[f + 2], fields[f + 3] - fields[f + 2], StandardCharsets.ISO_8859_1);
      }
    }
    return null;
  }

  /** The headers but the hop-by-hop ones, in a new map, in the order they came. */
  MultiMap headers() {
    HeadersMultiMap headers = HeadersMultiMap.httpHeaders();
    for (int f = 0; f < FIELD * count; f += FIELD) {
      if (fields[f + 4] == PASSED) {
        headers.add(new AsciiString(bytes, fields[f], fields[f + 1] - fields[f], true),
            new String(bytes, fields[f + 2], fields[f + 3] - fields[f + 2], StandardCharsets.ISO_8859_1));
      }
    }
    return headers;
  }

  // ---- parsing helpers, over the head's bytes ----

  private static boolean startsWithVersion(byte[] b) {
    return b[0] == 'H' && b[1] == 'T' && b[2] == 'T' && b[3] == 'P' && b[4] == '/' && b[5] == '1' && b[6] == '.'
        && (b[7] == '1' || b[7] == '0');
  }

  /** Where a line's content ends: before its LF, and before a CR just before that. */
  private static int contentEnd(byte[] bytes, int start, int lf) {
    return lf > start && bytes[lf - 1] == '\r' ? lf - 1 : lf;
  }

  private static int skipSpaces(byte[] bytes, int from, int end) {
    while (from < end && isSpace(bytes[from])) {
      from++;
    }
    return from;
  }

  private static int indexOf(byte[] bytes, int from, int end, byte b) {
    for (int i = from; i < end; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return end;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t';
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  /** Field and reason text: no control characters but tab (a CR alone or a NUL cannot pass on). */
  /**
   * Where the colon of a field line ({@code name: value}, headers and trailers alike) is; the name
   * before it must be a token, with no space before the colon.
   */
  static int colonAfterName(byte[] bytes, int start, int end) {
    int colon = start;
    while (colon < end && bytes[colon] != ':') {
      if (!isTokenChar(bytes[colon])) {
        throw new MalformedException("a header name with a character a token cannot have");
      }
      colon++;
    }
    if (colon == end || colon == start) {
      throw new MalformedException("a header line without a name and a colon");
    }
    return colon;
  }

  static void checkText(byte[] bytes, int from, int end) {
    int i = from;
    // Eight bytes at a time: a byte below 0x20 or equal to 0x7F anywhere in the word sends the word
    // to the byte-wise check (a tab is one, and passes there); bytes from 0x80 (obs-text) pass.
    for (; i + 8 <= end; i += 8) {
      long v = (long) LONGS.get(bytes, i);
      long del = v ^ 0x7F7F7F7F7F7F7F7FL;
      long flagged = ((v - 0x2020202020202020L) & ~v) | ((del - 0x0101010101010101L) & ~del);
      if ((flagged & 0x8080808080808080L) != 0) {
        checkBytes(bytes, i, i + 8);
      }
    }
    checkBytes(bytes, i, end);
  }

  private static void checkBytes(byte[] bytes, int from, int end) {
    for (int i = from; i < end; i++) {
      int b = bytes[i] & 0xFF;
      if ((b < 0x20 && b != '\t') || b == 0x7F) {
        throw new MalformedException("a control character in a header");
      }
    }
  }

  private static final boolean[] TOKEN = new boolean[128];

  static {
    for (char c = '0'; c <= '9'; c++) {
      TOKEN[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      TOKEN[c] = true;
      TOKEN[c - 32] = true;
    }
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
      TOKEN[c] = true;
    }
  }

  private static boolean isTokenChar(byte b) {
    return b >= 0 && TOKEN[b];
  }

  /** Whether {@code bytes[from, from + length)} is {@code lower} (lower case letters and '-'), in any case. */
  private static boolean is(byte[] bytes, int from, int length, String lower) {
    if (length != lower.length()) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      int b = bytes[from + i];
      char c = lower.charAt(i);
      if (b != c && (c < 'a' || c > 'z' || b != c - 32)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The codings of a Transfer-Encoding value, each of which must be {@code chunked}. Fulcrum
   * passes a body on in its own framing (the chunked coding, or HTTP/2's DATA frames), so a coding
   * applied before the chunked one ({@code gzip, chunked}), or in place of it ({@code identity},
   * whose body would end at the close), cannot go on: the client would take gzip bytes for the
   * body. NGINX answers 502 to any Transfer-Encoding but {@code chunked} too.
   */
  private static int chunkedCodings(byte[] bytes, int from, int end) {
    int codings = 0;
    int start = from;
    for (int i = from; i <= end; i++) {
      if (i < end && bytes[i] != ',') {
        continue;
      }
      int s = skipSpaces(bytes, start, i);
      int e = i;
      while (e > s && isSpace(bytes[e - 1])) {
        e--;
      }
      if (e > s) { // an empty list element is none (RFC 9110 §5.6.1)
        if (!is(bytes, s, e - s, "chunked")) {
          throw new MalformedException("a Transfer-Encoding other than chunked: "
              + new String(bytes, s, Math.min(e - s, 40), StandardCharsets.ISO_8859_1));
        }
        codings++;
      }
      start = i + 1;
    }
    return codings;
  }

  /** A Content-Length value ("5", or "5, 5" as a list of the same length); every field must agree. */
  private static long contentLength(byte[] bytes, int from, int end, long seen) {
    long length = seen;
    int i = from;
    while (i <= end) {
      int next = indexOf(bytes, i, end, (byte) ',');
      int s = skipSpaces(bytes, i, next);
      int e = next;
      while (e > s && isSpace(bytes[e - 1])) {
        e--;
      }
      if (e == s || e - s > 18) {
        throw new MalformedException("an invalid Content-Length");
      }
      long n = 0;
      for (int k = s; k < e; k++) {
        if (!isDigit(bytes[k])) {
          throw new MalformedException("an invalid Content-Length");
        }
        n = n * 10 + (bytes[k] - '0');
      }
      if (length >= 0 && length != n) {
        throw new MalformedException("Content-Length values that differ");
      }
      length = n;
      i = next + 1;
    }
    return length;
  }

  private static void dropAll(byte[] bytes, int[] fields, int count, String lower) {
    for (int f = 0; f < FIELD * count; f += FIELD) {
      if (is(bytes, fields[f], fields[f + 1] - fields[f], lower)) {
        fields[f + 4] = DROPPED;
      }
    }
  }

  /** Drops the headers named {@code bytes[name, name + length)}, in any case. */
  private static void dropNamed(byte[] bytes, int[] fields, int count, int name, int length) {
    for (int f = 0; f < FIELD * count; f += FIELD) {
      if (fields[f + 1] - fields[f] == length && equalsIgnoreCase(bytes, fields[f], name, length)) {
        fields[f + 4] = DROPPED;
      }
    }
  }

  private static int lower(byte b) {
    return b >= 'A' && b <= 'Z' ? b + 32 : b;
  }

  private static boolean equalsIgnoreCase(byte[] bytes, int a, int b, int length) {
    for (int i = 0; i < length; i++) {
      byte x = bytes[a + i];
      byte y = bytes[b + i];
      if (x != y && lower(x) != lower(y)) {
        return false;
      }
    }
    return true;
  }
}
