package io.fulcrum.function;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Context} an in-process handler gets for one invocation: what Lambda's Java runtime
 * provides, with the function's logger writing to Fulcrum's log ({@code io.fulcrum.function.<name>}).
 * Used on the worker thread that runs the invocation.
 */
final class LambdaContext implements Context {

  private final String requestId = UUID.randomUUID().toString();
  private final String functionName;
  private final String invokedArn;
  private final int memoryMb;
  private final long deadlineMillis;
  private final String traceId;
  private final LambdaLogger logger;

  /**
   * @param invokedArn     the ARN the target names (with its qualifier, if any)
   * @param deadlineMillis when the invocation times out (epoch millis)
   * @param traceId        the request's X-Amzn-Trace-Id, or null
   */
  LambdaContext(String functionName, String invokedArn, int memoryMb, long deadlineMillis, String traceId) {
    this.functionName = functionName;
    this.invokedArn = invokedArn;
    this.memoryMb = memoryMb;
    this.deadlineMillis = deadlineMillis;
    this.traceId = traceId;
    Logger log = LoggerFactory.getLogger("io.fulcrum.function." + functionName);
    this.logger = new LambdaLogger() {
      @Override
      public void log(String message) {
        log.info("{} {}", requestId, message.stripTrailing());
      }

      @Override
      public void log(byte[] message) {
        log(new String(message, StandardCharsets.UTF_8));
      }
    };
  }

  @Override
  public String getAwsRequestId() {
    return requestId;
  }

  @Override
  public String getLogGroupName() {
    return "/aws/lambda/" + functionName;
  }

  @Override
  public String getLogStreamName() {
    return "fulcrum/[$LATEST]" + requestId.replace("-", "");
  }

  @Override
  public String getFunctionName() {
    return functionName;
  }

  @Override
  public String getFunctionVersion() {
    return "$LATEST";
  }

  @Override
  public String getInvokedFunctionArn() {
    return invokedArn;
  }

  @Override
  public CognitoIdentity getIdentity() {
    return null;
  }

  @Override
  public ClientContext getClientContext() {
    return null;
  }

  @Override
  public int getRemainingTimeInMillis() {
    return (int) Math.max(0, deadlineMillis - System.currentTimeMillis());
  }

  @Override
  public int getMemoryLimitInMB() {
    return memoryMb;
  }

  @Override
  public LambdaLogger getLogger() {
    return logger;
  }

  @Override
  public String getXrayTraceId() {
    return traceId;
  }
}
