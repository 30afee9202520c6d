package io.fulcrum.testing;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.WriteStream;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * A large body generated on the fly (pseudo-random, so every chunk differs and a lost, repeated
 * or reordered chunk changes the checksum) and written to a {@link WriteStream} with
 * back-pressure: the writer waits for the stream's drain handler whenever its queue is full, so
 * at most one queue's worth of the body exists in memory at any time.
 *
 * <p>{@link #writeTo} must be called on the stream's context (its event loop).
 */
public final class GeneratedBody {

  public static final int CHUNK = 64 * 1024;

  private final long length;
  private final SplittableRandom random;
  private final CRC32C crc = new CRC32C();
  private volatile long written;
  private volatile long crcValue;

  public GeneratedBody(long length, long seed) {
    this.length = length;
    this.random = new SplittableRandom(seed);
  }

  /** Writes the whole body, then ends the stream; the future completes when the stream has ended. */
  public Future<Void> writeTo(WriteStream<Buffer> out) {
    Promise<Void> done = Promise.promise();
    out.exceptionHandler(done::tryFail);
    out.drainHandler(v -> pump(out, done));
    pump(out, done);
    return done.future();
  }

  private void pump(WriteStream<Buffer> out, Promise<Void> done) {
    while (written < length && !out.writeQueueFull()) {
      out.write(next());
    }
    if (written == length) {
      out.drainHandler(null);
      out.end().onComplete(ar -> {
        if (ar.succeeded()) {
          done.tryComplete();
        } else {
          done.tryFail(ar.cause());
        }
      });
    }
  }

  private Buffer next() {
    int n = (int) Math.min(CHUNK, length - written);
    byte[] bytes = new byte[n];
    ByteBuffer bb = ByteBuffer.wrap(bytes);
    while (bb.remaining() >= Long.BYTES) {
      bb.putLong(random.nextLong());
    }
    while (bb.hasRemaining()) {
      bb.put((byte) random.nextInt());
    }
    crc.update(bytes);
    crcValue = crc.getValue();
    written += n;
    return Buffer.buffer(bytes);
  }

  /** Bytes written so far. */
  public long written() {
    return written;
  }

  /** CRC32C of the bytes written so far. */
  public long crc32c() {
    return crcValue;
  }
}
