package io.fulcrum.api;

import io.fulcrum.model.Cidr;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code Conditions} parameter of CreateRule and ModifyRule. Each condition names its
 * {@code Field} and gives its values either in the typed form ({@code PathPatternConfig.Values},
 * {@code HostHeaderConfig}, {@code HttpHeaderConfig}, {@code HttpRequestMethodConfig},
 * {@code QueryStringConfig}, {@code SourceIpConfig}) or, for {@code path-pattern} and
 * {@code host-header} only, in the legacy {@code Values}. The model checks every value and AWS's
 * per-rule limits ({@code TooManyConditionValues}).
 */
final class ConditionsParser {

  /** The typed configuration of each field. */
  static final Map<String, String> CONFIGS = Map.of(
      "path-pattern", "PathPatternConfig",
      "host-header", "HostHeaderConfig",
      "http-header", "HttpHeaderConfig",
      "http-request-method", "HttpRequestMethodConfig",
      "query-string", "QueryStringConfig",
      "source-ip", "SourceIpConfig");
  private static final List<String> FIELDS = List.of("http-header", "http-request-method", "host-header",
      "path-pattern", "query-string", "source-ip");

  private ConditionsParser() {
  }

  static List<RuleCondition> parse(QueryParams params, String member) {
    List<QueryParams> given = params.structs(member);
    Problems problems = new Problems();
    List<RuleCondition> out = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      RuleCondition c = condition(given.get(i), member + ".member." + (i + 1));
      RuleCondition.validate(c, problems.at(member).at(i));
      ModelProblems.throwFirst(problems, 0);
      out.add(c);
    }
    Rule.checkConditions(out, problems.at(member));
    ModelProblems.throwFirst(problems, 0);
    return out;
  }

  /**
   * A condition given by {@code RegexValues}, in its config ({@code PathPatternConfig.RegexValues})
   * or, for path-pattern and host-header, beside {@code Field} as {@code Values} may be.
   */
  private static RuleCondition regex(QueryParams c, QueryParams config, String field, String configName,
      String where) {
    if (!RuleCondition.Regex.FIELDS.contains(field)) {
      throw ApiError.validation(where + ": RegexValues can be given only for path-pattern, host-header and"
          + " http-header conditions");
    }
    if (c.hasAny("Values") || config.hasAny("Values")) {
      throw ApiError.validation(where + ": give Values (with wildcards) or RegexValues, not both");
    }
    boolean top = c.hasAny("RegexValues");
    if (top && field.equals("http-header")) {
      throw ApiError.validation(where + ": give the RegexValues of an http-header condition in " + configName);
    }
    if (top && config.hasAny("RegexValues") && !c.strings("RegexValues").equals(config.strings("RegexValues"))) {
      throw ApiError.validation(where + ": RegexValues and " + configName + ".RegexValues differ; give them once");
    }
    return new RuleCondition.Regex(field, field.equals("http-header") ? config.string("HttpHeaderName") : null,
        top ? c.strings("RegexValues") : config.strings("RegexValues"));
  }

  private static RuleCondition condition(QueryParams c, String where) {
    String field = c.string("Field");
    if (field == null) {
      throw ApiError.validation(where + ": a Field is required (expected one of: " + String.join(", ", FIELDS) + ")");
    }
    if (!FIELDS.contains(field)) {
      throw ApiError.validation(where + ": Condition field '" + field + "' must be one of: " + String.join(", ", FIELDS));
    }
    String configName = CONFIGS.get(field);
    for (String other : CONFIGS.values()) {
      if (!other.equals(configName) && c.hasAny(other)) {
        throw ApiError.validation(where + ": " + other + " cannot be given for a " + field + " condition (expected "
            + configName + ")");
      }
    }
    QueryParams config = c.struct(configName);
    if (c.hasAny("RegexValues") || config.hasAny("RegexValues")) {
      return regex(c, config, field, configName, where);
    }
    boolean legacy = c.hasAny("Values");
    boolean typed = c.hasAny(configName);
    if (legacy && !field.equals("path-pattern") && !field.equals("host-header")) {
      throw ApiError.validation(where + ": Values can be given only for path-pattern and host-header conditions;"
          + " give the values of a " + field + " condition in " + configName);
    }
    List<String> values = legacy ? c.strings("Values") : config.strings("Values");
    if (legacy && typed && !c.strings("Values").equals(config.strings("Values"))) {
      throw ApiError.validation(where + ": Values and " + configName + ".Values differ; give the values once");
    }
    return switch (field) {
      case "path-pattern" -> new RuleCondition.PathPattern(values);
      case "host-header" -> new RuleCondition.HostHeader(values);
      case "http-request-method" -> new RuleCondition.HttpRequestMethod(values);
      case "http-header" -> new RuleCondition.HttpHeader(config.string("HttpHeaderName"), values);
      case "query-string" -> {
        List<RuleCondition.KeyValue> pairs = new ArrayList<>();
        for (QueryParams kv : config.structs("Values")) {
          pairs.add(new RuleCondition.KeyValue(kv.string("Key"), kv.string("Value")));
        }
        yield new RuleCondition.QueryString(pairs);
      }
      default -> {
        List<Cidr> cidrs = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
          try {
            cidrs.add(Cidr.parse(values.get(i)));
          } catch (IllegalArgumentException e) {
            throw ApiError.validation(where + "." + configName + ".Values.member." + (i + 1) + ": " + e.getMessage());
          }
        }
        yield new RuleCondition.SourceIp(cidrs);
      }
    };
  }
}
