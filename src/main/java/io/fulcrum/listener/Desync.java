package io.fulcrum.listener;

import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.Iterator;
import java.util.Map;

/**
 * ALB's HTTP desync mitigation (SPEC §11.4, {@code routing.http.desync_mitigation_mode}): an
 * HTTP/1.x request is Compliant, Acceptable, Ambiguous or Severe, with the reason codes of AWS's
 * http_desync_guardian, and the mode says what becomes of it: {@code monitor} forwards every
 * request; {@code defensive} (the default) blocks Severe ones and forwards Ambiguous ones, then
 * closes the client connection and the target connection; {@code strictest} blocks all but
 * Compliant ones. Blocked is 400 and the connection closed.
 *
 * <p>Netty's HTTP decoder comes first and answers 400 (or 505) whatever the mode to much of what
 * the guardian calls Severe or Ambiguous: Transfer-Encoding beside Content-Length, duplicate or
 * listed Content-Lengths, a bad Content-Length, control characters or NUL in a header value, a
 * space in the URI; Fulcrum answers 501 to a Transfer-Encoding other than {@code chunked}. What
 * the decoder lets through is classified here: GET or HEAD with a body's framing
 * ({@code UndefinedContentLengthSemantics}, {@code UndefinedTransferEncodingSemantics}; with
 * {@code Content-Length: 0}, {@code GetHeadZeroContentLength}), header names that read as
 * Content-Length or Transfer-Encoding once normalized ({@code SuspiciousHeader}), control
 * characters in the URI ({@code AmbiguousUri}, {@code BadUri} for NUL, CR, LF). The guardian's
 * {@code NonCompliantHeader} (a control character or DEL in a value) is never given: the decoder
 * refuses such a value first; bytes past ASCII in a value are obs-text, Compliant as the guardian has
 * it (RFC 9110 §5.5). HTTP/2 requests are not classified, as the guardian's scope has it.
 */
final class Desync {

  private Desync() {
  }

  enum Tier { COMPLIANT, ACCEPTABLE, AMBIGUOUS, SEVERE }

  /** The classification of a request, and why. */
  record Verdict(Tier tier, String reason) {
    static final Verdict COMPLIANT = new Verdict(Tier.COMPLIANT, "Compliant");

    private Verdict worse(Tier t, String why) {
      return t.compareTo(tier) > 0 ? new Verdict(t, why) : this;
    }
  }

  /** The mitigation mode. */
  enum Mode {
    MONITOR, DEFENSIVE, STRICTEST;

    /** From the attribute's value (validated: {@code defensive} when absent or unknown). */
    static Mode of(String value) {
      if (value == null) {
        return DEFENSIVE;
      }
      return switch (value) {
        case "monitor" -> MONITOR;
        case "strictest" -> STRICTEST;
        default -> DEFENSIVE;
      };
    }
  }

  /** What the listener does with a request. */
  enum Action {
    FORWARD,
    /** Forward it, then close the client connection and the target connection. */
    FORWARD_THEN_CLOSE,
    /** 400, and the connection closes. */
    BLOCK
  }

  static Action action(Mode mode, Tier tier) {
    return switch (mode) {
      case MONITOR -> Action.FORWARD;
      case DEFENSIVE -> switch (tier) {
        case SEVERE -> Action.BLOCK;
        case AMBIGUOUS -> Action.FORWARD_THEN_CLOSE;
        default -> Action.FORWARD;
      };
      case STRICTEST -> tier == Tier.COMPLIANT ? Action.FORWARD : Action.BLOCK;
    };
  }

  /**
   * Classifies an HTTP/1.x request the decoder let through (the access log's
   * {@code classification} and {@code classification_reason}); the mode says what becomes of it
   * ({@link #action}). Monitor mode classifies too, for the metric it is there to watch.
   */
  static Verdict verdict(String method, String uri, MultiMap headers) {
    Verdict v = Verdict.COMPLIANT;
    for (int i = 0; i < uri.length(); i++) {
      char c = uri.charAt(i);
      if (c == 0 || c == '\r' || c == '\n') {
        return new Verdict(Tier.SEVERE, "BadUri");
      }
      if (c < 0x20 || c == 0x7f) {
        v = v.worse(Tier.AMBIGUOUS, "AmbiguousUri");
      } else if (c == ' ') {
        v = v.worse(Tier.ACCEPTABLE, "SpaceInUri");
      }
    }
    if (method.equals("GET") || method.equals("HEAD")) {
      String length = headers.get(HttpHeaders.CONTENT_LENGTH);
      if (length != null) {
        v = length.trim().equals("0") ? v.worse(Tier.ACCEPTABLE, "GetHeadZeroContentLength")
            : v.worse(Tier.AMBIGUOUS, "UndefinedContentLengthSemantics");
      }
      if (headers.contains(HttpHeaders.TRANSFER_ENCODING)) {
        v = v.worse(Tier.AMBIGUOUS, "UndefinedTransferEncodingSemantics");
      }
    }
    // As the decoder stored them: no String made of each name and value.
    Iterator<? extends Map.Entry<? extends CharSequence, ? extends CharSequence>> it =
        headers instanceof io.netty.handler.codec.http.HttpHeaders stored ? stored.iteratorCharSequence()
            : headers.iterator();
    while (it.hasNext()) {
      Map.Entry<? extends CharSequence, ? extends CharSequence> h = it.next();
      if (suspicious(h.getKey())) {
        v = v.worse(Tier.AMBIGUOUS, "SuspiciousHeader");
      }
    }
    return v;
  }

  /**
   * Whether a header name reads as Content-Length or Transfer-Encoding once its case and every
   * character but letters and digits are set aside, without being one ({@code Content_Length},
   * {@code Transfer.Encoding}, {@code ContentLength}).
   */
  static boolean suspicious(CharSequence name) {
    int n = name.length();
    if (n < 13 || n > 24) {
      return false; // "contentlength" has 13 letters, "transfer-encoding" 17 characters
    }
    char first = (char) (name.charAt(0) | 0x20);
    if (first != 'c' && first != 't') {
      return false;
    }
    if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaders.CONTENT_LENGTH)
        || AsciiString.contentEqualsIgnoreCase(name, HttpHeaders.TRANSFER_ENCODING)) {
      return false;
    }
    StringBuilder letters = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      char c = name.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        letters.append((char) (c | 0x20));
      } else if (c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
        letters.append(c);
      }
    }
    String s = letters.toString();
    return s.equals("contentlength") || s.equals("transferencoding");
  }
}
