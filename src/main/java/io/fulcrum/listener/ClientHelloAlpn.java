package io.fulcrum.listener;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslClientHelloHandler;
import io.netty.util.concurrent.Future;

/**
 * The protocols a TLS client offers by ALPN, read from its ClientHello for the access log of a
 * network load balancer's TLS listener with an ALPN policy ({@code alpn_client_preference_list}):
 * each protocol in double quotes, URL-encoded, separated by commas, at most
 * {@value #MAX_LENGTH} characters. Goes ahead of the TLS handler and leaves the pipeline once the
 * hello is read; the hello goes on to the TLS handler untouched (a malformed one fails there, as
 * without this handler).
 */
final class ClientHelloAlpn extends SslClientHelloHandler<String> {

  /** NLB truncates the list at 256 bytes. */
  static final int MAX_LENGTH = 256;
  private static final int ALPN_EXTENSION = 16;
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private final TlsFlow flow;

  ClientHelloAlpn(TlsFlow flow) {
    this.flow = flow;
  }

  @Override
  protected Future<String> lookup(ChannelHandlerContext ctx, ByteBuf clientHello) {
    return ctx.executor().newSucceededFuture(clientHello == null ? null : preferenceList(clientHello));
  }

  @Override
  protected void onLookupComplete(ChannelHandlerContext ctx, Future<String> future) {
    flow.clientAlpn = future.getNow();
    ctx.pipeline().remove(this);
  }

  /**
   * The ALPN extension's protocols in NLB's form, or null when the hello has none (or is cut short).
   * {@code hello} is the ClientHello's body, from its version on (RFC 8446 §4.1.2), as Netty gives it.
   */
  static String preferenceList(ByteBuf hello) {
    int at = hello.readerIndex() + 2 + 32; // legacy_version, random
    int end = hello.writerIndex();
    if (end - at < 1) {
      return null;
    }
    at += 1 + hello.getUnsignedByte(at); // session id
    if (end - at < 2) {
      return null;
    }
    at += 2 + hello.getUnsignedShort(at); // cipher suites
    if (end - at < 1) {
      return null;
    }
    at += 1 + hello.getUnsignedByte(at); // compression methods
    if (end - at < 2) {
      return null;
    }
    int extensionsEnd = Math.min(end, at + 2 + hello.getUnsignedShort(at));
    at += 2;
    while (extensionsEnd - at >= 4) {
      int type = hello.getUnsignedShort(at);
      int length = hello.getUnsignedShort(at + 2);
      at += 4;
      if (extensionsEnd - at < length) {
        return null;
      }
      if (type == ALPN_EXTENSION) {
        return protocols(hello, at, length);
      }
      at += length;
    }
    return null;
  }

  /** The protocol_name_list at {@code at} (RFC 7301 §3.1): its length, then each name's length and bytes. */
  private static String protocols(ByteBuf hello, int at, int length) {
    if (length < 2) {
      return null;
    }
    int end = at + 2 + Math.min(length - 2, hello.getUnsignedShort(at));
    at += 2;
    StringBuilder out = new StringBuilder();
    while (at < end && out.length() < MAX_LENGTH) {
      int n = hello.getUnsignedByte(at++);
      int nameEnd = Math.min(end, at + n);
      out.append(out.length() == 0 ? "\"" : ",\"");
      for (; at < nameEnd; at++) {
        int b = hello.getUnsignedByte(at);
        if (b < 0x80 && Character.isLetterOrDigit(b) || b == '-' || b == '.' || b == '_' || b == '~' || b == '/') {
          out.append((char) b);
        } else {
          out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xF]);
        }
      }
      out.append('"');
    }
    if (out.length() == 0) {
      return null;
    }
    return out.length() > MAX_LENGTH ? out.substring(0, MAX_LENGTH) : out.toString();
  }
}
