package io.fulcrum.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.sticky.KeyRing;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key ring file: first start, owner-only permissions, rotation, malformed files. */
class KeyRingFileTest {

  @TempDir
  Path dir;

  private final SecureRandom random = new SecureRandom();

  @Test
  void firstStart_createsTheFileAndItsDirectories_withOneRandom256BitKey_readableByItsOwnerOnly() throws Exception {
    Path file = KeyRingFile.in(dir.resolve("nested/data"));
    KeyRing ring = KeyRingFile.loadOrCreate(file, random);
    assertThat(ring.keys()).hasSize(1);
    assertThat(ring.newest().secret()).hasSize(32);
    assertThat(Files.readString(file)).contains("# Fulcrum stickiness cookie keys")
        .containsPattern("\n[0-9a-f]{8} [A-Za-z0-9_-]{43}\n");
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }
    // Later starts read the same keys.
    assertThat(KeyRingFile.loadOrCreate(file, random)).isEqualTo(ring);
    assertThat(KeyRingFile.load(file)).isEqualTo(ring);
    try (var files = Files.list(file.getParent())) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly(KeyRingFile.FILE_NAME);
    }
  }

  @Test
  void rotation_putsANewKeyFirst_andKeepsTheNewestFour() throws Exception {
    Path file = KeyRingFile.in(dir);
    KeyRing first = KeyRingFile.loadOrCreate(file, random);
    List<KeyRing> rings = new ArrayList<>();
    rings.add(first);
    for (int i = 0; i < 5; i++) {
      rings.add(KeyRingFile.rotate(file, random, KeyRingFile.KEEP));
    }
    KeyRing last = rings.get(5);
    assertThat(KeyRingFile.load(file)).isEqualTo(last);
    assertThat(last.keys()).hasSize(4);
    assertThat(last.keys()).containsExactly(rings.get(5).newest(), rings.get(4).newest(), rings.get(3).newest(),
        rings.get(2).newest());
    assertThat(last.find(first.newest().id())).isNull();
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }
  }

  @Test
  void malformedFiles_areRefused_withTheLineAndTheReason() {
    String key = "AAAAAAAAAAAAAAAAAAAAAA";
    assertThatThrownBy(() -> KeyRingFile.parse("# only comments\n\n", "k")).hasMessage("k: holds no key");
    assertThatThrownBy(() -> KeyRingFile.parse("0000000g " + key, "k"))
        .hasMessage("k: line 1: '0000000g' is not 8 hex digits");
    assertThatThrownBy(() -> KeyRingFile.parse("# c\n00000001 " + key + " extra", "k"))
        .hasMessage("k: line 2: expected '<id: 8 hex digits> <key: base64url>'");
    assertThatThrownBy(() -> KeyRingFile.parse("00000001 AAAA", "k"))
        .hasMessage("k: line 1: the key has 3 bytes (expected 16 or 32)");
    assertThatThrownBy(() -> KeyRingFile.parse("00000001 AA+/AA==", "k"))
        .hasMessage("k: line 1: the key is not base64url");
    assertThatThrownBy(() -> KeyRingFile.parse("00000001 " + key + "\n00000001 " + key, "k"))
        .hasMessage("k: line 2: key id 00000001 appears twice");
  }

  @Test
  void ownFormat_parsesBack_with128BitKeysToo() throws Exception {
    KeyRing ring = new KeyRing(List.of(new KeyRing.Key(0xfffffffe, new byte[16]), new KeyRing.Key(3, new byte[32])));
    assertThat(KeyRingFile.parse(KeyRingFile.format(ring), "k")).isEqualTo(ring);
  }

  @Test
  void twoProcessesStartingAtOnce_endUpWithOneRing() throws Exception {
    Path file = KeyRingFile.in(dir);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<KeyRing>> starts = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        starts.add(() -> KeyRingFile.loadOrCreate(file, new SecureRandom()));
      }
      List<KeyRing> rings = new ArrayList<>();
      for (Future<KeyRing> f : pool.invokeAll(starts)) {
        rings.add(f.get());
      }
      assertThat(rings).allMatch(r -> r.equals(rings.get(0)));
      assertThat(KeyRingFile.load(file)).isEqualTo(rings.get(0));
    } finally {
      pool.shutdown();
    }
  }
}
