package io.fulcrum.function;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerRequestEvent;
import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerResponseEvent;
import io.fulcrum.model.FunctionDefinition;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A Java Lambda handler loaded into this process: from the class path or from its own jar (whose
 * class loader delegates to Fulcrum's, so AWS's interfaces and event types are shared). What it
 * takes is read from its {@code handleRequest} method:
 * <ul>
 *   <li>{@code RequestHandler<ApplicationLoadBalancerRequestEvent, ApplicationLoadBalancerResponseEvent>}:
 *       the event and response objects, converted as AWS's Java runtime converts them;</li>
 *   <li>{@code RequestHandler<Map<String, Object>, ...>}: the event as maps and lists;</li>
 *   <li>{@code RequestHandler<String, String>}: the raw event JSON in, the raw response JSON out;</li>
 *   <li>{@code RequestStreamHandler}: the raw event JSON bytes in, the raw response JSON bytes out.</li>
 * </ul>
 * Like Lambda, each concurrent invocation has an execution environment of its own: an instance of
 * the class, reused by later invocations once it is free, so handlers need not be thread-safe.
 * Loading and invoking block and run on worker threads; the pool of idle instances is thread-safe.
 */
final class InProcessFunction {

  /** How a handler takes its event. */
  enum Kind { EVENTS, MAP, RAW_STRING, STREAM }

  /** A handler that cannot be used, with what is wrong in words. */
  static final class LoadException extends Exception {
    LoadException(String message) {
      super(message);
    }
  }

  private final FunctionDefinition.InProcess definition;
  private final Constructor<?> constructor;
  private final Kind kind;
  private final URLClassLoader jarLoader;
  private final ConcurrentLinkedQueue<Object> idle = new ConcurrentLinkedQueue<>();

  private InProcessFunction(FunctionDefinition.InProcess definition, Constructor<?> constructor, Kind kind,
      URLClassLoader jarLoader) {
    this.definition = definition;
    this.constructor = constructor;
    this.kind = kind;
    this.jarLoader = jarLoader;
  }

  /** Loads and checks the handler class, and creates its first instance. Blocks. */
  static InProcessFunction load(FunctionDefinition.InProcess def) throws LoadException {
    String className = def.handlerClass();
    URLClassLoader jarLoader = null;
    ClassLoader loader = InProcessFunction.class.getClassLoader();
    try {
      if (def.jar() != null) {
        URL url = Path.of(def.jar()).toUri().toURL();
        jarLoader = new URLClassLoader("function-" + def.name(), new URL[] {url}, loader);
        loader = jarLoader;
      }
      Class<?> type;
      try {
        type = Class.forName(className, true, loader);
      } catch (ClassNotFoundException | LinkageError e) {
        throw new LoadException("class '" + className + "' " + (e instanceof ClassNotFoundException ? "not found" : "cannot be loaded ("
            + e + ")") + (def.jar() == null ? " on the class path" : " in " + def.jar()));
      }
      Kind kind = kindOf(type);
      if (Modifier.isAbstract(type.getModifiers()) || !Modifier.isPublic(type.getModifiers())) {
        throw new LoadException("class '" + className + "' must be public and not abstract");
      }
      Constructor<?> constructor;
      try {
        constructor = type.getConstructor();
      } catch (NoSuchMethodException e) {
        throw new LoadException("class '" + className + "' needs a public constructor without parameters");
      }
      InProcessFunction f = new InProcessFunction(def, constructor, kind, jarLoader);
      // Lambda runs the constructor once per execution environment; do it now for the first one, so a
      // handler whose constructor fails is refused at start rather than at its first request.
      f.idle.add(f.instantiate());
      jarLoader = null;
      return f;
    } catch (IOException e) {
      throw new LoadException("cannot read " + def.jar() + ": " + e.getMessage());
    } finally {
      close(jarLoader);
    }
  }

  private static Kind kindOf(Class<?> type) throws LoadException {
    if (RequestStreamHandler.class.isAssignableFrom(type)) {
      return Kind.STREAM;
    }
    if (!RequestHandler.class.isAssignableFrom(type)) {
      throw new LoadException("class '" + type.getName() + "' implements neither "
          + "com.amazonaws.services.lambda.runtime.RequestHandler nor RequestStreamHandler");
    }
    for (Method m : type.getMethods()) {
      if (m.getName().equals("handleRequest") && !m.isBridge() && m.getParameterCount() == 2
          && m.getParameterTypes()[1] == Context.class) {
        Class<?> in = m.getParameterTypes()[0];
        Class<?> out = m.getReturnType();
        if (in == ApplicationLoadBalancerRequestEvent.class) {
          return Kind.EVENTS;
        }
        if (in == Map.class || in == Object.class) {
          return Kind.MAP;
        }
        if (in == String.class && out == String.class) {
          return Kind.RAW_STRING;
        }
        throw new LoadException("class '" + type.getName() + "' takes " + in.getName() + "; expected "
            + "ApplicationLoadBalancerRequestEvent, Map<String, Object>, or String in and String out (raw JSON)");
      }
    }
    throw new LoadException("class '" + type.getName() + "' has no handleRequest(input, Context) method");
  }

  private Object instantiate() throws LoadException {
    try {
      return constructor.newInstance();
    } catch (InvocationTargetException e) {
      throw new LoadException("the constructor of '" + constructor.getDeclaringClass().getName() + "' failed: "
          + e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new LoadException("cannot create '" + constructor.getDeclaringClass().getName() + "': " + e);
    }
  }

  FunctionDefinition.InProcess definition() {
    return definition;
  }

  Kind kind() {
    return kind;
  }

  /**
   * Runs one invocation on the calling (worker) thread, in a free execution environment.
   *
   * @param event the event JSON
   * @return the response JSON as the handler produced it
   * @throws Throwable whatever the handler threw (Lambda: an unhandled function error)
   */
  Buffer invoke(Buffer event, Context context) throws Throwable {
    Object handler = idle.poll();
    if (handler == null) {
      handler = instantiate();
    }
    Buffer out = call(handler, event, context);
    idle.add(handler);
    return out;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private Buffer call(Object handler, Buffer event, Context context) throws IOException {
    switch (kind) {
      case STREAM -> {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ((RequestStreamHandler) handler).handleRequest(new ByteArrayInputStream(event.getBytes()), out, context);
        return Buffer.buffer(out.toByteArray());
      }
      case RAW_STRING -> {
        Object out = ((RequestHandler) handler).handleRequest(event.toString(StandardCharsets.UTF_8), context);
        return Buffer.buffer(out == null ? "null" : out.toString());
      }
      case MAP -> {
        Map<String, Object> in = new JsonObject(event).getMap();
        return serialize(((RequestHandler) handler).handleRequest(in, context));
      }
      default -> {
        ApplicationLoadBalancerRequestEvent in = EventObjects.requestEvent(new JsonObject(event));
        return serialize(((RequestHandler) handler).handleRequest(in, context));
      }
    }
  }

  /** A handler's result as AWS's Java runtime writes it. */
  private static Buffer serialize(Object out) {
    if (out instanceof ApplicationLoadBalancerResponseEvent r) {
      return EventObjects.responseJson(r).toBuffer();
    }
    if (out instanceof Map<?, ?> m) {
      @SuppressWarnings("unchecked")
      Map<String, Object> map = (Map<String, Object>) m;
      return new JsonObject(map).toBuffer();
    }
    if (out instanceof List<?> l) {
      return new JsonArray(new java.util.ArrayList<>(l)).toBuffer();
    }
    return Buffer.buffer(Json.encode(out));
  }

  /** Releases the jar's class loader. */
  void close() {
    close(jarLoader);
  }

  private static void close(URLClassLoader loader) {
    if (loader != null) {
      try {
        loader.close();
      } catch (IOException e) {
        // Nothing more can be done; the loader is unreachable from here on.
      }
    }
  }
}
