import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Written by `npm start` (local/start.ts) while it runs, in its DATA_DIR: its pid and ports. */
export const START_STATE = resolve(fileURLToPath(new URL('..', import.meta.url)), process.env.DATA_DIR || '.data', 'start.pid');

/** The DynamoDB Local port of a running `npm start`, from its state file; undefined when none runs. */
export function runningDynamoPort(stateFile = START_STATE): number | undefined {
  if (!existsSync(stateFile)) return undefined;
  try {
    const { pid, dynamoPort } = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid?: number; dynamoPort?: number };
    if (!pid || !dynamoPort) return undefined;
    process.kill(pid, 0);
    return dynamoPort;
  } catch {
    // not JSON (an older lock), or the process is gone
    return undefined;
  }
}

/**
 * Which table an admin script works on, set in the environment before any table code is imported
 * (core/config reads it once): the local table under `npm start` by default (on the DynamoDB port the
 * running stack announces, else DYNAMODB_PORT or 8000), or with `--stage <stage> [--region <region>]`
 * a deployed stage's table with your AWS credentials.
 */
export function targetTable(options: { stage?: string; region?: string; stateFile?: string }): void {
  if (options.stage && options.stage !== 'local') {
    process.env.TABLE_NAME = `model-ops-${options.stage}`;
    if (options.region) process.env.AWS_REGION = options.region;
    delete process.env.DYNAMODB_ENDPOINT;
  } else {
    process.env.TABLE_NAME ??= 'model-ops-local';
    const port = process.env.DYNAMODB_PORT ?? runningDynamoPort(options.stateFile) ?? 8000;
    process.env.DYNAMODB_ENDPOINT ??= `http://127.0.0.1:${port}`;
  }
}
