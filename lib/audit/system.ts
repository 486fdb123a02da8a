import { putAuditEntry } from '../../tables/audit';
import { dimensionedMetric, logger } from '../../core/observability';

/**
 * Automatic actions: what the service did or noticed on its own (a guardrail's stop, a change the
 * reconciler found, an orphan), each an audit entry with its reason and a metric. The actor is the
 * system: `reconciler` for the scheduled pass, `status-sync` when a status read or a control call
 * noticed it first.
 */
export type SystemActor = 'reconciler' | 'status-sync';

/** The nil UUID: the actor id of every automatic action (no user did it). */
const SYSTEM_ACTOR_ID = '00000000-0000-0000-0000-000000000000';

export interface SystemAction {
  actor: SystemActor;
  /** e.g. resource.idle_stop, resource.failed, orphan.found */
  action: string;
  target: string;
  reason: string;
  outcome?: 'success' | 'failure';
  /** The metric counted for it, with its dimensions. */
  metric: { name: string; dimensions: Record<string, string> };
}

/**
 * Writes the audit entry and counts the metric. A failed audit write is logged, never thrown: the
 * action itself has happened and the pass (or the request) goes on.
 */
export async function recordSystemAction(a: SystemAction, at = new Date()): Promise<void> {
  dimensionedMetric(a.metric.name, a.metric.dimensions);
  logger.info({ message: 'automatic action', actor: a.actor, action: a.action, target: a.target, reason: a.reason });
  try {
    await putAuditEntry({
      at: at.toISOString(),
      actor: { id: SYSTEM_ACTOR_ID, username: a.actor, role: 'system' },
      action: a.action,
      target: a.target.slice(0, 256),
      outcome: a.outcome ?? 'success',
      status: a.outcome === 'failure' ? 500 : 200,
      reason: a.reason.slice(0, 500),
    });
  } catch (err) {
    logger.error({ message: 'audit write failed', action: a.action, error: err as Error });
  }
}
