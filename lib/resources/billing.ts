import type { EndpointStatus } from '../platforms/types';
import { specStatus, type SpecStatus } from './lifecycle';
import { costOfInstanceTime, usdOf } from '../../core/money';

/**
 * Billable time of a dedicated endpoint, kept on the resource item so that the month's cost is exact
 * whether anyone reads the status or not:
 *
 *   billing_month            the UTC month ('2025-06') that billed_instance_seconds belongs to
 *   billed_instance_seconds  instance-seconds of closed billable segments in that month
 *   billable_since           start of the open segment while the endpoint bills, else absent
 *
 * Every write that changes the status or the instance count closes the open segment at that moment
 * (instance-seconds = seconds x the instance count it ran with) and opens a new one when the new state
 * bills, in the same conditional write as the change. A segment that spans a month boundary counts
 * only from the first of the month, and a stored month that is not the current one counts as zero:
 * the roll-over needs no write of its own.
 *
 * What bills: an endpoint from the moment its creation, start or restart is accepted until a delete
 * or a guardrail's stop is accepted, or the platform shows it Failed or gone. That is slightly more
 * than AWS charges (instances are billed from when they are up), never less: a budget stops early,
 * never late.
 */

const BILLABLE_STATUSES: readonly SpecStatus[] = ['Creating', 'Updating', 'InService'];

export const isBillable = (status: EndpointStatus): boolean => BILLABLE_STATUSES.includes(specStatus(status));

export interface Billing {
  billing_month: string | null;
  billed_instance_seconds: number;
  billable_since: string | null;
}

export interface Billed extends Billing {
  instance_count: number | null;
}

export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);

const monthStart = (at: Date): number => Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);

const instances = (count: number | null) => count ?? 1;

/** Instance-seconds billed in `at`'s month up to `at`, the open segment included. */
export function instanceSecondsThisMonth(r: Billed, at: Date): number {
  const closed = r.billing_month === monthOf(at) ? r.billed_instance_seconds : 0;
  if (!r.billable_since) return closed;
  const from = Math.max(Date.parse(r.billable_since), monthStart(at));
  return closed + Math.max(0, (at.getTime() - from) / 1000) * instances(r.instance_count);
}

/**
 * The billing fields after a change at `at` to `next` (billable or not, with this many instances), or
 * undefined when the change does not touch billing (same billability, same count).
 */
export function billingAfter(r: Billed, next: { billable: boolean; instanceCount: number | null }, at: Date): Billing | undefined {
  const open = Boolean(r.billable_since);
  const recount = open && next.billable && instances(next.instanceCount) !== instances(r.instance_count);
  if (open === next.billable && !recount) return undefined;
  return {
    billing_month: monthOf(at),
    billed_instance_seconds: Math.round(instanceSecondsThisMonth(r, at) * 1000) / 1000,
    billable_since: next.billable ? at.toISOString() : null,
  };
}

/** The month's cost so far: billable instance-hours this month x the hourly price of one instance, exact to the nano-dollar. */
export function monthToDate(r: Billed, pricePerInstanceHour: number, at: Date): { instanceHours: number; usd: number } {
  const seconds = instanceSecondsThisMonth(r, at);
  return { instanceHours: Math.round((seconds / 3600) * 1e4) / 1e4, usd: usdOf(costOfInstanceTime(pricePerInstanceHour, seconds)) };
}
