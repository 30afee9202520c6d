package io.fulcrum.sticky;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plaintext inside a stickiness cookie: entries per group, version, inside expiry. */
class StickyPayloadTest {

  @Test
  void entries_roundTrip_inOrder() {
    List<StickyEntry> in = List.of(new StickyEntry("0123456789abcdef", "10.0.0.1:8080", 1_767_225_660_000L),
        new StickyEntry("fedcba9876543210", "i-0abc1234def567890:80", 42L),
        new StickyEntry("00000000000000aa", "", Long.MAX_VALUE));
    assertThat(StickyPayload.decode(StickyPayload.encode(in))).containsExactlyElementsOf(in);
  }

  @Test
  void anotherVersion_truncatedOrPaddedPlaintexts_areStale() {
    byte[] p = StickyPayload.encode(List.of(new StickyEntry("g", "t:1", 5)));
    byte[] other = p.clone();
    other[0] = 2;
    assertThat(StickyPayload.decode(other)).isNull();
    for (int n = 0; n < p.length; n++) {
      assertThat(StickyPayload.decode(java.util.Arrays.copyOf(p, n))).as("length %d", n).isNull();
    }
    assertThat(StickyPayload.decode(java.util.Arrays.copyOf(p, p.length + 1))).isNull();
    assertThat(StickyPayload.decode(null)).isNull();
  }

  @Test
  void insideExpiry_holdsUntilItPasses_andNeverBeyondTheConfiguredDuration() {
    StickyEntry e = new StickyEntry("g", "t:1", 100_000);
    assertThat(e.validAt(40_000, 60)).isTrue();
    assertThat(e.validAt(99_999, 60)).isTrue();
    assertThat(e.validAt(100_000, 60)).isFalse();
    // Written under a duration longer than today's: not trusted.
    assertThat(e.validAt(30_000, 60)).isFalse();
    assertThat(e.validAt(30_000, 70)).isTrue();
  }

  @Test
  void moreThanTheMaximum_keepsTheEntriesThatExpireLast() {
    List<StickyEntry> in = new ArrayList<>();
    for (int i = 0; i < StickyPayload.MAX_ENTRIES + 10; i++) {
      in.add(new StickyEntry("g" + i, "t:" + i, 1000 + i));
    }
    StickyEntry[] out = StickyPayload.decode(StickyPayload.encode(in));
    assertThat(out).hasSize(StickyPayload.MAX_ENTRIES);
    assertThat(out).extracting(StickyEntry::expiresAt).allMatch(x -> x >= 1010);
  }

  @Test
  void groupMatch_isOnTheArnsLastSegment() {
    String arn = "arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/web/0123456789abcdef";
    assertThat(new StickyEntry("0123456789abcdef", "", 1).isFor(arn)).isTrue();
    assertThat(new StickyEntry("123456789abcdef", "", 1).isFor(arn)).isFalse();
    assertThat(new StickyEntry("web/0123456789abcdef", "", 1).isFor(arn)).isTrue();
    assertThat(StickyEntry.groupId(arn)).isEqualTo("0123456789abcdef");
  }
}
