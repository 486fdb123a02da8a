/**
 * Tracing switched off (the default): the same interface as ./xray.ts, doing nothing, so that a
 * bundle built without TRACING_ENABLED=true holds no tracing code at all. serverless.yml picks the
 * module through the `#tracing` import (package.json "imports", esbuild condition `tracing`).
 */
import type middy from '@middy/core';

export const tracingEnabled = false;

export function tracingMiddlewares(): middy.MiddlewareObj<any, any>[] {
  return [];
}

export function traced<T>(client: T): T {
  return client;
}
