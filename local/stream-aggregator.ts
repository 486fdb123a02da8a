/**
 * The stream aggregator as a process of its own: what `npm start` (and the benchmarks) run beside
 * serverless-offline, as Lambda runs functions/usage/aggregate.ts beside the API in AWS (and the alert
 * deliverer, functions/alerts/deliver.ts, on the same stream with positions of its own). Reads its
 * table and DynamoDB Local from the same environment the handlers get (TABLE_NAME, DYNAMODB_ENDPOINT),
 * keeps its stream positions in STREAM_CHECKPOINT_FILE when set, prints `READY` once polling, and
 * stops on SIGTERM/SIGINT or when its stdin closes.
 */
import { localDynamoClient } from './runtime';
import { alertsEventSource, startStreamPoller } from './stream-poller';

const endpoint = process.env.DYNAMODB_ENDPOINT;
const table = process.env.TABLE_NAME;
if (!endpoint || !table) {
  console.error('stream aggregator: DYNAMODB_ENDPOINT and TABLE_NAME must be set');
  process.exit(1);
}

// The handlers read their configuration at import: after the checks above.
const { handler } = await import('../functions/usage/aggregate');
const { handler: deliverAlerts } = await import('../functions/alerts/deliver');
const dynamo = localDynamoClient(endpoint);
const checkpointFile = process.env.STREAM_CHECKPOINT_FILE || undefined;
// Two consumers of one stream, as in AWS: the alert deliverer keeps positions of its own.
const pollers = [
  startStreamPoller({ dynamo, endpoint, table, handler, checkpointFile }),
  startStreamPoller({
    dynamo,
    endpoint,
    table,
    handler: deliverAlerts,
    settings: alertsEventSource(),
    checkpointFile: checkpointFile?.replace(/(\.json)?$/, '-alerts.json'),
  }),
];

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  // A batch being delivered may be retrying against a DynamoDB Local that is gone too (its parent
  // died with it): it is not waited for past a moment. It is read again from the checkpoint on the
  // next start, and the aggregator's markers keep that from counting twice.
  await Promise.race([Promise.all(pollers.map((p) => p.stop())), new Promise((r) => setTimeout(r, 2000))]);
  dynamo.destroy();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();
console.log('READY');
