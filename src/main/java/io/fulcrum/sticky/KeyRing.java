package io.fulcrum.sticky;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES keys that seal stickiness cookies: the newest (first) key encrypts new cookies, every
 * key decrypts cookies that name it, so a rotation does not break live sessions. Immutable and
 * shared by every event loop; loaded and rotated by the control plane and handed to the listener
 * verticles in a message.
 */
public final class KeyRing {

  /** One AES key (128 or 256 bits) and the id that cookies sealed with it carry. */
  public static final class Key {
    private final int id;
    private final byte[] secret;
    private final SecretKeySpec spec;

    public Key(int id, byte[] secret) {
      if (secret.length != 16 && secret.length != 32) {
        throw new IllegalArgumentException("a stickiness key has 16 or 32 bytes, not " + secret.length);
      }
      this.id = id;
      this.secret = secret.clone();
      this.spec = new SecretKeySpec(this.secret, "AES");
    }

    public int id() {
      return id;
    }

    /** A copy of the key material (for the key file only). */
    public byte[] secret() {
      return secret.clone();
    }

    SecretKeySpec spec() {
      return spec;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.id == id && Arrays.equals(k.secret, secret);
    }

    @Override
    public int hashCode() {
      return id;
    }

    @Override
    public String toString() {
      return String.format("%08x", id);
    }
  }

  private final Key[] keys;

  /** @param keys newest first; at least one, ids distinct */
  public KeyRing(List<Key> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("a key ring needs at least one key");
    }
    Set<Integer> ids = new HashSet<>();
    for (Key k : keys) {
      if (!ids.add(k.id())) {
        throw new IllegalArgumentException("key id " + k + " appears twice");
      }
    }
    this.keys = keys.toArray(Key[]::new);
  }

  /** The key that seals new cookies. */
  public Key newest() {
    return keys[0];
  }

  /** The key with this id, or null (a cookie naming it is stale). */
  public Key find(int id) {
    for (Key k : keys) {
      if (k.id == id) {
        return k;
      }
    }
    return null;
  }

  /** Every key, newest first. */
  public List<Key> keys() {
    return List.of(keys);
  }

  /** A ring with {@code key} in front and at most {@code keep} keys in all (the oldest dropped). */
  public KeyRing with(Key key, int keep) {
    List<Key> next = new ArrayList<>();
    next.add(key);
    for (Key k : keys) {
      if (next.size() < keep && k.id != key.id) {
        next.add(k);
      }
    }
    return new KeyRing(next);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof KeyRing r && Arrays.equals(r.keys, keys);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(keys);
  }

  /** Key ids only, never key material. */
  @Override
  public String toString() {
    return "KeyRing" + Arrays.toString(keys);
  }
}
