package io.fulcrum.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.ElbResponses;

/** Checks that a response is the load balancer's own page for an error, as ALB sends it. */
public final class ElbAssertions {

  private ElbAssertions() {
  }

  /**
   * The status line ({@code HTTP/1.1 502 Bad Gateway}; ALB's own codes such as 463 have no reason
   * phrase), {@code Server: awselb/2.0}, {@code Content-Type: text/html} and the exact HTML page.
   */
  public static void assertElbPage(RawConnection.Response r, ElbError error) {
    assertElbPage(r, error, "HTTP/1.1");
  }

  /** As {@link #assertElbPage(RawConnection.Response, ElbError)}, answered in {@code version}. */
  public static void assertElbPage(RawConnection.Response r, ElbError error, String version) {
    String expectedLine = error.phrase().isEmpty() ? version + " " + error.status()
        : version + " " + error.status() + " " + error.phrase();
    assertThat(r.statusLine().strip()).as("status line").isEqualTo(expectedLine);
    assertThat(r.header("Server")).as("Server header").isEqualTo(ElbResponses.SERVER);
    assertThat(r.header("Content-Type")).as("Content-Type").isEqualTo("text/html");
    assertThat(r.complete()).as("the whole page arrived").isTrue();
    assertThat(r.bodyText()).as("body").isEqualTo(ElbResponses.page(error));
  }
}
