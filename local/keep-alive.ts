/** The local servers' keep-alive idle time (scripts/idle-connections.cjs, shared with the serverless-offline plugin), typed. */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';

export const { keepIdleConnections } = createRequire(import.meta.url)('../scripts/idle-connections.cjs') as {
  keepIdleConnections<T extends Server>(this: void, server: T): T;
};

/** How long a client pooling connections to a local server (the front door's Agent) keeps an idle one: well under the servers' 65 s. */
export const CLIENT_IDLE_MS = 30_000;
