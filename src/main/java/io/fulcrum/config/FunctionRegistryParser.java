package io.fulcrum.config;

import io.fulcrum.model.FunctionDefinition;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads the function registry, {@code functions:}, a map from function name to where the function
 * runs:
 * <pre>
 * functions:
 *   echo:   {handler: io.fulcrum.demo.EchoEventFunction}                  # a class on the class path
 *   orders: {handler: com.example.Orders::handleRequest, jar: lib/orders.jar, timeout-seconds: 10}
 *   remote: {endpoint: "http://127.0.0.1:9001", function-name: function}  # the Lambda Invoke API
 *   aws: {endpoint: "https://lambda.us-east-1.amazonaws.com",          # AWS Lambda: invocations signed (SigV4)
 *         signing: {region: us-east-1, access-key-id: ..., secret-access-key: ...}}
 * </pre>
 * Whether a handler class exists and has a usable {@code handleRequest} is checked when the
 * function invoker loads it (off the event loop), not here.
 */
final class FunctionRegistryParser {

  /** A Java class name, optionally with AWS's {@code ::method} suffix. */
  private static final Pattern HANDLER =
      Pattern.compile("\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*(::handleRequest)?");

  private FunctionRegistryParser() {
  }

  static Map<String, FunctionDefinition> parse(ConfigNode root) {
    Map<String, FunctionDefinition> out = new LinkedHashMap<>();
    for (Map.Entry<String, ConfigNode> e : root.objectMap("functions").entrySet()) {
      String name = e.getKey();
      ConfigNode n = e.getValue();
      int before = n.problems().size();
      if (!FunctionDefinition.NAME.matcher(name).matches()) {
        n.problems().add("'" + name + "' is not a function name (expected 1-64 letters, digits, hyphens and underscores)");
      }
      String handler = n.string("handler", null);
      String endpoint = n.string("endpoint", null);
      int timeout = n.integer("timeout-seconds", FunctionDefinition.DEFAULT_TIMEOUT_SECONDS);
      n.at("timeout-seconds").checkRange(timeout, 1, FunctionDefinition.MAX_TIMEOUT_SECONDS);
      FunctionDefinition f = null;
      if (handler != null && endpoint != null) {
        n.problems().add("a function has either a handler (in-process) or an endpoint (the Lambda Invoke API), not both");
        n.skipRest();
      } else if (handler != null) {
        f = inProcess(n, name, handler, timeout);
      } else if (endpoint != null) {
        f = remote(n, name, endpoint, timeout);
      } else {
        n.problems().add("a function needs a handler (a Java class, e.g. com.example.Handler) or an endpoint"
            + " (the Lambda Invoke API, e.g. http://127.0.0.1:9001)");
        n.skipRest();
      }
      n.finish();
      if (f != null && n.problems().size() == before) {
        out.put(name, f);
      }
    }
    return out;
  }

  private static FunctionDefinition inProcess(ConfigNode n, String name, String handler, int timeout) {
    if (!HANDLER.matcher(handler).matches()) {
      n.at("handler").add("'" + handler + "' is not a class name (expected e.g. com.example.Handler or"
          + " com.example.Handler::handleRequest)");
    }
    String jar = n.string("jar", null);
    if (jar != null && !Files.isRegularFile(Path.of(jar))) {
      n.at("jar").add("'" + jar + "' is not a file (expected the path of a jar holding the handler)");
    }
    int memory = n.integer("memory-size", FunctionDefinition.DEFAULT_MEMORY_MB);
    n.at("memory-size").checkRange(memory, 128, 10240);
    int reserved = n.integer("reserved-concurrency", 0);
    n.at("reserved-concurrency").checkRange(reserved, 0, 1000);
    return new FunctionDefinition.InProcess(name, handler, jar, timeout, memory, reserved);
  }

  private static FunctionDefinition remote(ConfigNode n, String name, String endpoint, int timeout) {
    String functionName = n.string("function-name", name);
    if (!FunctionDefinition.NAME.matcher(functionName).matches()) {
      n.at("function-name").add("'" + functionName + "' is not a function name (expected 1-64 letters, digits,"
          + " hyphens and underscores)");
    }
    try {
      URI uri = new URI(endpoint);
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
          || uri.getQuery() != null || uri.getFragment() != null) {
        throw new URISyntaxException(endpoint, "not an http or https URL");
      }
    } catch (URISyntaxException e) {
      n.at("endpoint").add("'" + endpoint + "' is not an http or https base URL (expected e.g. http://127.0.0.1:9001)");
    }
    return new FunctionDefinition.Remote(name, stripSlash(endpoint), functionName, timeout, signing(n));
  }

  /** {@code signing: {region, access-key-id, secret-access-key[, session-token]}}, or null when absent. */
  private static FunctionDefinition.Signing signing(ConfigNode remote) {
    boolean given = remote.has("signing");
    ConfigNode s = remote.object("signing"); // read either way: an unknown key's message lists it
    if (!given) {
      return null;
    }
    String region = s.string("region", null);
    String keyId = s.string("access-key-id", null);
    String secret = s.string("secret-access-key", null);
    String token = s.string("session-token", null);
    if (region == null || !ConfigParser.REGION.matcher(region).matches()) {
      s.at("region").add((region == null ? "missing" : "'" + region + "' is not a region")
          + " (expected the region of the credential scope, e.g. us-east-1)");
    }
    if (keyId == null || keyId.isBlank()) {
      s.at("access-key-id").add("missing (expected the access key id to sign invocations with)");
    }
    if (secret == null || secret.isBlank()) {
      s.at("secret-access-key").add("missing (expected the secret access key to sign invocations with)");
    }
    s.finish();
    return new FunctionDefinition.Signing(region, keyId, secret, token);
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }
}
