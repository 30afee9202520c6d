package io.fulcrum.optimizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The agent alone, driven as a load balancer drives it but by the test: a control channel opened
 * with Vert.x's HTTP/2 client over TLS, and requests sent to the data port by hand, so that a
 * credit can be spent on a request that never arrives.
 */
class TargetControlAgentTest {

  private final Vertx vertx = TestVertx.create();
  private final LinkedBlockingQueue<HttpServerRequest> held = new LinkedBlockingQueue<>();
  private final LinkedBlockingQueue<ControlMessages.Ready> readies = new LinkedBlockingQueue<>();

  @AfterEach
  void tearDown() {
    vertx.close();
  }

  private ControlMessages.Ready next() throws InterruptedException {
    ControlMessages.Ready r = readies.poll(10, TimeUnit.SECONDS);
    assertThat(r).as("a Ready from the agent").isNotNull();
    return r;
  }

  /** An agent of {@code maxConcurrency} in front of an application that holds every request in {@link #held}. */
  private TargetControlAgent agent(int maxConcurrency) {
    int app = Await.result(vertx.createHttpServer().requestHandler(held::add).listen(0, "127.0.0.1")).actualPort();
    TargetControlAgent agent = new TargetControlAgent(new TargetControlAgent.Settings(
        HostAndPort.create("127.0.0.1", 0), HostAndPort.create("127.0.0.1", 0), HostAndPort.create("127.0.0.1", app),
        maxConcurrency, null));
    Await.result(vertx.deployVerticle(agent));
    return agent;
  }

  /** A control channel to {@code agent}, as a load balancer opens one: its Ready messages go to {@link #readies}. */
  private HttpClientRequest channel(TargetControlAgent agent) {
    HttpClient control = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
        .setSsl(true).setUseAlpn(true).setTrustAll(true).setVerifyHost(false));
    HttpClientRequest channel = Await.result(control.request(new RequestOptions().setMethod(HttpMethod.POST)
        .setHost("127.0.0.1").setPort(agent.controlPort()).setURI(ControlMessages.PATH)
        .putHeader("content-type", "application/grpc")));
    ControlMessages.Deframer deframer = new ControlMessages.Deframer();
    // Set before anything is sent, the handler is in place when the response comes, on its event loop,
    // so that no message passes unread.
    var response = channel.response().onSuccess(r ->
        r.handler(b -> deframer.feed(b, m -> readies.add(ControlMessages.parseReady(m)))));
    channel.setChunked(true);
    channel.write(ControlMessages.hello("test-lb"));
    Await.result(response);
    return channel;
  }

  @Test
  void creditSpentOnARequestThatNeverArrives_isGrantedAgain_onceTheReportsStopMoving() throws Exception {
    TargetControlAgent agent = agent(2);
    HttpClientRequest channel = channel(agent);

    ControlMessages.Ready first = next();
    assertThat(first).isEqualTo(new ControlMessages.Ready(2, 2, 0, "c1"));

    // One credit spent on a request that arrives (and is held by the application) ...
    HttpClient data = vertx.createHttpClient();
    var answered = data.request(new RequestOptions().setHost("127.0.0.1").setPort(agent.dataPort()).setURI("/held")
        .putHeader(ControlMessages.CREDIT_HEADER, "c1")).compose(HttpClientRequest::send);
    HttpServerRequest atApp = held.poll(10, TimeUnit.SECONDS);
    assertThat(atApp).isNotNull();
    assertThat(atApp.getHeader(ControlMessages.CREDIT_HEADER)).as("the agent keeps the header to itself").isNull();
    // ... reported twice: nothing was lost, nothing is granted.
    channel.write(ControlMessages.report(1));
    channel.write(ControlMessages.report(1));
    // A second credit spent on a request that never arrives: once the reports stop moving it is lost,
    // and granted again while the first request still runs.
    channel.write(ControlMessages.report(2));
    channel.write(ControlMessages.report(2));
    assertThat(next()).isEqualTo(new ControlMessages.Ready(1, 2, 1, "c1"));

    atApp.response().end("done");
    assertThat(Await.result(answered).statusCode()).isEqualTo(200);
    assertThat(next()).as("the room of the request that ended").isEqualTo(new ControlMessages.Ready(1, 2, 0, "c1"));
    // The agent handles a channel's messages in order: a grant the reports should not have made would
    // have come before these two.
    assertThat(List.copyOf(readies)).as("nothing else was granted").isEmpty();
  }

  /**
   * A load balancer that gives up on a request (its client left, or it timed out) leaves the
   * application at work: the request's room is not granted again until the application has
   * answered, so the application never has more than the maximum at once.
   */
  @Test
  void aRequestWhoseLoadBalancerLeaves_holdsItsRoomUntilTheApplicationHasAnswered() throws Exception {
    TargetControlAgent agent = agent(1);
    channel(agent);
    assertThat(next()).isEqualTo(new ControlMessages.Ready(1, 1, 0, "c1"));
    HttpClient data = vertx.createHttpClient();
    HttpClientRequest request = Await.result(data.request(new RequestOptions().setHost("127.0.0.1")
        .setPort(agent.dataPort()).setURI("/slow").putHeader(ControlMessages.CREDIT_HEADER, "c1")));
    request.send();
    HttpServerRequest atApp = held.poll(10, TimeUnit.SECONDS);
    assertThat(atApp).isNotNull();

    request.reset();
    await().atMost(Duration.ofSeconds(10)).until(() -> agent.abandoned() == 1);
    assertThat(List.copyOf(readies)).as("the application still works on it: no room").isEmpty();

    atApp.response().end("late");
    assertThat(next()).as("its room, once the application has answered")
        .isEqualTo(new ControlMessages.Ready(1, 1, 0, "c1"));
  }
}
