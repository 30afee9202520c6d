package io.fulcrum.function;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The demo's Lambda function as {@code conf/fulcrum.yaml} defines it (its ports moved to free ones,
 * its demo backends left out): {@code /lambda/*} answers with the event, multi-value headers off;
 * with the attribute turned on as the README says, every value is there.
 */
class DemoFunctionTest {

  private static String demo(int port, boolean multiValue) throws IOException {
    JsonObject conf = Gateway.yamlToJson(Files.readString(Path.of("conf", "fulcrum.yaml")));
    conf.remove("demo");
    conf.put("control", new JsonObject().put("port", 0));
    conf.put("dns", new JsonObject().put("port", 0));
    conf.put("nodes", new JsonArray().add(new JsonObject().put("zone", "zone-a").put("address", "127.0.0.1")));
    JsonArray listeners = conf.getJsonArray("load-balancers").getJsonObject(0).getJsonArray("listeners");
    listeners.getJsonObject(0).put("port", port);
    for (int i = 1; i < listeners.size(); i++) {
      listeners.getJsonObject(i).put("port", Ports.free()); // the HTTPS listener: not 8443, which may be taken
    }
    for (Object g : conf.getJsonArray("target-groups")) {
      JsonObject group = (JsonObject) g;
      if (group.getString("name").equals("lambda")) {
        group.getJsonObject("attributes").put("lambda.multi_value_headers.enabled", multiValue);
      } else {
        group.put("targets", group.getJsonArray("targets").stream()
            .filter(t -> "zone-a".equals(((JsonObject) t).getString("zone"))).collect(JsonArray::new, JsonArray::add,
                JsonArray::addAll));
      }
    }
    // JSON is YAML.
    return conf.encode();
  }

  private static JsonObject event(boolean multiValue) throws IOException {
    int port = Ports.free();
    try (Gateway gateway = Gateway.start(TestVertx.create(), demo(port, multiValue));
        Http http = new Http(gateway.vertx())) {
      Http.Response r = http.get(port, "/lambda/hi?a=1&a=2");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("Content-Type")).isEqualTo("application/json");
      return new JsonObject(r.body());
    }
  }

  @Test
  void demoFunction_answersWithItsEvent_multiValueHeadersOff() throws IOException {
    JsonObject event = event(false);

    assertThat(event.getString("path")).isEqualTo("/lambda/hi");
    assertThat(event.getJsonObject("queryStringParameters")).isEqualTo(new JsonObject().put("a", "2"));
    assertThat(event.containsKey("multiValueHeaders")).isFalse();
    assertThat(event.getJsonObject("requestContext").getJsonObject("elb").getString("targetGroupArn"))
        .startsWith("arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/lambda/");
  }

  @Test
  void demoFunction_withMultiValueHeadersOn_showsEveryValue() throws IOException {
    JsonObject event = event(true);

    assertThat(event.getJsonObject("multiValueQueryStringParameters"))
        .isEqualTo(new JsonObject().put("a", new JsonArray().add("1").add("2")));
    assertThat(event.containsKey("headers")).isFalse();
  }
}
