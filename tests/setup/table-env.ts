// Runs before each integration test file's imports: the file gets a table of its own.
import { randomUUID } from 'node:crypto';

process.env.TABLE_NAME = `it-${randomUUID()}`;
// And a database of its own in that DynamoDB Local, which keeps one per access key (local/runtime.ts,
// `databasePerKey`): a file's writes to its table's stream then never pay for the records of the files
// before it. Letters and digits only, as DynamoDB Local asks.
process.env.DYNAMODB_LOCAL_ACCESS_KEY_ID = `it${randomUUID().replaceAll('-', '')}`;
// The DynamoDB Local of this file's jest worker, where the run started one per worker (tests/setup/test-runtime.ts).
const endpoints = (process.env.DYNAMODB_ENDPOINTS ?? '').split(',').filter(Boolean);
if (endpoints.length > 1) process.env.DYNAMODB_ENDPOINT = endpoints[(Number(process.env.JEST_WORKER_ID ?? 1) - 1) % endpoints.length];
// An access key id of its own for the platform calls (the emulator takes any): files run side by side,
// and a fault a file scopes to it (withModelFault) is met by that file's calls alone.
process.env.SERVICE_CLOUD_ACCESS_KEY_ID = `AKIATEST${randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase()}`;
// Hundreds of simulated invocations share one client and one DynamoDB Local here (one each in Lambda):
// a request queued behind them must not pass for a database outage.
process.env.DYNAMODB_CONNECTION_TIMEOUT_MS ??= '60000';
process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '60000';
// Budget alerts (docs/budgets-and-alerts.md): e-mail channels need a sender; a failing receiver is retried
// without the deployed backoff's seconds.
process.env.ALERTS_EMAIL_FROM ??= 'alerts@model-ops.test';
process.env.ALERTS_RETRY_BASE_MS ??= '5';
