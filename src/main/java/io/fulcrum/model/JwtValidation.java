package io.fulcrum.model;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * ALB's {@code jwt-validation} action (ELBv2 {@code JwtValidationActionConfig}): a request passes on
 * to the rule's routing action only with an {@code Authorization: Bearer} JSON Web Token signed
 * (RS256) by a key of the JWKS endpoint, from {@code issuer}, unexpired, and with every additional
 * claim. It comes before the routing action, on HTTPS listeners only.
 *
 * @param jwksEndpoint     the {@code https://} URL of the JSON Web Key Set
 * @param issuer           the {@code iss} a token must have
 * @param additionalClaims further claims a token must have (at most {@value #MAX_CLAIMS})
 */
public record JwtValidation(String jwksEndpoint, String issuer, List<Claim> additionalClaims) implements Action {

  public static final String TYPE = "jwt-validation";
  public static final int MAX_LENGTH = 256;
  public static final int MAX_CLAIMS = 10;
  public static final int MAX_VALUES = 10;
  /** Claims checked always (or when present), which an additional claim may not name. */
  public static final List<String> STANDARD_CLAIMS = List.of("exp", "iss", "nbf", "iat");

  public JwtValidation {
    additionalClaims = List.copyOf(additionalClaims);
  }

  /** How a claim holds its values (ELBv2 {@code JwtValidationActionAdditionalClaimFormatEnum}). */
  public enum ClaimFormat implements WireEnum {
    /** A JSON string. */
    SINGLE_STRING("single-string"),
    /** A JSON array of strings. */
    STRING_ARRAY("string-array"),
    /** A JSON string of words separated by spaces, as OAuth's {@code scope}. */
    SPACE_SEPARATED_VALUES("space-separated-values");

    private final String wire;

    ClaimFormat(String wire) {
      this.wire = wire;
    }

    @Override
    public String wire() {
      return wire;
    }
  }

  /**
   * A claim a token must have: one of {@code values} (a single string equal to one of them; an
   * array, or a space-separated string, that holds at least one of them).
   */
  public record Claim(String name, ClaimFormat format, List<String> values) {
    public Claim {
      values = List.copyOf(values);
    }
  }

  @Override
  public String type() {
    return TYPE;
  }

  /**
   * Checks and builds the action: an {@code https://} endpoint with a host and at most
   * {@value #MAX_LENGTH} characters (at {@code jwks-endpoint}), an issuer of 1-{@value #MAX_LENGTH}
   * characters (at {@code issuer}), at most {@value #MAX_CLAIMS} additional claims, each with a name
   * that is not one of {@link #STANDARD_CLAIMS} and appears once, and 1-{@value #MAX_VALUES} values of
   * 1-{@value #MAX_LENGTH} characters (without spaces for {@code space-separated-values}), at
   * {@code additional-claims[i]}.
   *
   * @param claims the claims as read; a null entry is one whose own problems are already recorded
   * @return the action, or {@code null} when a problem was recorded
   */
  public static JwtValidation of(String jwksEndpoint, String issuer, List<Claim> claims, Problems p) {
    int before = p.size();
    HttpsUrls.check(jwksEndpoint, "a JWKS endpoint is required (an https:// URL)", MAX_LENGTH,
        p.at("jwks-endpoint"));
    if (issuer == null || issuer.isEmpty()) {
      p.at("issuer").add("an issuer is required (the iss claim tokens must have)");
    } else if (issuer.length() > MAX_LENGTH) {
      p.at("issuer").add(issuer.length() + " characters is above the maximum " + MAX_LENGTH);
    }
    if (claims.size() > MAX_CLAIMS) {
      p.at("additional-claims").add(claims.size() + " additional claims is above the maximum " + MAX_CLAIMS);
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < claims.size(); i++) {
      Claim c = claims.get(i);
      if (c == null) {
        continue;
      }
      Problems cp = p.at("additional-claims").at(i);
      if (c.name() == null || c.name().isEmpty()) {
        cp.at("name").add("a claim name is required");
      } else if (STANDARD_CLAIMS.contains(c.name())) {
        cp.at("name").add("'" + c.name() + "' is validated always; an additional claim cannot name exp, iss, nbf"
            + " or iat");
      } else if (!names.add(c.name())) {
        cp.at("name").add("claim '" + c.name() + "' appears twice");
      }
      if (c.format() == null) {
        cp.at("format").add("a format is required (expected one of: " + WireEnum.expected(ClaimFormat.class) + ")");
      }
      if (c.values().isEmpty() || c.values().size() > MAX_VALUES) {
        cp.at("values").add(c.values().size() + " values is outside 1-" + MAX_VALUES);
      }
      for (int v = 0; v < c.values().size(); v++) {
        String value = c.values().get(v);
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH) {
          cp.at("values").at(v).add("a value is 1-" + MAX_LENGTH + " characters");
        } else if (c.format() == ClaimFormat.SPACE_SEPARATED_VALUES && value.contains(" ")) {
          cp.at("values").at(v).add("'" + value + "' holds a space, which space-separated-values cannot match");
        }
      }
    }
    return p.size() > before || claims.contains(null) ? null : new JwtValidation(jwksEndpoint, issuer, claims);
  }
}
