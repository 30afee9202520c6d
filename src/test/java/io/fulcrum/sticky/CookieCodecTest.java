package io.fulcrum.sticky;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The sealed cookie value: AES-GCM, key ids, AAD binding, nonces, base64url. */
class CookieCodecTest {

  private static final byte[] PLAIN = "group/target:80".getBytes(StandardCharsets.UTF_8);

  static KeyRing.Key key(int id, int size, long seed) {
    byte[] secret = new byte[size];
    new SplittableRandom(seed).nextBytes(secret);
    return new KeyRing.Key(id, secret);
  }

  static KeyRing ring(KeyRing.Key... keys) {
    return new KeyRing(List.of(keys));
  }

  private final KeyRing ring = ring(key(0x11, 32, 1));
  private final CookieCodec codec = new CookieCodec(ring, new SplittableRandom(7));

  @Test
  void roundTrip_opensWhatItSealed_with256And128BitKeys() {
    String v = codec.seal(CookieKind.LB, PLAIN, PLAIN.length);
    assertThat(codec.open(CookieKind.LB, v)).isEqualTo(PLAIN);

    CookieCodec short128 = new CookieCodec(ring(key(5, 16, 2)), new SplittableRandom(1));
    String w = short128.seal(CookieKind.TG, PLAIN, PLAIN.length);
    assertThat(short128.open(CookieKind.TG, w)).isEqualTo(PLAIN);
  }

  @Test
  void value_isBase64UrlWithoutPadding_keyIdNonceCiphertextAndTag() {
    String v = codec.seal(CookieKind.LB, PLAIN, PLAIN.length);
    assertThat(v).matches("[A-Za-z0-9_-]+");
    assertThat(Base64.getUrlDecoder().decode(v)).hasSize(4 + 12 + PLAIN.length + 16);
    assertThat(CookieCodec.keyId(v)).isEqualTo(0x11);
  }

  @Test
  void cookieName_isBoundAsAad_soAValueCannotMoveToAnotherKindOfCookie() {
    String lb = codec.seal(CookieKind.LB, PLAIN, PLAIN.length);
    assertThat(codec.open(CookieKind.TG, lb)).isNull();
    assertThat(codec.open(CookieKind.APP, lb)).isNull();
    String tg = codec.seal(CookieKind.TG, PLAIN, PLAIN.length);
    assertThat(codec.open(CookieKind.LB, tg)).isNull();
    assertThat(codec.open(CookieKind.TG, tg)).isEqualTo(PLAIN);
  }

  @Test
  void everyFlippedBit_makesTheValueUnopenable() {
    byte[] raw = Base64.getUrlDecoder().decode(codec.seal(CookieKind.LB, PLAIN, PLAIN.length));
    for (int i = 0; i < raw.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] t = raw.clone();
        t[i] ^= (byte) (1 << bit);
        String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(t);
        assertThat(codec.open(CookieKind.LB, tampered)).as("byte %d bit %d", i, bit).isNull();
      }
    }
  }

  @Test
  void truncatedOrMangledValues_areNotOpened() {
    String v = codec.seal(CookieKind.LB, PLAIN, PLAIN.length);
    for (int cut = 1; cut < v.length(); cut++) {
      assertThat(codec.open(CookieKind.LB, v.substring(0, v.length() - cut))).as("cut %d", cut).isNull();
    }
    assertThat(codec.open(CookieKind.LB, v + "AA")).isNull();
    assertThat(codec.open(CookieKind.LB, "")).isNull();
    assertThat(codec.open(CookieKind.LB, null)).isNull();
    assertThat(codec.open(CookieKind.LB, "not base64!")).isNull();
    // URL-encoded values are not supported, as on ALB.
    assertThat(codec.open(CookieKind.LB, v.substring(0, 10) + "%3D" + v.substring(10))).isNull();
    // Standard base64 characters are not base64url.
    assertThat(codec.open(CookieKind.LB, v.replace('-', '+').replace('_', '/') + "+/")).isNull();
  }

  @Test
  void nonces_areUniqueForEveryValue_andSealingTheSameInputTwiceGivesTwoValues() {
    Set<String> nonces = new HashSet<>();
    Set<String> values = new HashSet<>();
    CookieCodec other = new CookieCodec(ring, new SplittableRandom(8));
    for (int i = 0; i < 50_000; i++) {
      for (CookieCodec c : List.of(codec, other)) {
        String v = c.seal(CookieKind.LB, PLAIN, PLAIN.length);
        values.add(v);
        byte[] raw = Base64.getUrlDecoder().decode(v);
        nonces.add(Base64.getEncoder().encodeToString(java.util.Arrays.copyOfRange(raw, 4, 16)));
      }
    }
    assertThat(nonces).hasSize(100_000);
    assertThat(values).hasSize(100_000);
  }

  @Test
  void nonceCounter_carriesIntoTheHighPart() {
    // A seed whose low 64 bits are about to wrap.
    java.util.random.RandomGenerator seed = new java.util.random.RandomGenerator() {
      private int calls;

      @Override
      public long nextLong() {
        return calls++ == 0 ? 0 : -1L;
      }

      @Override
      public int nextInt() {
        calls++;
        return 41;
      }
    };
    CookieCodec c = new CookieCodec(ring, seed);
    byte[] first = Base64.getUrlDecoder().decode(c.seal(CookieKind.LB, PLAIN, PLAIN.length));
    byte[] second = Base64.getUrlDecoder().decode(c.seal(CookieKind.LB, PLAIN, PLAIN.length));
    assertThat(java.util.Arrays.copyOfRange(first, 4, 16))
        .containsExactly(0, 0, 0, 41, -1, -1, -1, -1, -1, -1, -1, -1);
    assertThat(java.util.Arrays.copyOfRange(second, 4, 16))
        .containsExactly(0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  @Test
  void aValueFromAnotherKeyRing_isNotOpened_evenWithTheSameKeyId() {
    CookieCodec foreign = new CookieCodec(ring(key(0x11, 32, 99)), new SplittableRandom(3));
    String v = foreign.seal(CookieKind.LB, PLAIN, PLAIN.length);
    assertThat(codec.open(CookieKind.LB, v)).isNull();
    CookieCodec unknownId = new CookieCodec(ring(key(0x12, 32, 1)), new SplittableRandom(3));
    assertThat(codec.open(CookieKind.LB, unknownId.seal(CookieKind.LB, PLAIN, PLAIN.length))).isNull();
  }

  @Test
  void rotation_newestKeySeals_olderKeysStillOpen_untilTheyLeaveTheRing() {
    String old = codec.seal(CookieKind.LB, PLAIN, PLAIN.length);
    KeyRing rotated = ring.with(key(0x22, 32, 2), 2);
    codec.keys(rotated);
    assertThat(codec.open(CookieKind.LB, old)).isEqualTo(PLAIN);
    String fresh = codec.seal(CookieKind.LB, PLAIN, PLAIN.length);
    assertThat(CookieCodec.keyId(fresh)).isEqualTo(0x22);

    codec.keys(rotated.with(key(0x33, 32, 3), 2));
    assertThat(codec.open(CookieKind.LB, fresh)).isEqualTo(PLAIN);
    assertThat(codec.open(CookieKind.LB, old)).isNull();
  }

  @Test
  void withoutKeys_nothingIsSealedOrOpened() {
    CookieCodec none = new CookieCodec(null, new SplittableRandom(1));
    assertThat(none.seal(CookieKind.LB, PLAIN, PLAIN.length)).isNull();
    assertThat(none.open(CookieKind.LB, codec.seal(CookieKind.LB, PLAIN, PLAIN.length))).isNull();
  }

  @Test
  void keyRing_printsIdsOnly_andRefusesBadKeys() {
    assertThat(ring.toString()).isEqualTo("KeyRing[00000011]");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new KeyRing.Key(1, new byte[24]))
        .hasMessageContaining("16 or 32 bytes");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ring(key(1, 16, 1), key(1, 16, 2)))
        .hasMessageContaining("appears twice");
  }
}
