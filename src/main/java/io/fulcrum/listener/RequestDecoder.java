package io.fulcrum.listener;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.Http1xServerConnection;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * Vert.x's HTTP/1.x request decoder, put in its place (under its name, by which Vert.x removes it
 * on an upgrade) in each HTTP/1.x client connection, before its first request or right after it
 * (see {@link #install}), with one change: the names of the request headers clients commonly send are
 * the shared constants of a table rather than a new string and array per header per request.
 * Vert.x's decoder does this for five names (Host, Accept, Connection, Content-Type,
 * Content-Length); a browser's request carries ten or more, whose names were then about 66 bytes
 * of garbage each.
 *
 * <p>A name is taken from the table only when its bytes are the same, case included (the names
 * reach the target as the client wrote them): each name is there in its usual spelling
 * ({@code User-Agent}) and in lower case ({@code user-agent}); any other spelling is decoded as
 * before.
 *
 * <p>Two more checks of the request line ({@link #refusal}), whose failures decode as a malformed
 * line does: the listener answers, the connection is closed, and nothing read after it is decoded.
 * A version well formed but neither {@code HTTP/1.1} nor {@code HTTP/1.0} ({@code HTTP/2.0}, as in
 * the HTTP/2 preface sent to an HTTP/1.x port, or {@code HTTP/1.2}) is answered 505 (SPEC §11.3):
 * Vert.x's decoder passes such a request on, and Vert.x then answers a bare 501 in the request's
 * own version ({@code HTTP/2.0 501}) before the listener sees it. A request target in none of the
 * forms a load balancer serves ({@code admin/x}, {@code ../etc}, CONNECT's {@code host:443}) is
 * answered 400: Vert.x passes it on, and it would reach a target as a path the rules never saw.
 * And one more of the header lines: a line with nothing before its colon ({@code : chunked}) fails
 * to decode as a name that is no token does (400), where Netty's parser passes a request head on
 * with a field of an empty name, a line each target would read its own way.
 * Nothing else of the decoding changes: the same parser, limits and checks.
 */
final class RequestDecoder extends VertxHttpRequestDecoder {

  /** Vert.x's name for the decoder in the pipeline. */
  static final String NAME = "httpDecoder";
  /** Vert.x's name for the handler that looks for an h2c upgrade in the first request. */
  private static final String H2C_UPGRADE = "h2c";
  /** Vert.x's name for its connection's handler in an HTTP/1.x pipeline, the last one. */
  static final String CONNECTION_HANDLER = "handler";

  RequestDecoder(HttpServerOptions options) {
    super(options);
  }

  /**
   * Puts a decoder in place of Vert.x's in a new HTTP/1.x connection. Where no request has been
   * read yet, at once. On a listener that takes h2c too, Vert.x makes the connection only once the
   * first request's head is decoded (its h2c upgrade handler still in the pipeline then, to pass
   * that request on): Vert.x's decoder may be in the middle of that request's body, so it stays
   * until the request has ended ({@link AfterTheFirstRequest}).
   */
  static void install(HttpConnection conn, HttpServerOptions options) {
    if (conn instanceof Http1xServerConnection http1) {
      install(http1.channelHandlerContext().pipeline(), options);
    }
  }

  static void install(ChannelPipeline pipeline, HttpServerOptions options) {
    if (vertxDecoderIn(pipeline)) {
      if (pipeline.get(H2C_UPGRADE) == null) {
        replaceIn(pipeline, options);
      } else if (pipeline.get(CONNECTION_HANDLER) != null) {
        pipeline.addBefore(CONNECTION_HANDLER, AfterTheFirstRequest.NAME, new AfterTheFirstRequest(options));
      }
    }
  }

  private static boolean vertxDecoderIn(ChannelPipeline pipeline) {
    return pipeline.get(NAME) instanceof VertxHttpRequestDecoder decoder && !(decoder instanceof RequestDecoder);
  }

  /** Puts a decoder in the place of Vert.x's, under its name; Netty hands it what that one holds undecoded. */
  private static void replaceIn(ChannelPipeline pipeline, HttpServerOptions options) {
    pipeline.replace(NAME, NAME, new RequestDecoder(options));
  }

  /**
   * Whether a request in {@code version} is served: HTTP/1.1 and HTTP/1.0, which Netty's parser
   * gives as its constants (and Vert.x takes only those).
   */
  static boolean supported(HttpVersion version) {
    return version == HttpVersion.HTTP_1_1 || version == HttpVersion.HTTP_1_0;
  }

  /**
   * Why a request line that Netty's parser read is refused, or null when it is served: a version
   * other than HTTP/1.1 and HTTP/1.0 ({@link UnsupportedVersion}, 505), or a request target in none
   * of the forms a load balancer serves ({@link NodeRequest#servedTarget}, 400).
   */
  static IllegalArgumentException refusal(HttpRequest head) {
    if (!supported(head.protocolVersion())) {
      return new UnsupportedVersion(head.protocolVersion());
    }
    if (!NodeRequest.servedTarget(head.method().name(), head.uri(), false)) {
      // The target itself stays out of the message, which RequestHandler#invalidStatus reads.
      return new IllegalArgumentException("request target in no form served");
    }
    return null;
  }

  @Override
  protected HttpMessage createMessage(String[] initialLine) {
    HttpMessage message = super.createMessage(initialLine);
    IllegalArgumentException refused = refusal((HttpRequest) message);
    if (refused != null) {
      throw refused;
    }
    return message;
  }

  /** Whether {@code headers} hold a field with an empty name: a line {@code : value} or {@code :x: y}. */
  static boolean namelessField(HttpHeaders headers) {
    Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence();
    while (it.hasNext()) {
      if (it.next().getKey().length() == 0) {
        return true;
      }
    }
    return false;
  }

  private static IllegalArgumentException nameless() {
    return new IllegalArgumentException("a header line without a name");
  }

  /** The failure of a request whose HTTP version is well formed but not one served (505). */
  static final class UnsupportedVersion extends IllegalArgumentException {

    UnsupportedVersion(HttpVersion version) {
      super("unsupported HTTP version: " + version.text());
    }
  }

  /**
   * Right behind Vert.x's decoder while it decodes a connection's first request: once that request
   * has ended, well formed, puts a {@link RequestDecoder} in the decoder's place and goes. Netty's
   * {@code replace} hands the new decoder what the old one had read and not decoded yet (requests
   * pipelined behind the first), so nothing is lost or decoded twice. A request that failed to
   * decode leaves Vert.x's decoder where it is: it discards what follows, and the connection closes.
   *
   * <p>It sits right in front of Vert.x's connection handler, so that it sees the first request's
   * head, which Vert.x's h2c upgrade handler passes on only after the connection is made. A head
   * whose request line is refused ({@link #refusal}) is passed on as the decoder passes on one that
   * failed to decode (an invalid {@code GET /bad-request} in HTTP/1.0 carrying the failure), the
   * first request's own decoder stays, and the listener answers and refuses whatever follows on the
   * connection. A head with a nameless field ({@link #namelessField}), which Vert.x's decoder passes
   * on, is passed on failed in its own version, as the decoder passes on a head it cannot read.
   * (Netty's decoder refuses such a line among trailers itself.)
   */
  static final class AfterTheFirstRequest extends ChannelInboundHandlerAdapter {

    static final String NAME = "fulcrumDecoderSwap";
    private final HttpServerOptions options;

    AfterTheFirstRequest(HttpServerOptions options) {
      this.options = options;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof HttpRequest head && head.decoderResult().isSuccess()) {
        IllegalArgumentException refused = refusal(head);
        if (refused != null) {
          HttpRequest invalid = new DefaultFullHttpRequest(HttpVersion.HTTP_1_0, HttpMethod.GET, "/bad-request",
              Unpooled.EMPTY_BUFFER);
          invalid.setDecoderResult(DecoderResult.failure(refused));
          ReferenceCountUtil.release(msg);
          msg = invalid;
        } else if (namelessField(head.headers())) {
          head.setDecoderResult(DecoderResult.failure(nameless())); // as the decoder fails a head: its version kept
        }
      }
      boolean ended = msg instanceof LastHttpContent last && last.decoderResult().isSuccess();
      boolean failed = msg instanceof DecoderResultProvider p && !p.decoderResult().isSuccess();
      ctx.fireChannelRead(msg);
      if ((ended || failed) && !ctx.isRemoved()) {
        ChannelPipeline pipeline = ctx.pipeline();
        pipeline.remove(this);
        if (ended && vertxDecoderIn(pipeline)) {
          replaceIn(pipeline, options);
        }
      }
    }
  }

  @Override
  protected AsciiString splitHeaderName(byte[] sb, int start, int length) {
    if (length == 0) {
      throw nameless(); // the decoder's catch makes it the message's failure, as a name no token is
    }
    AsciiString known = KnownNames.find(sb, start, length);
    return known != null ? known : super.splitHeaderName(sb, start, length);
  }

  /** The table: an open-addressing hash set of names, by their exact bytes. */
  static final class KnownNames {

    private static final AsciiString[] TABLE = table(
        "Accept", "Accept-Charset", "Accept-Encoding", "Accept-Language", "Access-Control-Request-Headers",
        "Access-Control-Request-Method", "Authorization", "Cache-Control", "Connection", "Content-Encoding",
        "Content-Length", "Content-Type", "Cookie", "DNT", "Expect", "Forwarded", "Host", "If-Match",
        "If-Modified-Since", "If-None-Match", "If-Range", "If-Unmodified-Since", "Keep-Alive", "Origin",
        "Pragma", "Priority", "Proxy-Connection", "Range", "Referer", "Sec-CH-UA", "Sec-CH-UA-Mobile",
        "Sec-CH-UA-Platform", "Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-User",
        "Sec-WebSocket-Extensions", "Sec-WebSocket-Key", "Sec-WebSocket-Protocol", "Sec-WebSocket-Version",
        "TE", "Trailer", "Transfer-Encoding", "Upgrade", "Upgrade-Insecure-Requests", "User-Agent", "Via",
        "X-Amzn-Trace-Id", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Port", "X-Forwarded-Proto",
        "X-Real-IP", "X-Request-ID", "X-Requested-With");

    private KnownNames() {
    }

    /** The table's name whose bytes are {@code sb[start, start + length)}, case included, or null. */
    static AsciiString find(byte[] sb, int start, int length) {
      int mask = TABLE.length - 1;
      for (int slot = hash(sb, start, length) & mask; ; slot = (slot + 1) & mask) {
        AsciiString name = TABLE[slot];
        if (name == null) {
          return null;
        }
        if (name.length() == length
            && Arrays.equals(name.array(), name.arrayOffset(), name.arrayOffset() + length, sb, start, start + length)) {
          return name;
        }
      }
    }

    private static int hash(byte[] b, int start, int length) {
      int h = length;
      for (int i = start; i < start + length; i++) {
        h = 31 * h + b[i];
      }
      return h ^ (h >>> 16);
    }

    /** Each name as given and in lower case, the table at most a quarter full. */
    private static AsciiString[] table(String... names) {
      AsciiString[] table = new AsciiString[Integer.highestOneBit(names.length * 2 * 4 - 1) << 1];
      for (String name : names) {
        add(table, AsciiString.cached(name));
        add(table, AsciiString.cached(name.toLowerCase(Locale.ROOT)));
      }
      return table;
    }

    private static void add(AsciiString[] table, AsciiString name) {
      byte[] bytes = name.toByteArray();
      int mask = table.length - 1;
      int slot = hash(bytes, 0, bytes.length) & mask;
      while (table[slot] != null) {
        if (table[slot].contentEquals(name)) {
          return; // a name whose usual spelling is its lower case
        }
        slot = (slot + 1) & mask;
      }
      table[slot] = name;
    }
  }
}
