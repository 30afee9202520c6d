package io.fulcrum.observe;

/**
 * The state of one target group behind one load balancer in one zone, as the registry sees it
 * when metrics are scraped (SPEC §10). Immutable.
 *
 * @param loadBalancer   the {@code LoadBalancer} dimension, {@code app/<name>/<id>}
 * @param targetGroup    the {@code TargetGroup} dimension, {@code targetgroup/<name>/<id>}
 * @param zone           the {@code AvailabilityZone} dimension: a zone of the load balancer (a
 *                       target registered in every zone, such as a Lambda function, counts in each)
 * @param healthChecked  whether the group's health checks are enabled: CloudWatch reports
 *                       {@code HealthyHostCount} and {@code UnHealthyHostCount} only then
 * @param healthy        targets passing their health checks
 * @param unhealthy      targets failing them
 * @param routingHealthy whether the zone meets the group's unhealthy-state routing threshold
 * @param dnsHealthy     whether the zone meets the group's DNS-failover threshold
 * @param anomalous      targets anomaly detection finds anomalous
 * @param mitigated      targets whose share mitigation has lowered
 */
public record GroupGauges(
    String loadBalancer,
    String targetGroup,
    String zone,
    boolean healthChecked,
    int healthy,
    int unhealthy,
    boolean routingHealthy,
    boolean dnsHealthy,
    int anomalous,
    int mitigated) {
}
