'use strict';
/**
 * How long the local servers (the front door, the function URLs, the emulator, the OpenID provider,
 * and serverless-offline through scripts/serverless-offline-bundle.cjs) keep an idle keep-alive
 * connection open: 65 s, as AWS's load balancers are advised to, instead of Node's 5 s.
 *
 * A client that reuses a pooled connection just as the server closes it gets "other side closed"
 * (undici, fetch) or ECONNRESET (Node's Agent), with its request lost. Clients drop idle connections
 * a little before the server's `Keep-Alive: timeout` says, so this cannot happen while their event
 * loop keeps time; under load it does not. A loaded test run failed so: a test file's first request
 * went out on a connection the previous file had left idle for 5 s, while the worker was loading the
 * new file's modules. With 65 s, a connection idle that long is rare, and the clients that pool
 * connections to these servers (the front door's Agent) drop theirs sooner (local/keep-alive.ts).
 *
 * CommonJS because the serverless-offline plugin (loaded by serverless 3 with require()) applies it
 * too; local/keep-alive.ts gives it to the TypeScript side with its types.
 */
const SERVER_KEEP_ALIVE_MS = 65_000;

function keepIdleConnections(server) {
  server.keepAliveTimeout = SERVER_KEEP_ALIVE_MS;
  // Node measures a request's headers from the moment a connection is reused: longer than the idle time.
  server.headersTimeout = SERVER_KEEP_ALIVE_MS + 1_000;
  return server;
}

module.exports = { keepIdleConnections };
