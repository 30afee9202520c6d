package io.fulcrum.forward;

import io.fulcrum.model.ListenerAttributes;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.List;

/**
 * A listener's response header modification (ALB's listener attributes): the headers it inserts
 * into every answer, over any value a target gave, and whether the load balancer's own answers
 * (fixed responses, redirects, error pages) carry {@code Server: awselb/2.0}. Built once per
 * listener version. As a {@link HttpForwarder.ResponseHook} it inserts its headers into a target's
 * or a function's response, and tells the exchange how to shape an error page.
 */
public final class ListenerHeaders implements HttpForwarder.ResponseHook {

  /** ALB's own: the Server header, nothing inserted. */
  public static final ListenerHeaders DEFAULT = new ListenerHeaders(List.of(), true);

  private final CharSequence[] names;
  private final CharSequence[] values;
  private final boolean server;

  private ListenerHeaders(List<String[]> inserted, boolean server) {
    names = new CharSequence[inserted.size()];
    values = new CharSequence[inserted.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = HttpHeaders.createOptimized(inserted.get(i)[0]);
      values[i] = HttpHeaders.createOptimized(inserted.get(i)[1]);
    }
    this.server = server;
  }

  public static ListenerHeaders of(ListenerAttributes attributes) {
    List<String[]> inserted = attributes.responseHeaders();
    return inserted.isEmpty() && attributes.serverHeader() ? DEFAULT
        : new ListenerHeaders(inserted, attributes.serverHeader());
  }

  /** The header modification {@code hook} carries: its listener's, or ALB's own without a hook. */
  public static ListenerHeaders of(HttpForwarder.ResponseHook hook) {
    return hook == null ? DEFAULT : hook.listenerHeaders();
  }

  /** Whether the load balancer's own answers carry {@code Server: awselb/2.0}. */
  public boolean server() {
    return server;
  }

  /** Sets {@code Server: awselb/2.0} on an answer the load balancer makes itself, unless the listener turned it off. */
  public MultiMap server(MultiMap headers) {
    if (server) {
      headers.set(ElbResponses.SERVER_NAME, ElbResponses.SERVER_VALUE);
    }
    return headers;
  }

  /** Inserts the headers, over any of the same name. */
  @Override
  public void beforeHead(MultiMap headers) {
    for (int i = 0; i < names.length; i++) {
      headers.set(names[i], values[i]);
    }
  }

  /** As {@link #beforeHead}, into a Netty message's headers. */
  void insertInto(io.netty.handler.codec.http.HttpHeaders headers) {
    for (int i = 0; i < names.length; i++) {
      headers.set(names[i], values[i]);
    }
  }

  /** Only when it inserts a header does a target's head go through a header map. */
  @Override
  public boolean changesHead() {
    return names.length > 0;
  }

  @Override
  public ListenerHeaders listenerHeaders() {
    return this;
  }

  /**
   * The hook for a forwarded request: {@code first} (stickiness cookies, or null), then this;
   * null when neither does anything.
   */
  public HttpForwarder.ResponseHook after(HttpForwarder.ResponseHook first) {
    if (this == DEFAULT) {
      return first;
    }
    if (first == null) {
      return this;
    }
    return new HttpForwarder.ResponseHook() {
      @Override
      public void beforeHead(MultiMap headers) {
        first.beforeHead(headers);
        ListenerHeaders.this.beforeHead(headers);
      }

      @Override
      public ListenerHeaders listenerHeaders() {
        return ListenerHeaders.this;
      }
    };
  }
}
