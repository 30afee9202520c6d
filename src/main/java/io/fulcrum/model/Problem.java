package io.fulcrum.model;

/**
 * One thing wrong with a configuration or an API request: where it is, which AWS error code a
 * client of the ELBv2 API would see for it, and what was expected.
 *
 * @param path    the key path, e.g. {@code target-groups[2].health-check.interval-seconds}
 * @param code    the ELBv2 error code ({@code ValidationError}, {@code InvalidConfigurationRequest}, ...)
 * @param message what is wrong and what was expected
 */
public record Problem(String path, String code, String message) {

  public static final String VALIDATION_ERROR = "ValidationError";
  public static final String INVALID_CONFIGURATION = "InvalidConfigurationRequest";
  public static final String INVALID_TARGET = "InvalidTarget";

  @Override
  public String toString() {
    return path.isEmpty() ? message : path + ": " + message;
  }
}
