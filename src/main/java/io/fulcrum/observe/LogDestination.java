package io.fulcrum.observe;

import io.fulcrum.model.Arns;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * Where the access log of one load balancer node goes (SPEC §11.5): a bucket, which here is a
 * directory, and the key ALB would write to in it. Immutable.
 *
 * @param bucket       {@code access_logs.s3.bucket}
 * @param prefix       {@code access_logs.s3.prefix}, {@code ""} for none
 * @param account      the account of the load balancer's ARN
 * @param region       the region of the load balancer's ARN
 * @param loadBalancer {@code app/<name>/<id>}
 * @param nodeAddress  the node's IP address
 */
public record LogDestination(String bucket, String prefix, String account, String region, String loadBalancer,
    String nodeAddress) {

  /** How long one file covers: ALB delivers a node's log every 5 minutes. */
  public static final long PERIOD_MILLIS = 5 * 60_000;

  /**
   * The destination of the node at {@code nodeAddress} of the load balancer that owns
   * {@code listenerArn} ({@code arn:aws:elasticloadbalancing:<region>:<account>:listener/app/<name>/<id>/<listener id>}).
   */
  public static LogDestination of(String bucket, String prefix, String listenerArn, String nodeAddress) {
    String[] arn = listenerArn.split(":", 6);
    return new LogDestination(bucket, prefix, arn[4], arn[3], Arns.loadBalancerDimension(listenerArn), nodeAddress);
  }

  /** The end of the period that {@code epochMillis} falls in. */
  public static long periodEnd(long epochMillis) {
    return Math.floorDiv(epochMillis, PERIOD_MILLIS) * PERIOD_MILLIS + PERIOD_MILLIS;
  }

  /**
   * The directory of the file that ends at {@code endMillis}, under {@code root} (where buckets are):
   * {@code bucket[/prefix]/AWSLogs/<account>/elasticloadbalancing/<region>/yyyy/mm/dd}.
   */
  public Path directory(Path root, long endMillis) {
    ZonedDateTime end = Instant.ofEpochMilli(endMillis).atZone(ZoneOffset.UTC);
    Path dir = root.resolve(bucket);
    if (!prefix.isEmpty()) {
      dir = dir.resolve(prefix);
    }
    return dir.resolve("AWSLogs").resolve(account).resolve("elasticloadbalancing").resolve(region)
        .resolve(String.format("%04d", end.getYear()))
        .resolve(String.format("%02d", end.getMonthValue()))
        .resolve(String.format("%02d", end.getDayOfMonth()));
  }

  /**
   * The file name ALB gives the log that ends at {@code endMillis}:
   * {@code <account>_elasticloadbalancing_<region>_app.<name>.<id>_<YYYYMMDDTHHMMZ>_<node ip>_<random>.log.gz}.
   */
  public String fileName(long endMillis, String random) {
    ZonedDateTime end = Instant.ofEpochMilli(endMillis).atZone(ZoneOffset.UTC);
    String time = String.format("%04d%02d%02dT%02d%02dZ", end.getYear(), end.getMonthValue(), end.getDayOfMonth(),
        end.getHour(), end.getMinute());
    return account + "_elasticloadbalancing_" + region + "_" + loadBalancer.replace('/', '.') + "_" + time + "_"
        + nodeAddress + "_" + random + ".log.gz";
  }
}
