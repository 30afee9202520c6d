package io.fulcrum.listener;

/**
 * {@link AuthenticateOidcTest} with two listener event loops and a new connection for every request,
 * so that a sign-in's steps, and a session's requests, land on either loop: states and sessions
 * sealed on one are opened on the other (one key ring), each loop keeps its own sessions.
 */
class AuthenticateOidcTwoLoopsTest extends AuthenticateOidcTest {

  @Override
  int instances() {
    return 2;
  }

  @Override
  boolean freshConnections() {
    return true;
  }
}
