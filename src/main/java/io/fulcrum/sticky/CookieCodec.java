package io.fulcrum.sticky;

import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.random.RandomGenerator;
import javax.crypto.Cipher;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Seals and opens stickiness cookie values: AES-GCM with the key ring's newest key, a fresh 96-bit
 * nonce per value, and the cookie kind's name as associated data; the result is
 * {@code key id (4 bytes) | nonce (12) | ciphertext | tag (16)} in base64url without padding, so the
 * value needs no URL encoding (URL-encoded values are not accepted, as on ALB).
 *
 * <p>Nonces: a random 96-bit starting point per codec, then a counter, so two values sealed by one
 * codec never share a nonce and codecs (event loops, processes) start far apart.
 *
 * <p>One codec per event loop: it keeps its own {@link Cipher}, which is not thread-safe. Every
 * method is called on the owning loop.
 */
public final class CookieCodec {

  static final int KEY_ID_BYTES = 4;
  static final int NONCE_BYTES = 12;
  static final int TAG_BYTES = 16;
  static final int OVERHEAD = KEY_ID_BYTES + NONCE_BYTES + TAG_BYTES;
  /** Longer values are refused before decoding (four 4 KB shards at most). */
  static final int MAX_VALUE_CHARS = 16 * 1024;

  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private final Cipher cipher;
  private KeyRing ring;
  private int nonceHigh;
  private long nonceLow;

  /**
   * @param ring      the keys (null: nothing can be sealed or opened until {@link #keys} is called)
   * @param nonceSeed where the nonce counter starts (a {@link java.security.SecureRandom} in production)
   */
  public CookieCodec(KeyRing ring, RandomGenerator nonceSeed) {
    try {
      this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
    } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
      throw new IllegalStateException("AES-GCM is not available", e);
    }
    this.ring = ring;
    this.nonceHigh = nonceSeed.nextInt();
    this.nonceLow = nonceSeed.nextLong();
  }

  /** Swaps in a new key ring (after a rotation). */
  public void keys(KeyRing next) {
    this.ring = next;
  }

  public KeyRing keys() {
    return ring;
  }

  /** The sealed value of {@code plain[0, length)} for a cookie of {@code kind}, or null without keys. */
  public String seal(CookieKind kind, byte[] plain, int length) {
    return seal(kind.aad(), plain, length);
  }

  /**
   * The sealed value of {@code plain[0, length)} bound to {@code aad} (what else the value is for:
   * another kind of cookie, a login's state), or null without keys.
   */
  public String seal(byte[] aad, byte[] plain, int length) {
    KeyRing r = ring;
    if (r == null) {
      return null;
    }
    KeyRing.Key key = r.newest();
    byte[] out = new byte[OVERHEAD + length];
    putInt(out, 0, key.id());
    nextNonce(out, KEY_ID_BYTES);
    try {
      cipher.init(Cipher.ENCRYPT_MODE, key.spec(), new GCMParameterSpec(TAG_BYTES * 8, out, KEY_ID_BYTES, NONCE_BYTES));
      cipher.updateAAD(aad);
      cipher.doFinal(plain, 0, length, out, KEY_ID_BYTES + NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("sealing a stickiness cookie failed", e);
    }
    return ENCODER.encodeToString(out);
  }

  /**
   * The plaintext of a value sealed for a cookie of {@code kind}, or null when it is not one: not
   * base64url, too short, a key the ring no longer holds, tampered with, or sealed for another kind.
   */
  public byte[] open(CookieKind kind, String value) {
    return open(kind.aad(), value);
  }

  /** The plaintext of a value sealed with {@code aad} by {@link #seal(byte[], byte[], int)}, or null. */
  public byte[] open(byte[] aad, String value) {
    KeyRing r = ring;
    if (r == null || value == null || value.length() > MAX_VALUE_CHARS) {
      return null;
    }
    byte[] raw;
    try {
      raw = DECODER.decode(value);
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (raw.length < OVERHEAD) {
      return null;
    }
    KeyRing.Key key = r.find(getInt(raw, 0));
    if (key == null) {
      return null;
    }
    try {
      cipher.init(Cipher.DECRYPT_MODE, key.spec(), new GCMParameterSpec(TAG_BYTES * 8, raw, KEY_ID_BYTES, NONCE_BYTES));
      cipher.updateAAD(aad);
      return cipher.doFinal(raw, KEY_ID_BYTES + NONCE_BYTES, raw.length - KEY_ID_BYTES - NONCE_BYTES);
    } catch (GeneralSecurityException e) {
      // AEADBadTagException: tampered, truncated, or sealed for another kind of cookie.
      return null;
    }
  }

  /** The id of the key a value names, or null when it is not a sealed value (tests, diagnostics). */
  public static Integer keyId(String value) {
    try {
      byte[] raw = DECODER.decode(value);
      return raw.length < OVERHEAD ? null : getInt(raw, 0);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private void nextNonce(byte[] out, int at) {
    putInt(out, at, nonceHigh);
    long low = nonceLow;
    for (int i = 7; i >= 0; i--) {
      out[at + 4 + i] = (byte) low;
      low >>>= 8;
    }
    if (++nonceLow == 0) {
      nonceHigh++;
    }
  }

  private static void putInt(byte[] b, int at, int v) {
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }

  private static int getInt(byte[] b, int at) {
    return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | (b[at + 3] & 0xff);
  }
}
