package io.fulcrum.api;

import io.fulcrum.model.Action;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import io.fulcrum.model.RuleTransform;
import io.fulcrum.model.WireEnum;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Rule operations: CreateRule, DescribeRules, ModifyRule, DeleteRule, SetRulePriorities. A
 * listener's default actions show as its default rule (priority {@code default}, {@code IsDefault}
 * true), which ModifyRule may change the actions of, and which cannot be deleted or reordered. A rule
 * keeps its ARN whatever its priority.
 */
final class RuleOperations {

  private RuleOperations() {
  }

  static void register(ElbApi api) {
    api.register("CreateRule", RuleOperations::create)
        .register("DescribeRules", RuleOperations::describe)
        .register("ModifyRule", RuleOperations::modify)
        .register("DeleteRule", RuleOperations::delete)
        .register("SetRulePriorities", RuleOperations::setPriorities);
  }

  private static int priority(QueryParams p, String member, String awsName) {
    Integer priority = p.integer(member);
    if (priority == null) {
      throw ApiError.constraint(null, awsName, "not be null");
    }
    if (priority < Rule.MIN_PRIORITY || priority > Rule.MAX_PRIORITY) {
      throw ApiError.constraint(priority, awsName, priority < Rule.MIN_PRIORITY
          ? "have value greater than or equal to " + Rule.MIN_PRIORITY
          : "have value less than or equal to " + Rule.MAX_PRIORITY);
    }
    return priority;
  }

  /**
   * A rule's {@code Transforms}: each a {@code Type} and the one rewrite ({@code Regex},
   * {@code Replace}) of its {@code HostHeaderRewriteConfig} or {@code UrlRewriteConfig}, checked as
   * the config file's are ({@link RuleTransform#validate}).
   */
  static List<RuleTransform> transforms(QueryParams p) {
    List<RuleTransform> out = new ArrayList<>();
    List<QueryParams> given = p.structs("Transforms");
    for (int i = 0; i < given.size(); i++) {
      QueryParams t = given.get(i);
      String where = "Transforms.member." + (i + 1);
      String typeName = t.string("Type");
      RuleTransform.Type type = typeName == null ? null
          : WireEnum.parse(RuleTransform.Type.class, typeName).orElse(null);
      if (type == null) {
        throw ApiError.validation(where + ".Type: " + (typeName == null ? "a type is required" : "'" + typeName
            + "' is not a transform") + " (expected: host-header-rewrite or url-rewrite)");
      }
      String config = type == RuleTransform.Type.URL_REWRITE ? "UrlRewriteConfig" : "HostHeaderRewriteConfig";
      List<QueryParams> rewrites = t.struct(config).structs("Rewrites");
      if (rewrites.size() != 1) {
        throw ApiError.validation(where + "." + config + ".Rewrites: exactly one rewrite is expected, not "
            + rewrites.size());
      }
      String regex = rewrites.get(0).string("Regex");
      String replace = rewrites.get(0).string("Replace");
      if (regex == null || replace == null) {
        throw ApiError.validation(where + "." + config + ".Rewrites.member.1: Regex and Replace are required");
      }
      out.add(new RuleTransform(type, regex, replace));
    }
    Problems problems = new Problems();
    RuleTransform.validate(out, problems.at("transforms"));
    ModelProblems.throwFirst(problems, 0);
    return out;
  }

  private static void checkPriorityFree(Listener l, int priority) {
    for (Rule rule : l.rules()) {
      if (rule.priority() == priority) {
        throw LbResources.refusal("PriorityInUse", "Priority '" + priority + "' is currently in use");
      }
    }
  }

  static Future<List<Xml>> create(QueryParams p, ApiContext ctx) {
    String listenerArn = p.required("ListenerArn");
    if (!p.has("Conditions") && p.structs("Conditions").isEmpty()) {
      p.required("Conditions");
    }
    List<RuleCondition> conditions = ConditionsParser.parse(p, "Conditions");
    int priority = priority(p, "Priority", "priority");
    List<Action> actions = ActionsParser.parse(p, "Actions");
    List<RuleTransform> transforms = transforms(p);
    Map<String, String> tags = ResourceTagList.parse(p, "Tags");
    Environment env = ctx.environment();
    AtomicReference<String> created = new AtomicReference<>();
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, listenerArn);
      checkPriorityFree(ref.listener(), priority);
      List<Action> resolved = LbResources.resolve(r, actions);
      LoadBalancer lb = ref.lb();
      String arn = env.arns().rule(lb.type(), lb.name(), Arns.idOf(lb.arn()), Arns.idOf(ref.listener().arn()),
          LbResources.newId(r));
      List<Rule> rules = new ArrayList<>(ref.listener().rules());
      rules.add(new Rule(arn, priority, conditions, resolved, transforms));
      created.set(arn);
      return LbResources.withTags(LbResources.replace(r, lb, ref.listener().withRules(rules)), arn, tags);
    }).map(r -> List.of(Xml.list("Rules", List.of(LbResources.rule(r, env, created.get())), RuleOperations::xml)));
  }

  private static Xml xml(LbResources.RuleRef ref) {
    return ref.isDefault() ? LoadBalancerXml.defaultRule(ref.arn(), ref.listener()) : LoadBalancerXml.rule(ref.rule());
  }

  /** A listener's rules by priority, then its default rule; or the rules named, in the order named. */
  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    String listenerArn = p.string("ListenerArn");
    List<String> arns = p.strings("RuleArns");
    if (listenerArn != null && !arns.isEmpty()) {
      throw ApiError.validation("Rule ARNs and a listener ARN cannot be specified at the same time");
    }
    if (listenerArn == null && arns.isEmpty()) {
      throw ApiError.validation("You must specify either rule ARNs or a listener ARN");
    }
    Resources r = ctx.resources();
    Environment env = ctx.environment();
    List<LbResources.RuleRef> selected = new ArrayList<>();
    if (listenerArn != null) {
      LbResources.ListenerRef ref = LbResources.listener(r, listenerArn);
      ref.listener().rules().forEach(rule -> selected.add(new LbResources.RuleRef(ref.lb(), ref.listener(), rule,
          rule.arn())));
      selected.add(new LbResources.RuleRef(ref.lb(), ref.listener(), null,
          LbResources.defaultRuleArn(env, ref.lb(), ref.listener())));
    } else {
      new LinkedHashSet<>(arns).forEach(arn -> selected.add(LbResources.rule(r, env, arn)));
    }
    MarkerPaging.Page<LbResources.RuleRef> page = MarkerPaging.page(selected, p);
    return Future.succeededFuture(List.of(Xml.list("Rules", page.items(), RuleOperations::xml),
        Xml.text("NextMarker", page.nextMarker())));
  }

  /**
   * Replaces the conditions or actions given; the rest stays. On a default rule only the actions may
   * change (they are the listener's default actions).
   */
  static Future<List<Xml>> modify(QueryParams p, ApiContext ctx) {
    String arn = p.required("RuleArn");
    List<RuleCondition> conditions = p.hasAny("Conditions") ? ConditionsParser.parse(p, "Conditions") : null;
    List<Action> actions = p.hasAny("Actions") ? ActionsParser.parseChange(p, "Actions") : null;
    List<RuleTransform> transforms = p.hasAny("Transforms") ? transforms(p) : null;
    boolean reset = Boolean.TRUE.equals(p.bool("ResetTransforms"));
    if (reset && transforms != null) {
      throw ApiError.validation("Transforms and ResetTransforms cannot be given together");
    }
    Environment env = ctx.environment();
    return ctx.mutate(r -> {
      LbResources.RuleRef ref = LbResources.rule(r, env, arn);
      Listener l = ref.listener();
      if (ref.isDefault()) {
        if (conditions != null) {
          throw LbResources.refusal("OperationNotPermitted", "The conditions of a default rule cannot be changed");
        }
        if (transforms != null) {
          throw LbResources.refusal("OperationNotPermitted", "A default rule cannot have transforms");
        }
        if (actions == null) {
          return r;
        }
        List<Action> given = ActionsParser.keepingSecret(actions, l.defaultActions(), "Actions");
        Listener next = new Listener(l.arn(), l.protocol(), l.port(), LbResources.resolve(r, given), l.rules(),
            l.certificates(), l.sslPolicy(), l.h2c(), l.attributes(), l.alpnPolicy(), l.mutualAuthentication());
        return next.equals(l) ? r : LbResources.replace(r, ref.lb(), next);
      }
      Rule old = ref.rule();
      Rule next = new Rule(old.arn(), old.priority(), conditions == null ? old.conditions() : conditions,
          actions == null ? old.actions()
              : LbResources.resolve(r, ActionsParser.keepingSecret(actions, old.actions(), "Actions")),
          reset ? List.of() : transforms == null ? old.transforms() : transforms);
      if (next.equals(old)) {
        return r;
      }
      List<Rule> rules = new ArrayList<>();
      l.rules().forEach(rule -> rules.add(rule == old ? next : rule));
      return LbResources.replace(r, ref.lb(), l.withRules(rules));
    }).map(r -> List.of(Xml.list("Rules", List.of(LbResources.rule(r, env, arn)), RuleOperations::xml)));
  }

  static Future<List<Xml>> delete(QueryParams p, ApiContext ctx) {
    String arn = p.required("RuleArn");
    Environment env = ctx.environment();
    return ctx.mutate(r -> {
      LbResources.RuleRef ref = LbResources.rule(r, env, arn);
      if (ref.isDefault()) {
        throw LbResources.refusal("OperationNotPermitted", "The default rule of a listener cannot be deleted");
      }
      List<Rule> rules = new ArrayList<>(ref.listener().rules());
      rules.remove(ref.rule());
      return LbResources.withoutTags(LbResources.replace(r, ref.lb(), ref.listener().withRules(rules)), List.of(arn));
    }).map(r -> List.of());
  }

  /**
   * Sets the priorities of several rules at once: all change or none does. Rules not named keep
   * theirs; two rules of one listener may not end with the same priority ({@code PriorityInUse}).
   */
  static Future<List<Xml>> setPriorities(QueryParams p, ApiContext ctx) {
    List<QueryParams> pairs = p.structs("RulePriorities");
    if (pairs.isEmpty()) {
      p.required("RulePriorities");
      throw ApiError.validation("At least one rule priority must be specified");
    }
    Map<String, Integer> wanted = new LinkedHashMap<>();
    for (int i = 0; i < pairs.size(); i++) {
      String where = "rulePriorities." + (i + 1) + ".member.";
      String arn = pairs.get(i).string("RuleArn");
      if (arn == null) {
        throw ApiError.constraint(null, where + "ruleArn", "not be null");
      }
      if (wanted.put(arn, priority(pairs.get(i), "Priority", where + "priority")) != null) {
        throw ApiError.validation("Rule '" + arn + "' is given more than once");
      }
    }
    Environment env = ctx.environment();
    return ctx.mutate(r -> {
      Map<String, Map<String, Integer>> byListener = new LinkedHashMap<>();
      wanted.forEach((arn, priority) -> {
        LbResources.RuleRef ref = LbResources.rule(r, env, arn);
        if (ref.isDefault()) {
          throw LbResources.refusal("OperationNotPermitted", "The priority of a default rule cannot be changed");
        }
        byListener.computeIfAbsent(ref.listener().arn(), k -> new LinkedHashMap<>()).put(arn, priority);
      });
      Resources out = r;
      for (Map.Entry<String, Map<String, Integer>> e : byListener.entrySet()) {
        LbResources.ListenerRef ref = LbResources.listener(out, e.getKey());
        List<Rule> rules = new ArrayList<>();
        Set<Integer> taken = new HashSet<>();
        for (Rule rule : ref.listener().rules()) {
          Integer priority = e.getValue().get(rule.arn());
          Rule next = priority == null ? rule : rule.withPriority(priority);
          if (!taken.add(next.priority())) {
            throw LbResources.refusal("PriorityInUse", "Priority '" + next.priority() + "' is currently in use");
          }
          rules.add(next);
        }
        out = LbResources.replace(out, ref.lb(), ref.listener().withRules(rules));
      }
      return out;
    }).map(r -> {
      List<LbResources.RuleRef> changed = new ArrayList<>();
      wanted.keySet().forEach(arn -> changed.add(LbResources.rule(r, env, arn)));
      return List.of(Xml.list("Rules", changed, RuleOperations::xml));
    });
  }
}
