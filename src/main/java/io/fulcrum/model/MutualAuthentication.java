package io.fulcrum.model;

import java.util.Arrays;
import java.util.List;

/**
 * An HTTPS listener's mutual TLS (ALB's {@code MutualAuthenticationAttributes}).
 *
 * @param mode                     off, passthrough (any client certificate is asked for, none
 *                                 checked, and the chain goes to the target) or verify (a
 *                                 certificate that chains to the trust store is required)
 * @param trustStore               verify mode's trust store; null otherwise
 * @param ignoreClientCertificateExpiry verify mode: a client certificate past its validity (or
 *                                 not yet in it) is accepted
 * @param advertiseTrustStoreCaNames verify mode: the handshake's certificate request names the
 *                                 trust store's CAs, so clients can pick a certificate
 */
public record MutualAuthentication(Mode mode, TrustStore trustStore, boolean ignoreClientCertificateExpiry,
    boolean advertiseTrustStoreCaNames) {

  /** No mutual TLS, as a listener has without the setting. */
  public static final MutualAuthentication OFF = new MutualAuthentication(Mode.OFF, null, false, false);

  /** The modes, as the API and the config file name them. */
  public enum Mode {
    OFF("off"), PASSTHROUGH("passthrough"), VERIFY("verify");

    private final String wire;

    Mode(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }

    /** The mode named {@code wire} (as AWS spells it, lower case), or null. */
    public static Mode named(String wire) {
      return Arrays.stream(values()).filter(m -> m.wire.equals(wire)).findFirst().orElse(null);
    }

    /** What a caller is told of a name that is no mode. */
    public static String unknown(String name) {
      return "'" + name + "' is not a mutual authentication mode (expected one of: "
          + String.join(", ", Arrays.stream(values()).map(Mode::wire).toList()) + ")";
    }
  }

  /** Whether the listener asks clients for certificates. */
  public boolean on() {
    return mode != Mode.OFF;
  }

  /** ALB's {@code AdvertiseTrustStoreCaNames} value. */
  public String advertiseWire() {
    return advertiseTrustStoreCaNames ? "on" : "off";
  }

  /**
   * Checks how the parts fit together, as ELBv2 does.
   *
   * @return what is wrong, or null
   */
  public static String problem(Mode mode, boolean trustStoreGiven, Boolean ignoreExpiry, String advertise) {
    if (mode == Mode.VERIFY && !trustStoreGiven) {
      return "verify mode needs a trust store";
    }
    if (mode != Mode.VERIFY && trustStoreGiven) {
      return "a trust store is only used in verify mode";
    }
    if (mode != Mode.VERIFY && Boolean.TRUE.equals(ignoreExpiry)) {
      return "ignoring client certificate expiry applies to verify mode only";
    }
    if (advertise != null && !List.of("on", "off").contains(advertise)) {
      return "advertising the trust store's CA names is 'on' or 'off', not '" + advertise + "'";
    }
    if (mode != Mode.VERIFY && "on".equals(advertise)) {
      return "advertising the trust store's CA names applies to verify mode only";
    }
    return null;
  }
}
