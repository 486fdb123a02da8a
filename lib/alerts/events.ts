import { randomUUID } from 'node:crypto';
import { logger } from '../../core/observability';
import { putAlertEvent, type AlertEvent } from '../../tables/alerts';

/**
 * Announces an event to the alert channels (docs/budgets-and-alerts.md): written to the table, from
 * whose stream the deliverer sends it to every channel, at least once and idempotent by its id. The
 * event follows the action it reports (a guardrail's stop, an orphan found), which has happened
 * already: a failed write is logged, never turned into a failure of that action.
 */
export async function announce(event: { event: AlertEvent['event']; [field: string]: unknown }, now = new Date()): Promise<void> {
  try {
    await putAlertEvent({ ...event, id: randomUUID(), at: now.toISOString() });
  } catch (err) {
    logger.error({ message: 'alert event not written', event: event.event, error: err as Error });
  }
}
