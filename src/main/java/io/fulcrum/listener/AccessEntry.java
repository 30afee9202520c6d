package io.fulcrum.listener;

import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.observe.LoopLog;
import io.fulcrum.routing.RouteAction;
import io.vertx.core.net.SocketAddress;

/**
 * One request's line of the access log (SPEC §11.5), filled in as the request goes and written
 * once, when it ends: answered by the load balancer, or its exchange with a target over. Made
 * only for a listener whose load balancer has an access log. Touched only on the owning event loop.
 */
final class AccessEntry {

  /** {@link #priority} before any rule matched: the log prints {@code -}. */
  static final int NO_RULE = Integer.MIN_VALUE;
  /** ALB truncates the user agent at 8 KB. */
  private static final int MAX_USER_AGENT = 8 * 1024;
  private static final int MAX_FIELD = 64 * 1024;

  private final LoopLog.Lines lines;
  private final ClientConnection client;
  private final long createdMillis;
  private final long createdNanos;
  private final String connectionId;
  /** {@code http}, {@code https}, {@code h2}, {@code grpcs}, {@code ws} or {@code wss}. */
  String type;
  private final SocketAddress remote;
  private final String request;
  private final String userAgent;
  private final ForwardHeaders.Tls tls;
  private final String serverName;
  /** The ARN of the certificate the client's session was given; null on HTTP listeners. */
  private final String chosenCertificate;
  String traceId;
  int priority = NO_RULE;
  /** {@code forward}, {@code fixed-response}, {@code redirect}, or null. */
  String action;
  String redirectUrl;
  /** {@code Acceptable}, {@code Ambiguous} or {@code Severe}, or null (compliant or not classified). */
  String classification;
  String classificationReason;
  /** A rule's transforms: the Host and URL they gave (null: unchanged), and how it went (null: none applied). */
  private String transformedHost;
  private String transformedUri;
  private String transformStatus;
  String groupArn;
  /** {@code ip:port} of the target, or null (none, or a Lambda function). */
  String target;
  /** When the request left for a target ({@link System#nanoTime()}), or -1. */
  long sentNanos = -1;
  /** When the target's response head came, or -1. */
  long headNanos = -1;
  int elbStatus;
  int targetStatus = -1;
  String errorReason;
  /**
   * The request's and response's bytes where the connection does not count them (HTTP/2): the
   * header fields as decoded and the body; -1 while unknown.
   */
  long received = -1;
  long sent = -1;
  /** The request over HTTP/2 on Vert.x's path, whose body and response body it counts; or null. */
  io.vertx.core.http.HttpServerRequest http2;
  private boolean written;

  /**
   * @param request {@code METHOD scheme://host:port/uri HTTP/x.y}, as the log's request field has it
   */
  AccessEntry(LoopLog.Lines lines, ClientConnection client, long createdMillis, String connectionId, String type,
      SocketAddress remote, String request, String userAgent, ForwardHeaders.Tls tls, String serverName,
      String chosenCertificate) {
    this.lines = lines;
    this.client = client;
    this.createdMillis = createdMillis;
    this.createdNanos = System.nanoTime();
    this.connectionId = connectionId;
    this.type = type;
    this.remote = remote;
    this.request = request;
    this.userAgent = userAgent;
    this.tls = tls;
    this.serverName = serverName;
    this.chosenCertificate = chosenCertificate;
  }

  /** The request field: {@code METHOD scheme://host:port/uri HTTP/x.y}; an origin-form target gets the rest. */
  static String request(String method, boolean tls, String host, int port, String uri, String version) {
    StringBuilder b = new StringBuilder(method.length() + uri.length() + 48).append(method).append(' ');
    if (uri.startsWith("/")) {
      b.append(tls ? "https://" : "http://").append(host == null ? "-" : host).append(':').append(port);
    }
    return b.append(uri).append(' ').append(version).toString();
  }

  /** The rule that matched, and its actions. */
  void routed(RouteAction route) {
    priority = route.priority();
    action = route.executed();
  }

  /**
   * The check before the rule's routing action answered the request itself (refused it, or sent
   * it to sign in): {@code executed} is the check's word ({@code jwt-validation}, {@code authenticate}).
   */
  void refusedByCheck(String executed) {
    action = executed;
  }

  /** What the forwarding rule's transforms did: {@code TRANSFORMED} or {@code FAILED}, with what they gave. */
  void transformed(NodeRequest.Rewritten done, NodeRequest facts) {
    if (done == NodeRequest.Rewritten.NOTHING) {
      return;
    }
    transformStatus = done == NodeRequest.Rewritten.REWRITTEN ? "TRANSFORMED" : "FAILED";
    transformedHost = facts.rewrittenHost();
    transformedUri = facts.rewrittenUri();
  }

  /** Desync mitigation's verdict on a request that is not compliant. */
  void classified(Desync.Verdict verdict) {
    String tier = verdict.tier().name();
    classification = tier.charAt(0) + tier.substring(1).toLowerCase(java.util.Locale.ROOT);
    classificationReason = verdict.reason();
  }

  /** The load balancer answered {@code status} itself, now. */
  void answered(int status) {
    elbStatus = status;
    write();
  }

  /** Writes the line, once; it ends now. */
  void write() {
    if (written) {
      return;
    }
    written = true;
    long endNanos = System.nanoTime();
    long endMicros = createdMillis * 1000 + (endNanos - createdNanos) / 1000;
    long in = client == null ? -1 : client.received();
    long out = client == null ? -1 : client.sent();
    if (in < 0) {
      in = Math.max(received, 0);
      out = Math.max(sent, 0);
      if (http2 != null) {
        in += http2.bytesRead();
        out += http2.response().bytesWritten();
      }
    }
    StringBuilder b = lines.start(endMicros / 1000);
    b.append(type).append(' ');
    lines.time(endMicros).append(' ').append(lines.destination().loadBalancer()).append(' ');
    address(b, remote);
    b.append(' ').append(target == null ? "-" : target).append(' ');
    lines.seconds(sentNanos < 0 ? -1 : sentNanos - createdNanos).append(' ');
    lines.seconds(headNanos < 0 || sentNanos < 0 ? -1 : headNanos - sentNanos).append(' ');
    // The head goes on to the client in the tick it came in: no queuing to measure.
    b.append(headNanos < 0 ? "-1" : "0.000").append(' ');
    // An exchange that ended without any status went to a client that left first: ALB's 460.
    b.append(elbStatus == 0 ? InFlight.CLIENT_CLOSED : elbStatus).append(' ');
    targetStatus(b).append(' ').append(in).append(' ').append(out).append(' ');
    lines.quoted(request, MAX_FIELD).append(' ');
    lines.quoted(userAgent, MAX_USER_AGENT).append(' ');
    b.append(tls == null ? "-" : tls.cipherSuite()).append(' ').append(tls == null ? "-" : tls.version()).append(' ');
    b.append(groupArn == null ? "-" : groupArn).append(' ');
    lines.quoted(traceId, MAX_FIELD).append(' ');
    lines.quoted(serverName, MAX_FIELD).append(' ');
    lines.quoted(chosenCertificate, MAX_FIELD).append(' ');
    if (priority == NO_RULE) {
      b.append('-');
    } else {
      b.append(priority);
    }
    b.append(' ');
    lines.time(createdMillis * 1000).append(' ');
    lines.quoted(action, MAX_FIELD).append(' ');
    lines.quoted(redirectUrl, MAX_FIELD).append(' ');
    lines.quoted(errorReason, MAX_FIELD).append(' ');
    lines.quoted(target, MAX_FIELD).append(' ');
    targetStatus(b.append('"')).append("\" ");
    lines.quoted(classification, MAX_FIELD).append(' ');
    lines.quoted(classificationReason, MAX_FIELD).append(' ');
    b.append(connectionId);
    b.append(' ');
    lines.quoted(transformedHost, MAX_FIELD).append(' ');
    lines.quoted(transformedUri, MAX_FIELD).append(' ');
    lines.quoted(transformStatus, MAX_FIELD);
    lines.end();
  }

  /** The target's status, or {@code -} when there was none. */
  private StringBuilder targetStatus(StringBuilder b) {
    return targetStatus < 0 ? b.append('-') : b.append(targetStatus);
  }

  private static void address(StringBuilder b, SocketAddress a) {
    if (a == null || a.hostAddress() == null) {
      b.append('-');
      return;
    }
    String host = a.hostAddress();
    if (host.indexOf(':') >= 0) {
      b.append('[').append(host).append(']');
    } else {
      b.append(host);
    }
    b.append(':').append(a.port());
  }
}
