package io.fulcrum.api;

import io.fulcrum.model.Listener;
import io.fulcrum.model.ListenerAttributes;
import io.fulcrum.model.Problems;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;

/**
 * DescribeListenerAttributes and ModifyListenerAttributes ({@link ListenerAttributes}): an HTTP or
 * HTTPS listener's header modification, a TCP, TLS or TCP_UDP listener's idle timeout. A change
 * applies to requests (and flows) from then on, on connections already open too.
 */
final class ListenerAttributeOperations {

  private ListenerAttributeOperations() {
  }

  static void register(ElbApi api) {
    api.register("DescribeListenerAttributes", ListenerAttributeOperations::describe)
        .register("ModifyListenerAttributes", ListenerAttributeOperations::modify);
  }

  /** Every attribute of the listener, defaults included. */
  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    Listener l = LbResources.listener(ctx.resources(), p.required("ListenerArn")).listener();
    return Future.succeededFuture(List.of(LoadBalancerXml.attributes(l.attributes().asMap())));
  }

  /**
   * Changes the attributes given; the others keep their values. A key of the other kind of
   * listener, or a value its header's syntax refuses, changes nothing. Answers with the whole set.
   */
  static Future<List<Xml>> modify(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    Map<String, String> changes = LoadBalancerOperations.attributeChanges(p);
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, arn);
      Listener l = ref.listener();
      Problems problems = new Problems();
      ListenerAttributes next = ListenerAttributes.resolve(l.protocol(), l.attributes(), changes, problems);
      LoadBalancerOperations.refuseAttributes(problems, "Listener");
      return next.equals(l.attributes()) ? r : LbResources.replace(r, ref.lb(), l.withAttributes(next));
    }).map(r -> List.of(LoadBalancerXml.attributes(LbResources.listener(r, arn).listener().attributes().asMap())));
  }
}
