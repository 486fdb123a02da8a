/**
 * X-Ray tracing through Powertools Tracer: a segment per invocation (cold start and the response or
 * error annotated), a subsegment per AWS SDK call (DynamoDB, the platforms, SSM) and per fetch (the
 * hosted API). Bundled only when tracing is on: serverless.yml resolves `#tracing` to this module
 * with TRACING_ENABLED=true (esbuild condition `tracing`) and to ./off.ts otherwise, so bundles
 * without tracing carry none of it (about 125 KB).
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type middy from '@middy/core';
import { config } from '../config';

export const tracingEnabled = true;

const tracer = new Tracer({ serviceName: config.serviceName, captureHTTPsRequests: true });

/** Middy middlewares that open and close the invocation's segment (first in the stack). */
export function tracingMiddlewares(): middy.MiddlewareObj<any, any>[] {
  // Responses are not recorded: they may hold tokens, and the spec's bodies are for the caller only.
  return [captureLambdaHandler(tracer, { captureResponse: false })];
}

/** An AWS SDK v3 client with each of its calls traced as a subsegment. */
export function traced<T>(client: T): T {
  return tracer.captureAWSv3Client(client);
}
