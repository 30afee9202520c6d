package io.fulcrum.bus;

/**
 * How one request a listener routed to a target group ended, for whoever watches exchanges from
 * another verticle (tests record them; the access log and metrics are kept on each event loop). Published, local only, on {@link Addresses#EXCHANGES} by the listener
 * verticle once the exchange ends, while anyone has subscribed through
 * {@link ExchangeOutcomes#subscribe} (nothing is built otherwise). Immutable.
 *
 * @param loadBalancer      the load balancer's name
 * @param targetGroupArn    the target group the request went to
 * @param target            {@code ip:port} of the target, or {@code null} when none was reached or the
 *                          target is a Lambda function (the log prints {@code -})
 * @param method            the request method
 * @param uri               the request target as the client sent it
 * @param elbStatusCode     the status the client got; 0 when the exchange was cut before a status
 * @param targetStatusCode  the status the target (or function) answered with, or -1
 * @param errorReason       the access log's {@code error_reason} ({@code LambdaUnhandled}, ...), or
 *                          {@code null} ({@code -})
 */
public record ExchangeOutcome(
    String loadBalancer,
    String targetGroupArn,
    String target,
    String method,
    String uri,
    int elbStatusCode,
    int targetStatusCode,
    String errorReason) {
}
