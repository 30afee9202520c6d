package io.fulcrum.routing;

import io.fulcrum.model.IpAddresses;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;

/** Request facts given directly, to test matching apart from HTTP parsing. */
final class FakeRequest implements RequestFacts {

  String path = "/";
  String host = "example.com";
  String method = "GET";
  final MultiMap headers = HttpHeaders.headers();
  final List<String[]> query = new ArrayList<>();
  String source = "10.0.0.1";

  FakeRequest path(String p) {
    path = p;
    return this;
  }

  FakeRequest host(String h) {
    host = h;
    return this;
  }

  FakeRequest method(String m) {
    method = m;
    return this;
  }

  FakeRequest header(String name, String value) {
    headers.add(name, value);
    return this;
  }

  FakeRequest query(String key, String value) {
    query.add(new String[] {key, value});
    return this;
  }

  FakeRequest source(String ip) {
    source = ip;
    return this;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String host() {
    return host;
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public MultiMap headers() {
    return headers;
  }

  @Override
  public List<String[]> queryParameters() {
    return query;
  }

  @Override
  public byte[] sourceAddress() {
    return IpAddresses.parse(source);
  }
}
