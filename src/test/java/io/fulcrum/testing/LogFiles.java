package io.fulcrum.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/** The gzip log files Fulcrum writes as ALB's S3 objects (access and health check logs), read back. */
public final class LogFiles {

  private LogFiles() {
  }

  /** The complete {@code .log.gz} files under {@code dir}, sorted, once {@code count} are there. */
  public static List<Path> await(Path dir, int count) {
    return org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
      if (!Files.isDirectory(dir)) {
        return List.<Path>of();
      }
      try (Stream<Path> s = Files.walk(dir)) {
        return s.filter(p -> p.getFileName().toString().endsWith(".log.gz")).sorted().toList();
      }
    }, l -> l.size() == count);
  }

  /** A file's lines, which must each end with a newline, the last one included. */
  public static List<String> lines(Path file) {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      String text = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(text).endsWith("\n");
      return List.of(text.split("\n"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A line's fields, in order from 1 as AWS numbers them (index 0 is unused): space-separated, a
   * quoted field without its quotes (it holds no quote of its own: the writer escapes them).
   */
  public static List<String> fields(String line) {
    List<String> out = new ArrayList<>();
    out.add("");
    int i = 0;
    while (i < line.length()) {
      if (line.charAt(i) == '"') {
        int end = line.indexOf('"', i + 1);
        out.add(line.substring(i + 1, end));
        i = end + 2;
      } else {
        int end = line.indexOf(' ', i);
        end = end < 0 ? line.length() : end;
        out.add(line.substring(i, end));
        i = end + 1;
      }
    }
    return out;
  }
}
