package io.fulcrum.api;

import static io.fulcrum.api.ApiGateway.assertAwsError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Tag;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TagDescription;

/** AddTags, RemoveTags and DescribeTags on target groups, load balancers, listeners and rules. */
class TagApiTest {

  @TempDir
  Path data;

  private ApiGateway api;
  private String group;
  private String lb;
  private String listener;
  private String rule;

  @BeforeEach
  void start() {
    api = ApiGateway.start(data);
    group = api.createIpGroup("tagged");
    LoadBalancer l = api.gateway.fulcrum().registry().resources().loadBalancers().get(0);
    lb = l.arn();
    Listener first = l.listeners().get(0);
    listener = first.arn();
    rule = first.rules().get(0).arn();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private static Tag tag(String k, String v) {
    return Tag.builder().key(k).value(v).build();
  }

  private List<Tag> tagsOf(String arn) {
    return api.elb.describeTags(b -> b.resourceArns(arn)).tagDescriptions().get(0).tags();
  }

  @Test
  void addTags_onEveryKindOfResource_describeTagsGivesThemInOrder() {
    api.elb.addTags(b -> b.resourceArns(group, lb, listener).tags(tag("team", "web"), tag("env", "")));
    api.elb.addTags(b -> b.resourceArns(group).tags(tag("team", "api"), tag("cost", "42")));

    List<TagDescription> d = api.elb.describeTags(b -> b.resourceArns(group, lb, listener)).tagDescriptions();

    assertThat(d).extracting(TagDescription::resourceArn).containsExactly(group, lb, listener);
    assertThat(d.get(0).tags()).extracting(Tag::key, Tag::value)
        .containsExactly(tuple("team", "api"), tuple("env", ""), tuple("cost", "42"));
    assertThat(d.get(1).tags()).extracting(Tag::key, Tag::value).containsExactly(tuple("team", "web"), tuple("env", ""));
    assertThat(api.gateway.fulcrum().registry().resources().tagsOf(listener)).isEqualTo(Map.of("team", "web", "env", ""));
  }

  @Test
  void removeTags_removesTheKeysGiven_unknownKeysAreFine() {
    api.elb.addTags(b -> b.resourceArns(group).tags(tag("a", "1"), tag("b", "2"), tag("c", "3")));

    api.elb.removeTags(b -> b.resourceArns(group).tagKeys("a", "c", "zzz"));

    assertThat(tagsOf(group)).extracting(Tag::key).containsExactly("b");
    api.elb.removeTags(b -> b.resourceArns(group).tagKeys("b"));
    assertThat(tagsOf(group)).isEmpty();
  }

  @Test
  void unknownArns_giveTheirKindsNotFound_andNothingChanges() {
    api.elb.addTags(b -> b.resourceArns(group).tags(tag("keep", "me")));

    assertAwsError(() -> api.elb.addTags(b -> b.resourceArns(group, group + "0").tags(tag("x", "y"))),
        "TargetGroupNotFound", "One or more target groups not found");
    assertAwsError(() -> api.elb.addTags(b -> b.resourceArns(lb + "0").tags(tag("x", "y"))), "LoadBalancerNotFound",
        "The specified load balancer does not exist.");
    assertAwsError(() -> api.elb.removeTags(b -> b.resourceArns(listener + "0").tagKeys("keep")), "ListenerNotFound",
        "The specified listener does not exist.");
    assertAwsError(() -> api.elb.describeTags(b -> b.resourceArns(listener.replace(":listener/", ":listener-rule/")
        + "/0123456789abcdef")), "RuleNotFound", "One or more rules not found");
    assertAwsError(() -> api.elb.describeTags(b -> b.resourceArns("arn:aws:s3:::bucket")), "ValidationError",
        "'arn:aws:s3:::bucket' is not a valid load balancer, listener, rule or target group ARN");

    assertThat(tagsOf(group)).extracting(Tag::key, Tag::value).containsExactly(tuple("keep", "me"));
  }

  @Test
  void moreThan50Tags_isTooManyTags_countingThoseAlreadyThere() {
    List<Tag> fifty = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      fifty.add(tag("k" + i, "v"));
    }
    api.elb.addTags(b -> b.resourceArns(group).tags(fifty));
    api.elb.addTags(b -> b.resourceArns(group).tags(tag("k0", "overwritten")));

    assertAwsError(() -> api.elb.addTags(b -> b.resourceArns(group).tags(tag("k50", "v"))), "TooManyTags",
        "The quota for the number of tags that can be assigned to a target group has been reached (51 tags; at most 50)");
    assertThat(tagsOf(group)).hasSize(50).first().isEqualTo(tag("k0", "overwritten"));
  }

  @Test
  void keysAndValues_areCheckedInAwsWording() {
    assertAwsError(() -> api.elb.addTags(b -> b.resourceArns(group).tags(tag("", "v"))), "ValidationError",
        "1 validation error detected: Value '' at 'tags.1.member.key' failed to satisfy constraint: Member must have"
            + " length greater than or equal to 1");
    assertAwsError(() -> api.elb.addTags(b -> b.resourceArns(group).tags(tag("k", "v".repeat(257)))), "ValidationError",
        "1 validation error detected: Value '" + "v".repeat(257) + "' at 'tags.1.member.value' failed to satisfy"
            + " constraint: Member must have length less than or equal to 256");
    assertAwsError(() -> api.elb.addTags(b -> b.resourceArns(group).tags(tag("a", "1"), tag("a", "2"))),
        "DuplicateTagKeys", "Tag key was specified more than once: a");
    assertAwsError(() -> api.elb.addTags(b -> b.resourceArns(group).tags(tag("aws:owner", "me"))), "ValidationError",
        "Tag keys starting with 'aws:' are reserved for internal use (key 'aws:owner')");
    assertAwsError(() -> api.elb.addTags(b -> b.resourceArns(group)), "ValidationError",
        "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null");
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 21; i++) {
      many.add(group);
    }
    assertAwsError(() -> api.elb.describeTags(b -> b.resourceArns(many)), "ValidationError",
        "1 validation error detected: Value '" + many + "' at 'resourceArns' failed to satisfy constraint: Member must"
            + " have length less than or equal to 20");
    assertThat(tagsOf(group)).isEmpty();
  }

  @Test
  void rules_carryTagsToo() {
    api.elb.addTags(b -> b.resourceArns(rule).tags(tag("r", "1")));

    assertThat(tagsOf(rule)).containsExactly(tag("r", "1"));
  }
}
