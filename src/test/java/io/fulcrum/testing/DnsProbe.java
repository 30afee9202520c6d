package io.fulcrum.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.AddressedEnvelope;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRawRecord;
import io.netty.handler.codec.dns.DnsRecord;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponse;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.resolver.dns.DnsNameResolver;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.SingletonDnsServerAddressStreamProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.naming.Context;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.naming.directory.Attribute;
import javax.naming.directory.DirContext;
import javax.naming.directory.InitialDirContext;

/**
 * DNS clients for tests, none written here: Netty's {@link DnsNameResolver} (a full client that
 * shows rcode, flags, TTLs and sections), the JDK's JNDI DNS provider, and a raw
 * {@link DatagramSocket} for packets no client would send. Used from the test thread.
 */
public final class DnsProbe implements AutoCloseable {

  private final InetSocketAddress server;
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final DnsNameResolver resolver;

  public DnsProbe(String host, int port) {
    this(host, port, false);
  }

  /**
   * @param classicThenTcp queries without EDNS (so that answers over UDP are cut at 512 bytes), and
   *                       a truncated answer asked again over TCP, as stub resolvers do
   */
  public DnsProbe(String host, int port, boolean classicThenTcp) {
    this.server = new InetSocketAddress(literal(host), port);
    DnsNameResolverBuilder builder = new DnsNameResolverBuilder(group.next())
        .datagramChannelType(NioDatagramChannel.class)
        .nameServerProvider(new SingletonDnsServerAddressStreamProvider(server))
        .queryTimeoutMillis(5000)
        .maxQueriesPerResolve(1);
    if (classicThenTcp) {
      builder.optResourceEnabled(false).socketChannelType(NioSocketChannel.class);
    }
    this.resolver = builder.build();
  }

  /** A record of an answer, as the client decoded it. */
  public record Rr(String name, DnsRecordType type, long ttl, String address) {
  }

  /**
   * A decoded response.
   *
   * @param question the question as the response echoed it ({@code name} and type)
   */
  public record Answer(DnsResponseCode code, boolean authoritative, boolean truncated, Rr question, List<Rr> answers,
      List<Rr> authority) {
    public List<String> addresses() {
      return answers.stream().map(Rr::address).toList();
    }
  }

  /** Asks the server one question (EDNS on, as Netty sends it by default). */
  public Answer query(String name, DnsRecordType type) {
    try {
      AddressedEnvelope<DnsResponse, InetSocketAddress> envelope =
          resolver.query(server, new DefaultDnsQuestion(name, type)).get(10, TimeUnit.SECONDS);
      try {
        DnsResponse r = envelope.content();
        DnsRecord q = r.recordAt(DnsSection.QUESTION);
        return new Answer(r.code(), r.isAuthoritativeAnswer(), r.isTruncated(),
            new Rr(strip(q.name()), q.type(), 0, null), records(r, DnsSection.ANSWER), records(r, DnsSection.AUTHORITY));
      } finally {
        envelope.release();
      }
    } catch (Exception e) {
      throw new IllegalStateException("DNS query " + name + " " + type + " to " + server + " failed", e);
    }
  }

  private static List<Rr> records(DnsResponse r, DnsSection section) {
    List<Rr> out = new ArrayList<>();
    for (int i = 0; i < r.count(section); i++) {
      DnsRecord rec = r.recordAt(section, i);
      String address = null;
      if (rec instanceof DnsRawRecord raw && (rec.type() == DnsRecordType.A || rec.type() == DnsRecordType.AAAA)) {
        ByteBuf content = raw.content();
        try {
          address = InetAddress.getByAddress(ByteBufUtil.getBytes(content)).getHostAddress();
        } catch (UnknownHostException e) {
          throw new IllegalStateException(e);
        }
      }
      out.add(new Rr(strip(rec.name()), rec.type(), rec.timeToLive(), address));
    }
    return out;
  }

  private static String strip(String name) {
    return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
  }

  /**
   * The JDK's DNS client (JNDI, {@code dns://host:port}): the values of {@code type} records of
   * {@code name}. Throws {@link javax.naming.NameNotFoundException} for NXDOMAIN.
   */
  public static List<String> jdk(String host, int port, String name, String type) throws NamingException {
    Hashtable<String, String> env = new Hashtable<>();
    env.put(Context.INITIAL_CONTEXT_FACTORY, "com.sun.jndi.dns.DnsContextFactory");
    env.put(Context.PROVIDER_URL, "dns://" + host + ":" + port);
    env.put("com.sun.jndi.dns.timeout.initial", "2000");
    env.put("com.sun.jndi.dns.timeout.retries", "2");
    DirContext ctx = new InitialDirContext(env);
    try {
      Attribute attr = ctx.getAttributes(name, new String[] {type}).get(type);
      List<String> values = new ArrayList<>();
      if (attr != null) {
        NamingEnumeration<?> all = attr.getAll();
        while (all.hasMore()) {
          values.add(String.valueOf(all.next()));
        }
      }
      return values;
    } finally {
      ctx.close();
    }
  }

  /**
   * Sends each datagram in turn from one socket and returns the first datagram that comes back
   * (within 10 s). Sending a valid query after packets that must get no answer shows that they
   * got none: on loopback the server answers in order.
   */
  public static byte[] raw(String host, int port, byte[]... datagrams) {
    try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(literal(host), 0))) {
      socket.setSoTimeout(10_000);
      InetSocketAddress to = new InetSocketAddress(literal(host), port);
      for (byte[] d : datagrams) {
        socket.send(new DatagramPacket(d, d.length, to));
      }
      byte[] buf = new byte[4096];
      DatagramPacket in = new DatagramPacket(buf, buf.length);
      socket.receive(in);
      return Arrays.copyOf(buf, in.getLength());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A query as bytes: header with {@code id}, {@code flags} and the given counts, then
   * {@code body} (questions and records, already encoded).
   */
  public static byte[] packet(int id, int flags, int qd, int an, int ns, int ar, byte[] body) {
    return ByteBuffer.allocate(12 + body.length).putShort((short) id).putShort((short) flags).putShort((short) qd)
        .putShort((short) an).putShort((short) ns).putShort((short) ar).put(body).array();
  }

  /** A question: {@code name} in labels, then type and class IN. */
  public static byte[] question(String name, int type) {
    ByteBuffer b = ByteBuffer.allocate(name.length() + 6);
    for (String label : name.split("\\.")) {
      byte[] bytes = label.getBytes(StandardCharsets.US_ASCII);
      b.put((byte) bytes.length).put(bytes);
    }
    b.put((byte) 0).putShort((short) type).putShort((short) 1);
    return Arrays.copyOf(b.array(), b.position());
  }

  /** A standard query (RD set, no EDNS) for {@code name}. */
  public static byte[] query(int id, String name, int type) {
    return packet(id, 0x0100, 1, 0, 0, 0, question(name, type));
  }

  /** The response code of a raw answer (the header's low 4 bits). */
  public static int rcode(byte[] answer) {
    return answer[3] & 0x0F;
  }

  /** The ID of a raw answer. */
  public static int id(byte[] answer) {
    return ((answer[0] & 0xFF) << 8) | (answer[1] & 0xFF);
  }

  /** One of the header's 16-bit counts: 0 QD, 1 AN, 2 NS, 3 AR. */
  public static int count(byte[] answer, int which) {
    int at = 4 + 2 * which;
    return ((answer[at] & 0xFF) << 8) | (answer[at + 1] & 0xFF);
  }

  private static InetAddress literal(String host) {
    try {
      // An IP literal: no lookup happens.
      return InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(host, e);
    }
  }

  @Override
  public void close() {
    resolver.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
