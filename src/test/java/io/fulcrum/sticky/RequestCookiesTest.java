package io.fulcrum.sticky;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

/** The Cookie header scanner: values, Fulcrum's cookies, stripping. */
class RequestCookiesTest {

  @Test
  void findsFulcrumsCookiesAndOthers_withLooseSpacing() {
    RequestCookies c = RequestCookies.parse(
        "a=1;AWSALB=lb ; AWSALBCORS=cors;  AWSALBTG=tg; AWSALBTGCORS=tgc; AWSALBAPP-0=p0; AWSALBAPP-1=p1;SESSION = s;flag");
    assertThat(c.size()).isEqualTo(9);
    assertThat(c.lb()).isEqualTo("lb");
    assertThat(c.lbCors()).isEqualTo("cors");
    assertThat(c.tg()).isEqualTo("tg");
    assertThat(c.tgCors()).isEqualTo("tgc");
    assertThat(c.app(0)).isEqualTo("p0");
    assertThat(c.app(1)).isEqualTo("p1");
    assertThat(c.app(2)).isNull();
    assertThat(c.value("SESSION")).isEqualTo("s");
    assertThat(c.has("flag")).isTrue();
    assertThat(c.has("SESS")).isFalse();
    assertThat(c.hasStickinessCookies()).isTrue();
  }

  @Test
  void strip_removesOnlyFulcrumsCookies_keepingTheOthersInOrder() {
    RequestCookies c = RequestCookies.parse(
        "z=26; AWSALB=x; a=1; AWSALBCORS=y; AWSALBX=keep; AWSALBAPP-4=keep2; m=; AWSALBAPP-3=q; AWSALBTGCORS=t");
    assertThat(c.withoutStickinessCookies()).isEqualTo("z=26; a=1; AWSALBX=keep; AWSALBAPP-4=keep2; m=");

    MultiMap h = MultiMap.caseInsensitiveMultiMap().add("Cookie", "AWSALB=x; AWSALBCORS=y");
    RequestCookies.of(h).strip(h);
    assertThat(h.contains("Cookie")).isFalse();

    MultiMap untouched = MultiMap.caseInsensitiveMultiMap().add("Cookie", "a=1;b=2");
    RequestCookies.of(untouched).strip(untouched);
    assertThat(untouched.get("Cookie")).isEqualTo("a=1;b=2");
  }

  @Test
  void severalCookieHeaders_areReadAsOneList() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().add("Cookie", "a=1; AWSALB=v").add("Cookie", "b=2");
    RequestCookies c = RequestCookies.of(h);
    assertThat(c.lb()).isEqualTo("v");
    c.strip(h);
    assertThat(h.getAll("Cookie")).containsExactly("a=1; b=2");
  }

  @Test
  void firstOfTwoCookiesWithOneName_wins() {
    RequestCookies c = RequestCookies.parse("AWSALB=first; AWSALB=second");
    assertThat(c.lb()).isEqualTo("first");
    assertThat(c.value("AWSALB")).isEqualTo("first");
  }

  @Test
  void noHeader_noCookies() {
    RequestCookies c = RequestCookies.of(MultiMap.caseInsensitiveMultiMap());
    assertThat(c.size()).isZero();
    assertThat(c.hasStickinessCookies()).isFalse();
    assertThat(RequestCookies.parse(" ; ;").size()).isZero();
  }
}
