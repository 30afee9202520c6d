package io.fulcrum.sticky;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The plaintext of a stickiness cookie: a format version and the entries, one per target group
 * (one cookie of each kind serves every group of that kind, so a client going through several
 * sticky groups keeps all its sessions):
 * <pre>
 * version (1 byte) | count (1 byte) | count × [ group length (1) | group (ASCII) | expiresAt (8, epoch millis)
 *                                              | target length (1) | target (UTF-8) ]
 * </pre>
 * Stateless; called on any thread.
 */
public final class StickyPayload {

  /** The only format so far; a value of another version is stale. */
  public static final byte VERSION = 1;
  /** At most this many entries per cookie (the ones expiring first are dropped). */
  public static final int MAX_ENTRIES = 128;

  private StickyPayload() {
  }

  /** The plaintext of {@code entries} (entries whose strings are over 255 bytes are left out). */
  public static byte[] encode(List<StickyEntry> entries) {
    List<StickyEntry> kept = entries;
    if (entries.size() > MAX_ENTRIES) {
      kept = new ArrayList<>(entries);
      kept.sort(Comparator.comparingLong(StickyEntry::expiresAt).reversed());
      kept = kept.subList(0, MAX_ENTRIES);
    }
    byte[][] groups = new byte[kept.size()][];
    byte[][] targets = new byte[kept.size()][];
    int size = 2;
    int count = 0;
    for (int i = 0; i < kept.size(); i++) {
      byte[] g = kept.get(i).group().getBytes(StandardCharsets.UTF_8);
      byte[] t = kept.get(i).target().getBytes(StandardCharsets.UTF_8);
      if (g.length > 255 || t.length > 255) {
        continue;
      }
      groups[i] = g;
      targets[i] = t;
      size += 1 + g.length + 8 + 1 + t.length;
      count++;
    }
    byte[] out = new byte[size];
    out[0] = VERSION;
    out[1] = (byte) count;
    int p = 2;
    for (int i = 0; i < kept.size(); i++) {
      if (groups[i] == null) {
        continue;
      }
      out[p++] = (byte) groups[i].length;
      System.arraycopy(groups[i], 0, out, p, groups[i].length);
      p += groups[i].length;
      long e = kept.get(i).expiresAt();
      for (int b = 7; b >= 0; b--) {
        out[p + b] = (byte) e;
        e >>>= 8;
      }
      p += 8;
      out[p++] = (byte) targets[i].length;
      System.arraycopy(targets[i], 0, out, p, targets[i].length);
      p += targets[i].length;
    }
    return out;
  }

  /** The entries of a plaintext, or null when it is not one of this version (a stale cookie). */
  public static StickyEntry[] decode(byte[] plain) {
    if (plain == null || plain.length < 2 || plain[0] != VERSION) {
      return null;
    }
    int count = plain[1] & 0xff;
    StickyEntry[] out = new StickyEntry[count];
    int p = 2;
    for (int i = 0; i < count; i++) {
      if (p >= plain.length) {
        return null;
      }
      int gl = plain[p++] & 0xff;
      if (p + gl + 9 > plain.length) {
        return null;
      }
      String group = new String(plain, p, gl, StandardCharsets.UTF_8);
      p += gl;
      long e = 0;
      for (int b = 0; b < 8; b++) {
        e = e << 8 | (plain[p++] & 0xff);
      }
      int tl = plain[p++] & 0xff;
      if (p + tl > plain.length) {
        return null;
      }
      String target = new String(plain, p, tl, StandardCharsets.UTF_8);
      p += tl;
      out[i] = new StickyEntry(group, target, e);
    }
    return p == plain.length ? out : null;
  }
}
