package io.fulcrum.api;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A small XML tree for Query-protocol responses: elements with text or children, lists as
 * {@code <Name><member>...</member></Name>} (an empty list is {@code <Name/>}). Values are
 * escaped; nothing else about XML is needed.
 */
public final class Xml {

  private final String name;
  private final String text;
  private final List<Xml> children;

  private Xml(String name, String text, List<Xml> children) {
    this.name = name;
    this.text = text;
    this.children = children;
  }

  /** An element with children, added with {@link #add}. */
  public static Xml el(String name) {
    return new Xml(name, null, new ArrayList<>());
  }

  /** An element with text; {@code null} text makes no element (see {@link #add}). */
  public static Xml text(String name, Object value) {
    return new Xml(name, value == null ? null : String.valueOf(value), null);
  }

  /** {@code <name><member>…</member>…</name>}, one member per item. */
  public static <T> Xml list(String name, Collection<T> items, Function<T, Xml> member) {
    Xml list = el(name);
    for (T item : items) {
      list.add(member.apply(item));
    }
    return list;
  }

  /** A list of plain values. */
  public static Xml strings(String name, Collection<String> values) {
    return list(name, values, v -> text("member", v));
  }

  /**
   * A map of strings as the Query protocol writes one:
   * {@code <name><entry><key>…</key><value>…</value></entry>…</name>}, in the map's order.
   */
  public static Xml map(String name, Map<String, String> entries) {
    return list(name, entries.entrySet(), e -> el("entry").add("key", e.getKey()).add("value", e.getValue()));
  }

  /** Adds a child; a text element whose value is null is skipped (an absent optional field). */
  public Xml add(Xml child) {
    if (child != null && (child.children != null || child.text != null)) {
      children.add(child);
    }
    return this;
  }

  public Xml add(String name, Object value) {
    return add(text(name, value));
  }

  /** Renames a member element (lists of structures use {@code member}). */
  public Xml as(String newName) {
    return new Xml(newName, text, children);
  }

  public String render() {
    StringBuilder b = new StringBuilder(512);
    write(b);
    return b.toString();
  }

  private void write(StringBuilder b) {
    if (children != null && children.isEmpty()) {
      b.append('<').append(name).append("/>");
      return;
    }
    b.append('<').append(name).append('>');
    if (children != null) {
      children.forEach(c -> c.write(b));
    } else {
      escape(b, text);
    }
    b.append("</").append(name).append('>');
  }

  static void escape(StringBuilder b, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&apos;");
        default -> {
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            b.append("&#x").append(Integer.toHexString(c)).append(';');
          } else {
            b.append(c);
          }
        }
      }
    }
  }
}
