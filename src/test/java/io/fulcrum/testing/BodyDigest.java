package io.fulcrum.testing;

import io.vertx.core.buffer.Buffer;
import java.util.zip.CRC32C;

/**
 * The byte count and CRC32C of a body as it streams past, chunk by chunk, without keeping it.
 * Updated on one event loop; readable from any thread.
 */
public final class BodyDigest {

  private final CRC32C crc = new CRC32C();
  private volatile long bytes;
  private volatile long crcValue;

  public void update(Buffer chunk) {
    crc.update(chunk.getBytes());
    crcValue = crc.getValue();
    bytes += chunk.length();
  }

  public long bytes() {
    return bytes;
  }

  public long crc32c() {
    return crcValue;
  }
}
