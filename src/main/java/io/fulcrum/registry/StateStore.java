package io.fulcrum.registry;

import io.fulcrum.model.Environment;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Resources;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where resources owned by the API live between runs: {@code <data dir>/state.json}, written
 * atomically (a temporary file, fsync, rename, fsync of the directory) before a change is
 * acknowledged, with the previous good version kept as {@code state.json.prev}. A torn or corrupt
 * file stops start-up with a clear error and is left as it is, so nothing good is lost. Both are
 * readable by their owner only (where the file system has POSIX permissions): they hold what the
 * config file does, keystore passwords included.
 *
 * <p>Blocking file I/O: call it from a worker thread, never from an event loop.
 */
public final class StateStore {

  public static final String FILE = "state.json";
  public static final String PREVIOUS = "state.json.prev";

  private final Path dir;

  public StateStore(Path dataDir) {
    this.dir = dataDir;
  }

  public Path file() {
    return dir.resolve(FILE);
  }

  /**
   * The persisted resources, or empty when there is no state file yet.
   *
   * @throws InvalidModelException when the file is torn, corrupt or holds invalid resources
   */
  public Optional<Resources> load(Environment env) {
    Path file = file();
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw corrupt("cannot be read: " + e.getMessage());
    }
    JsonObject json;
    try {
      json = new JsonObject(text);
    } catch (DecodeException e) {
      throw corrupt("is not valid JSON (torn or corrupt): " + e.getMessage());
    }
    try {
      return Optional.of(ResourcesJson.decode(json, env));
    } catch (IllegalArgumentException | ClassCastException | NullPointerException e) {
      throw corrupt("does not hold a Fulcrum state: " + e.getMessage());
    } catch (InvalidModelException e) {
      throw corrupt("holds resources this deployment refuses: " + e.getMessage().replace('\n', ';'));
    }
  }

  private InvalidModelException corrupt(String why) {
    Path prev = dir.resolve(PREVIOUS);
    String hint = Files.exists(prev) ? "; the previous good state is in " + prev + " (restore it, or move both away to start"
        + " from the config file)" : "; move it away to start from the config file";
    return new InvalidModelException(List.of(new Problem(file().toString(), Problem.VALIDATION_ERROR,
        "the state file " + why + hint + ". Nothing was started and no file was changed.")));
  }

  /** Writes the resources durably; returns once they are on disk. */
  public void save(Resources resources) {
    byte[] bytes = ResourcesJson.encode(resources).encodePrettily().getBytes(StandardCharsets.UTF_8);
    Path file = file();
    Path tmp = dir.resolve(FILE + ".tmp");
    try {
      Files.createDirectories(dir);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      ownerOnly(tmp);
      if (Files.exists(file)) {
        Path previous = dir.resolve(PREVIOUS);
        Files.copy(file, previous, StandardCopyOption.REPLACE_EXISTING);
        ownerOnly(previous);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      syncDirectory();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** Leaves {@code file} readable and writable by its owner alone, where permissions are POSIX. */
  private static void ownerOnly(Path file) throws IOException {
    if (Files.getFileStore(file).supportsFileAttributeView(PosixFileAttributeView.class)) {
      Files.setPosixFilePermissions(file, OWNER_ONLY);
    }
  }

  private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

  private void syncDirectory() {
    // Makes the rename itself durable; not every file system allows opening a directory.
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException e) {
      // best effort
    }
  }
}
