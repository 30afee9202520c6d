package io.fulcrum.jwt;

import io.vertx.core.Context;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys of one JWKS endpoint, fetched by {@link KeySources} when first needed, again every
 * {@value #REFRESH_MILLIS} ms, and sooner when a token names a key the set lacks (a rotation), but
 * not more often than every {@value #MIN_REFETCH_MILLIS} ms. A failed fetch keeps the keys read
 * before; it is tried again after {@value #RETRY_MILLIS} ms.
 *
 * <p>{@link #keys()} and {@link #failure()} are volatile reads, for any thread; everything else runs
 * on the owner's context (the registry's), and {@link #refresh} hops there.
 */
public final class KeySource {

  public static final long REFRESH_MILLIS = 300_000;
  public static final long MIN_REFETCH_MILLIS = 10_000;
  public static final long RETRY_MILLIS = 10_000;
  private static final Logger LOG = LoggerFactory.getLogger(KeySource.class);

  private final String endpoint;
  private final KeySources owner;
  private volatile JwkSet keys;
  private volatile String failure;
  /** Whether a fetch is under way, and when the last one started (0: none yet); written on the owner's context. */
  private volatile boolean fetching;
  private volatile long lastAttempt;

  // On the owner's context only.
  private final List<Waiter> waiters = new ArrayList<>();
  private boolean closed;
  private long timer = -1;

  KeySource(String endpoint, KeySources owner) {
    this.endpoint = endpoint;
    this.owner = owner;
  }

  private record Waiter(Context context, Runnable then) {
  }

  public String endpoint() {
    return endpoint;
  }

  /** The keys last read, or null before the first fetch succeeds. */
  public JwkSet keys() {
    return keys;
  }

  /** Why the last fetch failed, or null when it succeeded (or none ended yet). */
  public String failure() {
    return failure;
  }

  /**
   * Whether {@link #refresh} would fetch the keys now, or join a fetch under way, rather than give
   * up at once: a request thread asks this first, so that tokens naming unknown keys in a stream do
   * not each hop to the owner's context. Any thread.
   */
  public boolean mayFetchSoon() {
    long last = lastAttempt;
    return fetching || last == 0 || owner.timers().now() - last >= MIN_REFETCH_MILLIS;
  }

  /**
   * Asks for the keys again, for a token whose key the set lacks (or a set not read yet), and runs
   * {@code then} on {@code context} once that fetch ends; at once (well, on the next turn of
   * {@code context}) when a fetch started less than {@value #MIN_REFETCH_MILLIS} ms ago, or the
   * source is closed. Any thread.
   */
  public void refresh(Context context, Runnable then) {
    owner.context().runOnContext(v -> {
      waiters.add(new Waiter(context, then));
      if (fetching) {
        return;
      }
      if (closed || lastAttempt != 0 && owner.timers().now() - lastAttempt < MIN_REFETCH_MILLIS) {
        release();
      } else {
        fetch();
      }
    });
  }

  /** Starts a fetch now (owner's context). */
  void fetch() {
    if (closed || fetching) {
      return;
    }
    fetching = true;
    lastAttempt = Math.max(1, owner.timers().now());
    if (timer >= 0) {
      owner.timers().cancelTimer(timer);
      timer = -1;
    }
    owner.download(endpoint).onComplete(ar -> {
      fetching = false;
      long next;
      if (ar.succeeded()) {
        JwkSet read = ar.result();
        boolean changed = keys == null || !read.sameKeys(keys);
        if (changed || failure != null) {
          LOG.info("JWKS {}: {} signing key(s)", endpoint, read.size());
          owner.changed(endpoint, state(), keysState(read), read.describe());
        }
        if (changed) {
          keys = read; // the same keys keep their set: the tokens verified with it stay verified
        }
        failure = null;
        next = REFRESH_MILLIS;
      } else {
        String why = String.valueOf(ar.cause().getMessage());
        if (failure == null) {
          LOG.warn("JWKS {} could not be read{}: {}", endpoint, keys == null ? "" : " (its keys read before stay)",
              why);
          owner.changed(endpoint, state(), FAILING, why + (keys == null ? "" : "; the keys read before stay"));
        }
        failure = why;
        next = RETRY_MILLIS;
      }
      if (!closed) {
        timer = owner.timers().setTimer(next, t -> {
          timer = -1;
          fetch();
        });
      }
      release();
    });
  }

  static final String FAILING = "failing";

  /** The source's state in the journal's words: {@code failing}, {@code 2 keys}, or null before the first fetch. */
  private String state() {
    return failure != null ? FAILING : keys == null ? null : keysState(keys);
  }

  private static String keysState(JwkSet set) {
    return set.size() + (set.size() == 1 ? " key" : " keys");
  }

  /** Stops refreshing (owner's context); requests waiting go on with what there is. */
  void close() {
    closed = true;
    if (timer >= 0) {
      owner.timers().cancelTimer(timer);
      timer = -1;
    }
    release();
  }

  private void release() {
    for (Waiter w : waiters) {
      w.context().runOnContext(v -> w.then().run());
    }
    waiters.clear();
  }
}
