import type { TrackedResource } from '../../tables/resources';
import { isBillable, monthToDate } from './billing';
import { nanosOf, usdOf } from '../../core/money';

/**
 * The two guardrails of a dedicated endpoint, as rules the reconciler applies and the API shows:
 *
 *   idle    no invocation (CloudWatch AWS/SageMaker Invocations, which also counts this service's own
 *           InvokeEndpoint calls) and no model call through this service (a session chat turn or a
 *           /v1 gateway call: both move last_chat_at, lib/usage/aggregator.ts) for idle_timeout_minutes.
 *           Gateway traffic is activity, as it is use: only the callers the resource's access admits
 *           can make it (lib/calls/access.ts), and a refused call reaches no model and counts for nothing
 *   budget  the month's accrued cost (lib/resources/billing.ts) has reached monthly_budget_usd
 *
 * Either takes an InService endpoint OutOfService: the platform endpoint is deleted (nothing bills),
 * its model and configuration are kept, and start creates it again.
 */

/**
 * What counts as activity for the idle timeout, as the guardrail view states it: the service's own
 * calls of both kinds, and invocations that bypass it (CloudWatch counts every invocation).
 */
const IDLE_ACTIVITY = ['session_chat', 'gateway', 'direct_invocations'] as const;

/** The longest idle timeout: a week (the request schemas take it from here). */
export const IDLE_TIMEOUT_MAX_MINUTES = 10_080;

const plus = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();
const latest = (...stamps: (string | null | undefined)[]) =>
  stamps.filter((s): s is string => Boolean(s)).reduce<string | undefined>((a, b) => (!a || b > a ? b : a), undefined);

/**
 * The earliest moment the endpoint can have been idle for its whole timeout, from what is stored: the
 * last (re)start, the last chat turn through this service, and when the reconciler last saw
 * invocations. undefined without an idle timeout.
 */
export function idleStopNotBefore(
  r: Pick<TrackedResource, 'idle_timeout_minutes' | 'active_since' | 'created_at' | 'last_chat_at' | 'idle_check_after'>,
): string | undefined {
  const minutes = r.idle_timeout_minutes;
  if (!minutes) return undefined;
  const floor = latest(r.active_since ?? r.created_at, r.last_chat_at) as string;
  return latest(plus(floor, minutes), r.idle_check_after);
}

/** Whether the budget is spent: the month's cost has reached it. */
export function budgetReached(r: TrackedResource, pricePerInstanceHour: number, now: Date): boolean {
  return r.monthly_budget_usd !== null && monthToDate(r, pricePerInstanceHour, now).usd >= r.monthly_budget_usd;
}

/** What a person (the console) sees of a dedicated resource's guardrails, with the thresholds its budget alerts at. */
export function guardrailView(r: TrackedResource, pricePerInstanceHour: number, alertThresholds: number[], now: Date) {
  const mtd = monthToDate(r, pricePerInstanceHour, now);
  const budget = r.monthly_budget_usd;
  const watching = r.status === 'InService' && !r.stopped;
  return {
    idle_timeout_minutes: r.idle_timeout_minutes,
    monthly_budget_usd: budget,
    alert_thresholds: alertThresholds,
    month_to_date_usd: mtd.usd,
    billable_instance_hours_this_month: mtd.instanceHours,
    budget_remaining_usd: budget === null ? null : usdOf(Math.max(0, nanosOf(budget) - nanosOf(mtd.usd))),
    billing: isBillable(r.status),
    last_chat_at: r.last_chat_at,
    idle_activity: IDLE_ACTIVITY,
    /** While InService: the earliest time an idle stop can happen if no traffic comes. */
    idle_stop_not_before: watching ? (idleStopNotBefore(r) ?? null) : null,
    stopped: r.stopped,
  };
}
