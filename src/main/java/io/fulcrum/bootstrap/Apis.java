package io.fulcrum.bootstrap;

import io.fulcrum.api.ElbApi;
import io.fulcrum.api.LoadBalancerOperations;
import io.fulcrum.api.SigV4;
import io.fulcrum.api.TargetGroupOperations;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.time.Timers;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Builds the ELBv2 API of a Fulcrum process with every operation it supports. */
final class Apis {

  private static final Logger LOG = LoggerFactory.getLogger(Apis.class);

  private Apis() {
  }

  static ElbApi create(Fulcrum fulcrum, FulcrumConfig config, Clock clock, Timers timers) {
    FulcrumConfig.Credentials c = config.credentials();
    if (c == null) {
      LOG.warn("no API credentials configured (credentials: or FULCRUM_ACCESS_KEY_ID / FULCRUM_SECRET_ACCESS_KEY):"
          + " every ELBv2 API request will be refused");
    }
    SigV4 sigv4 = new SigV4(c == null ? Map.of() : Map.of(c.accessKeyId(), c.secretAccessKey()),
        config.environment().region());
    ElbApi api = new ElbApi(new FulcrumApiContext(fulcrum, timers), sigv4, clock);
    TargetGroupOperations.register(api);
    LoadBalancerOperations.register(api);
    return api;
  }
}
