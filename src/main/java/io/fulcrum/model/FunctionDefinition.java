package io.fulcrum.model;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An entry of the function registry ({@code functions:} in the config): what a {@code lambda}
 * target resolves to. Either a Java handler run in-process, or a function behind the Lambda
 * Invoke API ({@code POST /2015-03-31/functions/{name}/invocations}). Immutable.
 */
public sealed interface FunctionDefinition permits FunctionDefinition.InProcess, FunctionDefinition.Remote {

  /** Lambda's default function timeout, in seconds. */
  int DEFAULT_TIMEOUT_SECONDS = 3;
  /** Lambda's longest function timeout, in seconds. */
  int MAX_TIMEOUT_SECONDS = 900;
  /** Lambda's default memory size, in MB (what {@code Context.getMemoryLimitInMB()} reports). */
  int DEFAULT_MEMORY_MB = 128;

  /** A function name as Lambda allows it: 1-64 letters, digits, hyphens and underscores. */
  Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  /** {@code arn:aws:lambda:<region>:<account>:function:<name>[:<qualifier>]}. */
  Pattern ARN = Pattern.compile("arn:aws:lambda:([a-z0-9-]+):(\\d{12}):function:([A-Za-z0-9_-]{1,64})(?::([A-Za-z0-9$_-]{1,128}))?");

  /** The registry key, and the function's name. */
  String name();

  /** How long an invocation may take before the load balancer gives up on it. */
  int timeoutSeconds();

  /**
   * A Java handler in this process: a class implementing AWS's {@code RequestHandler} or
   * {@code RequestStreamHandler}, from the class path or from a jar.
   *
   * @param handler             the class name ({@code com.example.Handler}, or AWS's
   *                            {@code com.example.Handler::handleRequest})
   * @param jar                 the jar to load it from, or {@code null} for the class path
   * @param memorySizeMb        what the handler's context reports
   * @param reservedConcurrency invocations that may run at once (more are throttled); 0: no limit
   */
  record InProcess(String name, String handler, String jar, int timeoutSeconds, int memorySizeMb,
      int reservedConcurrency) implements FunctionDefinition {

    /** The class name, without AWS's {@code ::method} suffix. */
    public String handlerClass() {
      int sep = handler.indexOf("::");
      return sep < 0 ? handler : handler.substring(0, sep);
    }
  }

  /**
   * A function behind the Lambda Invoke API (AWS Lambda itself, its Runtime Interface Emulator,
   * LocalStack).
   *
   * @param endpoint     the API's base URL, e.g. {@code http://127.0.0.1:9001} or
   *                     {@code https://lambda.us-east-1.amazonaws.com}
   * @param functionName the name in the invocation path ({@code function} for the emulator)
   * @param signing      how invocations are signed (SigV4), or {@code null}: not signed
   */
  record Remote(String name, String endpoint, String functionName, int timeoutSeconds, Signing signing)
      implements FunctionDefinition {

    /** An unsigned remote function. */
    public Remote(String name, String endpoint, String functionName, int timeoutSeconds) {
      this(name, endpoint, functionName, timeoutSeconds, null);
    }
  }

  /**
   * SigV4 for service {@code lambda}, as AWS Lambda requires it.
   *
   * @param region       the region of the credential scope
   * @param sessionToken a temporary credential's token, or {@code null}
   */
  record Signing(String region, String accessKeyId, String secretAccessKey, String sessionToken) {
    @Override
    public String toString() {
      // Never the secret: definitions are logged and compared on reload.
      return "Signing[" + region + ", " + accessKeyId + (sessionToken == null ? "" : ", with a session token") + "]";
    }
  }

  /**
   * The function name a lambda target id refers to: the id itself, or the name in a Lambda ARN
   * (with or without a qualifier); {@code null} when it is neither.
   */
  static String nameOf(String targetId) {
    if (targetId == null) {
      return null;
    }
    if (NAME.matcher(targetId).matches()) {
      return targetId;
    }
    Matcher m = ARN.matcher(targetId);
    return m.matches() ? m.group(3) : null;
  }

  /** The qualifier (version or alias) of a Lambda ARN target id, or {@code null}. */
  static String qualifierOf(String targetId) {
    Matcher m = targetId == null ? null : ARN.matcher(targetId);
    return m != null && m.matches() ? m.group(4) : null;
  }

  /** The ARN of a function of this deployment. */
  static String arn(String region, String account, String name) {
    return "arn:aws:lambda:" + region + ":" + account + ":function:" + name;
  }
}
