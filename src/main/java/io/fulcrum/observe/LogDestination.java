package io.fulcrum.observe;

import io.fulcrum.model.Arns;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * Where a log of one load balancer node goes (SPEC §11.5): a bucket, which here is a directory,
 * and the key ALB would write to in it. The access log's files and the health check log's differ
 * by the start of their names. Immutable.
 *
 * @param bucket       the log's {@code .s3.bucket} ({@code access_logs.s3.bucket}, {@code health_check_logs.s3.bucket})
 * @param prefix       the log's {@code .s3.prefix}, {@code ""} for none
 * @param account      the account of the load balancer's ARN
 * @param region       the region of the load balancer's ARN
 * @param loadBalancer {@code app/<name>/<id>}
 * @param nodeAddress  the node's IP address
 * @param kind         which log: the start of its files' names ({@code ""} for the access log,
 *                     {@code health_check_log_} for the health check log, {@code conn_log.} for the
 *                     connection log)
 */
public record LogDestination(String bucket, String prefix, String account, String region, String loadBalancer,
    String nodeAddress, String kind) {

  /** The access log's files start with the account. */
  public static final String ACCESS_LOG = "";
  /** The health check log's files start with {@code health_check_log_}. */
  public static final String HEALTH_CHECK_LOG = "health_check_log_";
  /** The connection log's files start with {@code conn_log.}. */
  public static final String CONNECTION_LOG = "conn_log.";

  /** An access log's destination. */
  public LogDestination(String bucket, String prefix, String account, String region, String loadBalancer,
      String nodeAddress) {
    this(bucket, prefix, account, region, loadBalancer, nodeAddress, ACCESS_LOG);
  }

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

  /** The health check log's destination for the node at {@code nodeAddress} of the load balancer {@code lbArn}. */
  public static LogDestination healthChecks(String bucket, String prefix, String lbArn, String nodeAddress) {
    String[] arn = lbArn.split(":", 6);
    return new LogDestination(bucket, prefix, arn[4], arn[3], Arns.loadBalancerDimension(lbArn), nodeAddress,
        HEALTH_CHECK_LOG);
  }

  /** The connection log's destination for the node at {@code nodeAddress} of the load balancer that owns {@code listenerArn}. */
  public static LogDestination connections(String bucket, String prefix, String listenerArn, String nodeAddress) {
    LogDestination access = of(bucket, prefix, listenerArn, nodeAddress);
    return new LogDestination(bucket, prefix, access.account(), access.region(), access.loadBalancer(), nodeAddress,
        CONNECTION_LOG);
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
   * {@code [health_check_log_]<account>_elasticloadbalancing_<region>_app.<name>.<id>_<YYYYMMDDTHHMMZ>_<node ip>_<random>.log.gz}.
   */
  public String fileName(long endMillis, String random) {
    ZonedDateTime end = Instant.ofEpochMilli(endMillis).atZone(ZoneOffset.UTC);
    String time = String.format("%04d%02d%02dT%02d%02dZ", end.getYear(), end.getMonthValue(), end.getDayOfMonth(),
        end.getHour(), end.getMinute());
    return kind + account + "_elasticloadbalancing_" + region + "_" + loadBalancer.replace('/', '.') + "_" + time + "_"
        + nodeAddress + "_" + random + ".log.gz";
  }
}
