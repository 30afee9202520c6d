package io.fulcrum.registry;

import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Rule;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TrustStore;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What a change of the resources (an API call, a configuration reload) changed, as the journal
 * records it: load balancers, listeners (their rules counted), target groups (attributes and
 * health check settings named, old and new value) and registered targets. Deregistered targets
 * are not listed here: their draining is an event of its own.
 */
final class ResourceChanges {

  /** One change; fields that do not apply are null. */
  record Change(String type, String loadBalancer, String targetGroup, String target, String zone,
      String description) {
  }

  static final String LOAD_BALANCER_CREATED = "LoadBalancerCreated";
  static final String LOAD_BALANCER_DELETED = "LoadBalancerDeleted";
  static final String LOAD_BALANCER_MODIFIED = "LoadBalancerModified";
  static final String LISTENER_CREATED = "ListenerCreated";
  static final String LISTENER_DELETED = "ListenerDeleted";
  static final String LISTENER_MODIFIED = "ListenerModified";
  static final String TARGET_GROUP_CREATED = "TargetGroupCreated";
  static final String TARGET_GROUP_DELETED = "TargetGroupDeleted";
  static final String TARGET_GROUP_MODIFIED = "TargetGroupModified";
  static final String TARGET_REGISTERED = "TargetRegistered";

  private ResourceChanges() {
  }

  /** Every change from {@code before} to {@code after}, load balancers first. */
  static List<Change> between(Resources before, Resources after) {
    List<Change> out = new ArrayList<>();
    Map<String, LoadBalancer> oldLbs = byArn(before.loadBalancers(), LoadBalancer::arn);
    Map<String, LoadBalancer> newLbs = byArn(after.loadBalancers(), LoadBalancer::arn);
    for (LoadBalancer lb : after.loadBalancers()) {
      LoadBalancer was = oldLbs.get(lb.arn());
      if (was == null) {
        out.add(new Change(LOAD_BALANCER_CREATED, lb.name(), null, null, null,
            lb.listeners().size() + " listener(s), zones " + String.join(", ", lb.zones())));
      } else {
        loadBalancer(was, lb, out);
      }
    }
    for (LoadBalancer lb : before.loadBalancers()) {
      if (!newLbs.containsKey(lb.arn())) {
        out.add(new Change(LOAD_BALANCER_DELETED, lb.name(), null, null, null, null));
      }
    }
    Map<String, TargetGroup> oldGroups = byArn(before.targetGroups(), TargetGroup::arn);
    Map<String, TargetGroup> newGroups = byArn(after.targetGroups(), TargetGroup::arn);
    for (TargetGroup g : after.targetGroups()) {
      TargetGroup was = oldGroups.get(g.arn());
      if (was == null) {
        out.add(new Change(TARGET_GROUP_CREATED, null, g.name(), null, null, g.targets().size() + " target(s)"));
      } else {
        targetGroup(was, g, out);
      }
      Map<String, Target> registered = was == null ? Map.of() : byArn(was.targets(), Target::key);
      for (Target t : g.targets()) {
        if (!registered.containsKey(t.key())) {
          out.add(new Change(TARGET_REGISTERED, null, g.name(), t.key(), Journal.zoneOf(t), null));
        }
      }
    }
    for (TargetGroup g : before.targetGroups()) {
      if (!newGroups.containsKey(g.arn())) {
        out.add(new Change(TARGET_GROUP_DELETED, null, g.name(), null, null, null));
      }
    }
    return out;
  }

  private static void loadBalancer(LoadBalancer was, LoadBalancer now, List<Change> out) {
    List<String> what = new ArrayList<>();
    if (!was.zones().equals(now.zones())) {
      what.add("zones " + String.join(", ", was.zones()) + " \u2192 " + String.join(", ", now.zones()));
    }
    what.addAll(mapChanges(was.attributes().asMap(), now.attributes().asMap()));
    if (!what.isEmpty()) {
      out.add(new Change(LOAD_BALANCER_MODIFIED, now.name(), null, null, null, String.join("; ", what)));
    }
    Map<String, Listener> old = byArn(was.listeners(), Listener::arn);
    Map<String, Listener> current = byArn(now.listeners(), Listener::arn);
    for (Listener l : now.listeners()) {
      Listener before = old.get(l.arn());
      if (before == null) {
        out.add(new Change(LISTENER_CREATED, now.name(), null, null, null, name(l) + ", " + l.rules().size()
            + " rule(s)"));
      } else if (!before.equals(l)) {
        out.add(new Change(LISTENER_MODIFIED, now.name(), null, null, null, name(l) + ": "
            + String.join("; ", listenerChanges(before, l))));
      }
    }
    for (Listener l : was.listeners()) {
      if (!current.containsKey(l.arn())) {
        out.add(new Change(LISTENER_DELETED, now.name(), null, null, null, name(l)));
      }
    }
  }

  private static String name(Listener l) {
    return l.protocol().wire() + ":" + l.port();
  }

  private static List<String> listenerChanges(Listener was, Listener now) {
    List<String> what = new ArrayList<>();
    if (was.protocol() != now.protocol() || was.port() != now.port()) {
      what.add("was " + name(was));
    }
    if (!was.defaultActions().equals(now.defaultActions())) {
      what.add("default actions");
    }
    Map<String, Rule> old = byArn(was.rules(), Rule::arn);
    Map<String, Rule> current = byArn(now.rules(), Rule::arn);
    long added = now.rules().stream().filter(r -> !old.containsKey(r.arn())).count();
    long removed = was.rules().stream().filter(r -> !current.containsKey(r.arn())).count();
    long changed = now.rules().stream().filter(r -> old.containsKey(r.arn()) && !old.get(r.arn()).equals(r)).count();
    if (added + removed + changed > 0) {
      what.add("rules: " + added + " added, " + removed + " deleted, " + changed + " changed");
    }
    if (!was.certificates().equals(now.certificates())) {
      what.add("certificates");
    }
    if (!Objects.equals(was.sslPolicy(), now.sslPolicy())) {
      what.add("security policy " + was.sslPolicy() + " \u2192 " + now.sslPolicy());
    }
    if (was.alpnPolicy() != now.alpnPolicy()) {
      what.add("ALPN policy " + alpnName(was) + " \u2192 " + alpnName(now));
    }
    if (was.h2c() != now.h2c()) {
      what.add("h2c " + was.h2c() + " \u2192 " + now.h2c());
    }
    if (!was.mutualAuthentication().equals(now.mutualAuthentication())) {
      String before = mtls(was);
      String after = mtls(now);
      TrustStore store = now.mutualAuthentication().trustStore();
      what.add(!before.equals(after) ? "mutual authentication " + before + " \u2192 " + after
          : "trust store " + store.name() + " read again (" + store.caCount() + " CA certificates, "
              + store.revokedCount() + " revoked)");
    }
    return what;
  }

  /** A listener's mutual TLS in a few words: its mode, and in verify mode its trust store and options. */
  private static String mtls(Listener l) {
    MutualAuthentication m = l.mutualAuthentication();
    if (m.trustStore() == null) {
      return m.mode().wire();
    }
    return m.mode().wire() + " (" + m.trustStore().name() + (m.ignoreClientCertificateExpiry() ? ", expiry ignored" : "")
        + (m.advertiseTrustStoreCaNames() ? ", CA names advertised" : "") + ")";
  }

  private static String alpnName(Listener l) {
    return l.alpnPolicy() == null ? null : l.alpnPolicy().wire();
  }

  private static void targetGroup(TargetGroup was, TargetGroup now, List<Change> out) {
    List<String> what = mapChanges(was.attributes().asMap(), now.attributes().asMap());
    if (!was.healthCheck().equals(now.healthCheck())) {
      what.addAll(healthCheckChanges(was.healthCheck(), now.healthCheck()));
    }
    if (!what.isEmpty()) {
      out.add(new Change(TARGET_GROUP_MODIFIED, null, now.name(), null, null, String.join("; ", what)));
    }
  }

  /** Each health check setting that differs, as {@code health check <setting> <old> → <new>}. */
  private static List<String> healthCheckChanges(HealthCheck was, HealthCheck now) {
    List<String> what = new ArrayList<>();
    for (RecordComponent c : HealthCheck.class.getRecordComponents()) {
      try {
        Object a = c.getAccessor().invoke(was);
        Object b = c.getAccessor().invoke(now);
        if (!Objects.equals(a, b)) {
          what.add("health check " + c.getName() + " " + a + " \u2192 " + b);
        }
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e); // public accessors of a record
      }
    }
    return what;
  }

  /** Each key whose value differs, in key order: {@code key old → new} ({@code -} for absent). */
  private static List<String> mapChanges(Map<String, String> was, Map<String, String> now) {
    List<String> what = new ArrayList<>();
    TreeSet<String> keys = new TreeSet<>(was.keySet());
    keys.addAll(now.keySet());
    for (String k : keys) {
      String a = was.get(k);
      String b = now.get(k);
      if (!Objects.equals(a, b)) {
        what.add(k + " " + (a == null ? "-" : a) + " \u2192 " + (b == null ? "-" : b));
      }
    }
    return what;
  }

  private static <T> Map<String, T> byArn(List<T> items, Function<T, String> key) {
    Map<String, T> out = new LinkedHashMap<>();
    items.forEach(i -> out.put(key.apply(i), i));
    return out;
  }
}
