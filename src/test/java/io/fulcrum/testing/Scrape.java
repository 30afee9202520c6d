package io.fulcrum.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@code /metrics} page read back: every series with its labels and value. Lines other than
 * {@code # HELP}, {@code # TYPE} and series fail the parse.
 */
public final class Scrape {

  /** One series: its metric name, labels and value. */
  public record Series(String name, Map<String, String> labels, double value) {
  }

  private final String text;
  private final List<Series> series;

  private Scrape(String text, List<Series> series) {
    this.text = text;
    this.series = series;
  }

  /** Reads {@code /metrics} from the control plane on {@code port}. */
  public static Scrape of(Http http, int port) {
    Http.Response r = http.get("127.0.0.1", port, "/metrics", Map.of());
    if (r.status() != 200) {
      throw new AssertionError("/metrics answered " + r.status() + ": " + r.body());
    }
    return parse(r.body());
  }

  public static Scrape parse(String text) {
    List<Series> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
        continue;
      }
      out.add(series(line));
    }
    return new Scrape(text, out);
  }

  private static Series series(String line) {
    int brace = line.indexOf('{');
    int space = line.lastIndexOf(' ');
    if (space < 0 || brace > space) {
      throw new AssertionError("not a series: " + line);
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (brace < 0) {
      return new Series(line.substring(0, space), labels, Double.parseDouble(line.substring(space + 1)));
    }
    int i = brace + 1;
    while (line.charAt(i) != '}') {
      int eq = line.indexOf("=\"", i);
      String name = line.substring(i, eq);
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      for (; line.charAt(j) != '"'; j++) {
        char c = line.charAt(j);
        if (c == '\\') {
          c = line.charAt(++j);
          value.append(c == 'n' ? '\n' : c);
        } else {
          value.append(c);
        }
      }
      labels.put(name, value.toString());
      i = j + 1;
      if (line.charAt(i) == ',') {
        i++;
      }
    }
    return new Series(line.substring(0, brace), labels, Double.parseDouble(line.substring(space + 1)));
  }

  /** The page as served. */
  public String text() {
    return text;
  }

  public List<Series> series() {
    return series;
  }

  /**
   * The sum of the values of metric {@code name} over every series whose labels include
   * {@code match} (0 when there is none, as for a counter that never moved).
   */
  public double sum(String name, Map<String, String> match) {
    return series.stream().filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(match.entrySet()))
        .mapToDouble(Series::value).sum();
  }

  /** Whether any series of metric {@code name} has labels including {@code match}. */
  public boolean has(String name, Map<String, String> match) {
    return series.stream().anyMatch(s -> s.name().equals(name) && s.labels().entrySet().containsAll(match.entrySet()));
  }
}
