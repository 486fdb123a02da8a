// Runs before each integration test file's imports: the file gets a table of its own.
import { randomUUID } from 'node:crypto';

process.env.TABLE_NAME = `it-${randomUUID()}`;
// Hundreds of simulated invocations share one client and one DynamoDB Local here (one each in Lambda):
// a request queued behind them must not pass for a database outage.
process.env.DYNAMODB_CONNECTION_TIMEOUT_MS ??= '60000';
process.env.DYNAMODB_REQUEST_TIMEOUT_MS ??= '60000';
// Budget alerts (docs/budgets-and-alerts.md): e-mail channels need a sender; a failing receiver is retried
// without the deployed backoff's seconds.
process.env.ALERTS_EMAIL_FROM ??= 'alerts@model-ops.test';
process.env.ALERTS_RETRY_BASE_MS ??= '5';
