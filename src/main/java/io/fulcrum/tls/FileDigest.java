package io.fulcrum.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * A digest of files as they are now: their names and the SHA-256 of each one's contents, in order.
 * A file whose contents changed gives another; one that cannot be read counts as such (the read
 * that follows reports why). Blocking: call it off the event loop.
 */
public final class FileDigest {

  private FileDigest() {
  }

  public static String of(List<String> files) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String file : files) {
        sha.update(file.getBytes(StandardCharsets.UTF_8));
        try {
          sha.update(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(Path.of(file))));
        } catch (IOException e) {
          sha.update((byte) 0);
        }
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
