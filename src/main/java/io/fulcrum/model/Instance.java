package io.fulcrum.model;

/**
 * An entry of the instance inventory: what an {@code instance} target id resolves to.
 *
 * @param state {@code running}, {@code stopped} or {@code terminated}
 */
public record Instance(String id, String address, String zone, String state) {

  public static final String RUNNING = "running";

  public boolean running() {
    return RUNNING.equals(state);
  }
}
