package io.fulcrum.keys;

import io.fulcrum.sticky.KeyRing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The stickiness key ring on disk ({@code <data dir>/stickiness.keys}): one key per line, newest
 * first, as {@code <id, 8 hex digits> <key, base64url>}; {@code #} starts a comment. Created with
 * one random 256-bit key on first start, written atomically, readable by its owner only (mode 600
 * where the file system has POSIX permissions).
 *
 * <p>Blocking file I/O: call it from {@code main}, a worker, or {@code executeBlocking}, never on an
 * event loop.
 */
public final class KeyRingFile {

  public static final String FILE_NAME = "stickiness.keys";
  /** Keys kept by a rotation: the new one and the three before it. */
  public static final int KEEP = 4;
  /** New keys are 256-bit. */
  public static final int KEY_BYTES = 32;

  private static final String HEADER = """
      # Fulcrum stickiness cookie keys (AES-GCM). The first key seals new cookies; every key here opens
      # the cookies sealed with it. Rotate with: java -jar fulcrum.jar rotate-stickiness-key
      # Keep this file private: whoever holds it can forge stickiness cookies.
      """;

  private KeyRingFile() {
  }

  /** The key file of a data dir. */
  public static Path in(Path dataDir) {
    return dataDir.resolve(FILE_NAME);
  }

  /** Reads the ring, creating the file (and its directories) with one new key when it does not exist. */
  public static KeyRing loadOrCreate(Path file, SecureRandom random) throws IOException {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    } catch (NoSuchFileException e) {
      KeyRing ring = new KeyRing(List.of(newKey(random, Set.of())));
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = temp(file, format(ring));
      try {
        // No replacing: when two processes start on one data dir at once, the first file stays. A
        // hard link is created or refused atomically; Files.move without REPLACE_EXISTING is not
        // (it checks, then renames, and rename replaces).
        Files.createLink(file, tmp);
        return ring;
      } catch (FileAlreadyExistsException raced) {
        return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
      } catch (UnsupportedOperationException noLinks) {
        Files.move(tmp, file);
        return ring;
      } finally {
        Files.deleteIfExists(tmp);
      }
    }
  }

  /** Reads the ring; a file that is missing or malformed is an error. */
  public static KeyRing load(Path file) throws IOException {
    return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
  }

  /**
   * Adds a new random key in front of the ring and keeps the newest {@link #KEEP} (creating the
   * file when missing), replacing the file atomically.
   *
   * @return the new ring
   */
  public static KeyRing rotate(Path file, SecureRandom random, int keep) throws IOException {
    KeyRing current = loadOrCreate(file, random);
    Set<Integer> used = new HashSet<>();
    current.keys().forEach(k -> used.add(k.id()));
    KeyRing next = current.with(newKey(random, used), keep);
    write(file, next);
    return next;
  }

  /** Replaces the file with {@code ring}, atomically where the file system allows it. */
  public static void write(Path file, KeyRing ring) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path tmp = temp(file, format(ring));
    try {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** The file's text for {@code ring}. */
  public static String format(KeyRing ring) {
    StringBuilder out = new StringBuilder(HEADER);
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    for (KeyRing.Key k : ring.keys()) {
      out.append(String.format("%08x", k.id())).append(' ').append(b64.encodeToString(k.secret())).append('\n');
    }
    return out.toString();
  }

  /** The ring in a file's text; {@code name} is the file's name in error messages. */
  public static KeyRing parse(String text, String name) throws InvalidKeyFileException {
    List<KeyRing.Key> keys = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    String[] lines = text.split("\n", -1);
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = name + ": line " + (n + 1) + ": ";
      String[] parts = line.split("\\s+");
      if (parts.length != 2 || parts[0].length() != 8) {
        throw new InvalidKeyFileException(where + "expected '<id: 8 hex digits> <key: base64url>'");
      }
      int id;
      byte[] secret;
      try {
        id = Integer.parseUnsignedInt(parts[0], 16);
      } catch (NumberFormatException e) {
        throw new InvalidKeyFileException(where + "'" + parts[0] + "' is not 8 hex digits");
      }
      try {
        secret = Base64.getUrlDecoder().decode(parts[1]);
      } catch (IllegalArgumentException e) {
        throw new InvalidKeyFileException(where + "the key is not base64url");
      }
      if (secret.length != 16 && secret.length != 32) {
        throw new InvalidKeyFileException(where + "the key has " + secret.length + " bytes (expected 16 or 32)");
      }
      if (!ids.add(id)) {
        throw new InvalidKeyFileException(where + "key id " + parts[0] + " appears twice");
      }
      keys.add(new KeyRing.Key(id, secret));
    }
    if (keys.isEmpty()) {
      throw new InvalidKeyFileException(name + ": holds no key");
    }
    return new KeyRing(keys);
  }

  private static KeyRing.Key newKey(SecureRandom random, Set<Integer> used) {
    int id;
    do {
      id = random.nextInt();
    } while (used.contains(id));
    byte[] secret = new byte[KEY_BYTES];
    random.nextBytes(secret);
    return new KeyRing.Key(id, secret);
  }

  /** A new file beside {@code file} holding {@code text}, owner-only where POSIX permissions exist. */
  private static Path temp(Path file, String text) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp;
    try {
      tmp = Files.createTempFile(dir, "." + FILE_NAME, ".tmp",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      tmp = Files.createTempFile(dir, "." + FILE_NAME, ".tmp");
    }
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    return tmp;
  }

  /** A key file that cannot be used, with the file, line and what is wrong. */
  public static final class InvalidKeyFileException extends IOException {
    public InvalidKeyFileException(String message) {
      super(message);
    }
  }
}
