import type { DynamoDBStreamEvent } from 'aws-lambda';
import { config } from '../../core/config';
import { MetricUnit, logger, metrics } from '../../core/observability';
import { decodeAlertChanges, listChannels, readDeliveries, recordDelivery, type AlertChannel, type AlertEvent } from '../../tables/alerts';
import { sendToChannel } from './senders';
import { claimReachedThresholds } from './thresholds';

/**
 * The alert deliverer: the table's stream (functions/alerts/stream.yml) brings it every change of a
 * spend item and every new event item.
 *
 * 1. Spend items: the thresholds they reached are claimed (lib/alerts/thresholds.ts). A claim is an
 *    event item, so it comes back through the stream in a later batch: an event once claimed is
 *    delivered even if this invocation dies right after.
 * 2. Event items: sent to every channel (a test event to its own channel only), each delivery tried
 *    ALERTS_DELIVERY_ATTEMPTS times with doubling backoff, and recorded (GET /api/alerts/deliveries).
 *    A delivery recorded as delivered is never sent again, so when one channel fails and the batch is
 *    retried (below), the channels that took the event do not get it twice; receivers can also
 *    de-duplicate by the event's `id`, which is the same on every attempt.
 *
 * If any delivery still fails, the batch fails after recording it: Lambda delivers the batch again
 * (MaximumRetryAttempts in stream.yml), then hands its range to the on-failure queue. Delivery is
 * therefore at least once, in order per shard, and a dead receiver holds back only alerts, never
 * billing (the usage aggregator reads the same stream through its own mapping).
 */
export interface DeliveryResult {
  claimed: number;
  delivered: number;
  failed: number;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One delivery with its in-batch retries; the error of the last attempt if every attempt failed. */
async function attempt(channel: AlertChannel, event: AlertEvent): Promise<{ attempts: number; error?: string }> {
  const { deliveryAttempts, retryBaseMs } = config.alerts;
  let error = '';
  for (let n = 1; n <= deliveryAttempts; n++) {
    try {
      await sendToChannel(channel, event);
      return { attempts: n };
    } catch (err) {
      error = (err as Error).message || (err as Error).name;
      if (n < deliveryAttempts) await wait(retryBaseMs * 2 ** (n - 1));
    }
  }
  return { attempts: deliveryAttempts, error };
}

async function deliverEvent(event: AlertEvent, channels: AlertChannel[]): Promise<{ delivered: number; failed: number }> {
  const targets = event.event === 'alert.test' ? channels.filter((c) => c.id === event.channel_id) : channels;
  const done = await readDeliveries(
    event,
    targets.map((c) => c.id),
  );
  let delivered = 0;
  let failed = 0;
  await Promise.all(
    targets.map(async (channel) => {
      const before = done(channel.id);
      if (before?.status === 'delivered') return;
      const outcome = await attempt(channel, event);
      const at = new Date().toISOString();
      await recordDelivery({
        event_id: event.id,
        event: event.event,
        channel_id: channel.id,
        channel_name: channel.name,
        status: outcome.error === undefined ? 'delivered' : 'failed',
        attempts: (before?.attempts ?? 0) + outcome.attempts,
        last_error: outcome.error ?? null,
        event_at: event.at,
        updated_at: at,
        delivered_at: outcome.error === undefined ? at : null,
      });
      if (outcome.error === undefined) delivered++;
      else {
        failed++;
        logger.warn({ message: 'alert delivery failed', eventId: event.id, channelId: channel.id, error: outcome.error });
      }
    }),
  );
  return { delivered, failed };
}

export async function deliverAlerts(event: DynamoDBStreamEvent, now = new Date()): Promise<DeliveryResult> {
  const changes = decodeAlertChanges(event.Records ?? []);
  const claimed = await claimReachedThresholds(
    changes.flatMap((c) => (c.kind === 'spend' ? [c.spend] : [])),
    now,
  );
  const events = changes.flatMap((c) => (c.kind === 'event' ? [c.event] : []));
  const result: DeliveryResult = { claimed, delivered: 0, failed: 0 };
  if (events.length > 0) {
    const channels = await listChannels();
    // In stream order: a scope's 80 % alert reaches a receiver before its 100 % one.
    for (const e of events) {
      const r = await deliverEvent(e, channels);
      result.delivered += r.delivered;
      result.failed += r.failed;
    }
  }
  if (claimed) metrics.addMetric('AlertsClaimed', MetricUnit.Count, claimed);
  if (result.delivered) metrics.addMetric('AlertsDelivered', MetricUnit.Count, result.delivered);
  if (result.failed) metrics.addMetric('AlertDeliveryFailures', MetricUnit.Count, result.failed);
  logger.info({ message: 'alert batch', records: changes.length, ...result });
  if (result.failed > 0) throw new Error(`${result.failed} alert deliveries failed: the batch is retried`);
  return result;
}
