package io.fulcrum.admin;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The DNS wire format (RFC 1035, EDNS(0) of RFC 6891) as far as an authoritative responder for a
 * few names needs it, over UDP and TCP: reading one query, writing its answer. Stateless; every
 * method may be called on any thread.
 *
 * <p>Queries are checked the way Unbound checks them: a response (QR set) or a packet shorter
 * than a header is dropped; an opcode other than QUERY is answered NOTIMP; anything but exactly
 * one question, no answer or authority records and at most one additional record (the OPT of
 * EDNS), or a question that does not parse, is answered FORMERR. A compression pointer in the
 * question is malformed (there is nothing before it to point to).
 */
final class DnsWire {

  static final int TYPE_A = 1;
  static final int TYPE_SOA = 6;
  static final int TYPE_AAAA = 28;
  static final int TYPE_OPT = 41;
  static final int TYPE_ANY = 255;
  static final int CLASS_IN = 1;
  static final int CLASS_ANY = 255;

  static final int NOERROR = 0;
  static final int FORMERR = 1;
  static final int NXDOMAIN = 3;
  static final int NOTIMP = 4;
  static final int REFUSED = 5;
  /** Extended RCODE (12 bits, the upper 8 in the OPT record): unsupported EDNS version. */
  static final int BADVERS = 16;

  static final int HEADER_LENGTH = 12;
  /** The largest answer without EDNS (RFC 1035 §4.2.1). */
  static final int CLASSIC_UDP_PAYLOAD = 512;
  /** The EDNS payload size this responder offers and never exceeds (DNS Flag Day 2020). */
  static final int MAX_UDP_PAYLOAD = 1232;
  /** The largest message over TCP (RFC 1035 §4.2.2: a two-byte length before each). */
  static final int MAX_TCP_MESSAGE = 65535;
  private static final int MAX_NAME_LENGTH = 255;
  private static final int QR = 0x8000;
  private static final int AA = 0x0400;
  private static final int TC = 0x0200;
  private static final int RD = 0x0100;
  /** An answer's owner name: a pointer to the question's name, which always starts at offset 12. */
  private static final int POINTER_TO_QUESTION = 0xC000 | HEADER_LENGTH;

  private DnsWire() {
  }

  /** What a datagram asks for. */
  sealed interface Request permits Query, Rejected, Dropped {
  }

  /**
   * A well-formed query.
   *
   * @param id          the query's ID, echoed
   * @param flags       the header's second 16 bits (RD is echoed)
   * @param name        the question's name: ASCII letters lower-cased, no trailing dot, a dot or
   *                    backslash inside a label escaped with a backslash
   * @param type        QTYPE
   * @param qclass      QCLASS
   * @param question    the question's bytes exactly as sent, echoed in the answer
   * @param edns        the query's OPT record, or null without EDNS
   */
  record Query(int id, int flags, String name, int type, int qclass, Buffer question, Edns edns) implements Request {
  }

  /**
   * EDNS(0) from a query's OPT record.
   *
   * @param udpPayload the requester's UDP payload size
   * @param version    the EDNS version (only 0 exists)
   * @param dnssecOk   the DO bit, copied into the answer (RFC 3225)
   */
  record Edns(int udpPayload, int version, boolean dnssecOk) {
  }

  /** A query answered with an error code only (FORMERR, NOTIMP), its ID and opcode echoed. */
  record Rejected(int id, int flags, int rcode, String why) implements Request {
  }

  /** A datagram not to be answered at all. */
  record Dropped(String why) implements Request {
  }

  /** A resource record of an answer; its owner is the question's name unless {@code owner} is set. */
  record Rr(String owner, int type, long ttl, byte[] rdata) {
    static Rr forQuestion(int type, long ttl, byte[] rdata) {
      return new Rr(null, type, ttl, rdata);
    }
  }

  /** Reads one datagram. Never throws. */
  static Request read(Buffer packet) {
    if (packet.length() < HEADER_LENGTH) {
      return new Dropped("shorter than a DNS header (" + packet.length() + " bytes)");
    }
    int id = packet.getUnsignedShort(0);
    int flags = packet.getUnsignedShort(2);
    if ((flags & QR) != 0) {
      return new Dropped("a response, not a query");
    }
    int opcode = (flags >> 11) & 0xF;
    if (opcode != 0) {
      return new Rejected(id, flags, NOTIMP, "opcode " + opcode + " is not QUERY");
    }
    int qd = packet.getUnsignedShort(4);
    int an = packet.getUnsignedShort(6);
    int ns = packet.getUnsignedShort(8);
    int ar = packet.getUnsignedShort(10);
    if (qd != 1 || an != 0 || ns != 0 || ar > 1) {
      return new Rejected(id, flags, FORMERR, "counts qd=" + qd + " an=" + an + " ns=" + ns + " ar=" + ar);
    }
    StringBuilder name = new StringBuilder();
    int pos = HEADER_LENGTH;
    int nameLength = 1;
    while (true) {
      if (pos >= packet.length()) {
        return new Rejected(id, flags, FORMERR, "the question's name runs past the end");
      }
      int len = packet.getUnsignedByte(pos++);
      if (len == 0) {
        break;
      }
      if ((len & 0xC0) != 0) {
        return new Rejected(id, flags, FORMERR, "a compression pointer or extended label in the question");
      }
      nameLength += len + 1;
      if (nameLength > MAX_NAME_LENGTH || pos + len > packet.length()) {
        return new Rejected(id, flags, FORMERR, "the question's name is too long or runs past the end");
      }
      if (!name.isEmpty()) {
        name.append('.');
      }
      appendLabel(name, packet, pos, len);
      pos += len;
    }
    if (pos + 4 > packet.length()) {
      return new Rejected(id, flags, FORMERR, "the question has no type and class");
    }
    int type = packet.getUnsignedShort(pos);
    int qclass = packet.getUnsignedShort(pos + 2);
    pos += 4;
    Buffer question = packet.getBuffer(HEADER_LENGTH, pos);
    Edns edns = null;
    if (ar == 1) {
      int owner = pos;
      pos = skipName(packet, pos);
      if (pos < 0 || pos + 10 > packet.length()) {
        return new Rejected(id, flags, FORMERR, "the additional record does not parse");
      }
      int rrType = packet.getUnsignedShort(pos);
      int rrClass = packet.getUnsignedShort(pos + 2);
      long ttl = packet.getUnsignedInt(pos + 4);
      int rdLength = packet.getUnsignedShort(pos + 8);
      if (pos + 10 + rdLength > packet.length()) {
        return new Rejected(id, flags, FORMERR, "the additional record's data runs past the end");
      }
      if (rrType == TYPE_OPT) {
        if (packet.getUnsignedByte(owner) != 0) {
          return new Rejected(id, flags, FORMERR, "an OPT record not owned by the root");
        }
        edns = new Edns(Math.max(CLASSIC_UDP_PAYLOAD, rrClass), (int) (ttl >> 16) & 0xFF, (ttl & 0x8000) != 0);
      }
    }
    return new Query(id, flags, name.toString(), type, qclass, question, edns);
  }

  /** Lower-cases ASCII letters only (DNS names compare case-insensitively in ASCII, RFC 4343). */
  private static void appendLabel(StringBuilder name, Buffer packet, int from, int len) {
    for (int i = from; i < from + len; i++) {
      int c = packet.getUnsignedByte(i);
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      if (c == '.' || c == '\\') {
        name.append('\\');
      }
      name.append((char) c);
    }
  }

  /** The position after a name (labels, possibly ending in a pointer), or -1. */
  private static int skipName(Buffer packet, int pos) {
    while (pos < packet.length()) {
      int len = packet.getUnsignedByte(pos);
      if (len == 0) {
        return pos + 1;
      }
      if ((len & 0xC0) == 0xC0) {
        return pos + 2 <= packet.length() ? pos + 2 : -1;
      }
      if ((len & 0xC0) != 0) {
        return -1;
      }
      pos += 1 + len;
    }
    return -1;
  }

  /**
   * The answer to {@code q}: its ID, RD and question echoed, the records that fit in the
   * requester's UDP payload, or in a TCP message (TC set when some did not).
   *
   * @param authoritative whether to set AA
   * @param answers       answer records
   * @param authority     authority records (the SOA of a negative answer)
   * @param tcp           whether the answer goes over TCP (no UDP payload limit)
   */
  static Buffer answer(Query q, int rcode, boolean authoritative, List<Rr> answers, List<Rr> authority,
      boolean tcp) {
    int limit = tcp ? MAX_TCP_MESSAGE : q.edns() == null ? CLASSIC_UDP_PAYLOAD
        : Math.min(MAX_UDP_PAYLOAD, Math.max(CLASSIC_UDP_PAYLOAD, q.edns().udpPayload()));
    Buffer opt = q.edns() == null ? null : opt(rcode, q.edns().dnssecOk());
    int size = HEADER_LENGTH + q.question().length() + (opt == null ? 0 : opt.length());
    int an = 0;
    boolean truncated = false;
    Buffer records = Buffer.buffer();
    for (Rr rr : answers) {
      Buffer b = record(rr);
      if (size + b.length() > limit) {
        truncated = true;
        break;
      }
      records.appendBuffer(b);
      size += b.length();
      an++;
    }
    int ns = 0;
    if (!truncated) {
      for (Rr rr : authority) {
        Buffer b = record(rr);
        if (size + b.length() <= limit) {
          records.appendBuffer(b);
          size += b.length();
          ns++;
        }
      }
    }
    int flags = QR | (q.flags() & RD) | (authoritative ? AA : 0) | (truncated ? TC : 0) | (rcode & 0xF);
    Buffer out = Buffer.buffer(size);
    out.appendUnsignedShort(q.id()).appendUnsignedShort(flags)
        .appendUnsignedShort(1).appendUnsignedShort(an).appendUnsignedShort(ns)
        .appendUnsignedShort(opt == null ? 0 : 1);
    out.appendBuffer(q.question()).appendBuffer(records);
    if (opt != null) {
      out.appendBuffer(opt);
    }
    return out;
  }

  /** A header-only answer (FORMERR, NOTIMP): the ID, opcode and RD echoed, no question. */
  static Buffer reject(Rejected r) {
    int flags = QR | (r.flags() & (0x7800 | RD)) | (r.rcode() & 0xF);
    return Buffer.buffer(HEADER_LENGTH).appendUnsignedShort(r.id()).appendUnsignedShort(flags)
        .appendUnsignedShort(0).appendUnsignedShort(0).appendUnsignedShort(0).appendUnsignedShort(0);
  }

  private static Buffer record(Rr rr) {
    Buffer b = Buffer.buffer(16 + rr.rdata().length);
    if (rr.owner() == null) {
      b.appendUnsignedShort(POINTER_TO_QUESTION);
    } else {
      b.appendBuffer(name(rr.owner()));
    }
    return b.appendUnsignedShort(rr.type()).appendUnsignedShort(CLASS_IN).appendUnsignedInt(rr.ttl())
        .appendUnsignedShort(rr.rdata().length).appendBytes(rr.rdata());
  }

  /** The OPT record of an answer: our payload size, the upper bits of the RCODE, DO copied. */
  private static Buffer opt(int rcode, boolean dnssecOk) {
    long ttl = ((long) (rcode >> 4) << 24) | (dnssecOk ? 0x8000 : 0);
    return Buffer.buffer(11).appendUnsignedByte((short) 0).appendUnsignedShort(TYPE_OPT)
        .appendUnsignedShort(MAX_UDP_PAYLOAD).appendUnsignedInt(ttl).appendUnsignedShort(0);
  }

  /**
   * SOA record data (RFC 1035 §3.3.13).
   *
   * @param minimum the negative-caching TTL (RFC 2308)
   */
  static byte[] soa(String mname, String rname, long serial, int refresh, int retry, int expire, int minimum) {
    return name(mname).appendBuffer(name(rname)).appendUnsignedInt(serial & 0xFFFFFFFFL)
        .appendInt(refresh).appendInt(retry).appendInt(expire).appendInt(minimum).getBytes();
  }

  /** A name in labels; {@code name} has no escapes (it is one Fulcrum generated). */
  static Buffer name(String name) {
    Buffer b = Buffer.buffer(name.length() + 2);
    for (String label : name.split("\\.")) {
      if (!label.isEmpty()) {
        byte[] bytes = label.getBytes(StandardCharsets.US_ASCII);
        b.appendUnsignedByte((short) bytes.length).appendBytes(bytes);
      }
    }
    return b.appendUnsignedByte((short) 0);
  }
}
