package io.fulcrum.model;

/**
 * A target's anomaly detection result as DescribeTargetHealth reports it with
 * {@code Include=AnomalyDetection}: {@code Result} {@code anomalous}/{@code normal} and
 * {@code MitigationInEffect} {@code yes}/{@code no} (SPEC §2.3, §4.5).
 */
public record AnomalyDetection(boolean anomalous, boolean mitigationInEffect) {

  public static final AnomalyDetection NORMAL = new AnomalyDetection(false, false);

  public String result() {
    return anomalous ? "anomalous" : "normal";
  }

  public String mitigation() {
    return mitigationInEffect ? "yes" : "no";
  }
}
