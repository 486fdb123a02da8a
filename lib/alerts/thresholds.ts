import { randomUUID } from 'node:crypto';
import { usdOf } from '../../core/money';
import { claimThreshold, readAlertThresholds, readClaims, type AlertEvent, type AlertScopeKind } from '../../tables/alerts';
import type { SpendImage } from '../../tables/budgets';
import { getApiKeyRecord } from '../../tables/keys';
import { getTrackedResource } from '../../tables/resources';
import { getTeam } from '../../tables/teams';
import { getUserById } from '../../tables/users';

/**
 * Budget thresholds: every budget (a key's, a user's, a team's, a member's, a dedicated endpoint's)
 * alerts at its `alert_thresholds`, [0.8, 1] unless set. The alert deliverer hands this the spend items
 * the stream shows changing, and the reconciler the month to date of the endpoints it examines (an
 * endpoint's cost accrues with time, not with writes); a threshold the month's spend has reached (or,
 * for 1, the first refusal of a call: holds keep spend just under the budget) is claimed once per
 * scope and month (tables/alerts.ts), and its event item goes on through the stream to the channels.
 */
const DEFAULT_THRESHOLDS: readonly number[] = [0.8, 1];

/** What a budget with no thresholds of its own alerts at (a copy: answers may be changed by callers). */
export const defaultAlertThresholds = () => [...DEFAULT_THRESHOLDS];

type AlertOwner = { kind: AlertScopeKind; id: string };

/** A budget's month as thresholds judge it: a spend item's figures, or an endpoint's accrued cost. */
export interface BudgetState extends Omit<SpendImage, 'owner'> {
  owner: AlertOwner;
  /** The scope's name when the caller has it at hand (else it is read). */
  name?: string;
}

/** The thresholds each of these budgets alerts at (its own, else the default), in one BatchGet. */
export async function alertThresholdsOf(owners: AlertOwner[]): Promise<(owner: AlertOwner) => number[]> {
  const set = owners.length > 0 ? await readAlertThresholds(owners) : () => undefined;
  return (owner) => set(owner) ?? defaultAlertThresholds();
}

/** The name people know a scope by: the key's name, the username, the team's name, "team / user", the endpoint's resource. */
async function scopeName(owner: AlertOwner): Promise<string> {
  switch (owner.kind) {
    case 'key':
      return (await getApiKeyRecord(owner.id))?.name ?? owner.id;
    case 'user':
      return (await getUserById(owner.id))?.username ?? owner.id;
    case 'team':
      return (await getTeam(owner.id))?.name ?? owner.id;
    case 'member': {
      const [teamId = '', userId = ''] = owner.id.split('#');
      const [team, user] = await Promise.all([getTeam(teamId), getUserById(userId)]);
      return `${team?.name ?? teamId} / ${user?.username ?? userId}`;
    }
    case 'endpoint':
      return (await getTrackedResource(owner.id))?.name ?? owner.id;
  }
}

/** Whether a spend has reached a threshold: spent >= t x budget, in exact nano-dollars. */
const reached = (s: BudgetState, t: number) => s.spent >= Math.ceil(t * s.budget) || (t >= 1 && s.refusedAt !== null);

/**
 * Claims every threshold the latest spend images have reached and nobody claimed yet; returns how many
 * events this claimed. Safe to run again on the same images (a redelivered batch, a second reconciler
 * pass): a claim is once.
 */
export async function claimReachedThresholds(images: BudgetState[], now: Date): Promise<number> {
  // The stream may show one item several times in a batch; its spend only grows within a month.
  const latest = new Map<string, BudgetState>();
  for (const s of images) {
    if (s.budget <= 0) continue;
    const id = `${s.owner.kind}#${s.owner.id}#${s.month}`;
    const seen = latest.get(id);
    if (!seen || s.spent >= seen.spent || (s.refusedAt && !seen.refusedAt))
      latest.set(id, { ...s, refusedAt: s.refusedAt ?? seen?.refusedAt ?? null });
  }
  const spends = [...latest.values()];
  if (spends.length === 0) return 0;
  const thresholdsOf = await alertThresholdsOf(spends.map((s) => s.owner));
  const due = spends.flatMap((s) =>
    thresholdsOf(s.owner)
      .filter((t) => reached(s, t))
      .map((t) => ({ s, t })),
  );
  if (due.length === 0) return 0;
  // A read before the conditional put: after a threshold is crossed every later settle shows it again.
  const claimed = await readClaims(due.map(({ s, t }) => ({ owner: s.owner, period: s.month, threshold: t })));
  const fresh = due.filter(({ s, t }) => !claimed(s.owner, s.month, t));
  const names = new Map<string, Promise<string>>();
  let fired = 0;
  await Promise.all(
    fresh.map(async ({ s, t }) => {
      const ownerId = `${s.owner.kind}#${s.owner.id}`;
      if (!names.has(ownerId)) names.set(ownerId, s.name === undefined ? scopeName(s.owner) : Promise.resolve(s.name));
      const event: AlertEvent = {
        id: randomUUID(),
        event: 'budget.threshold',
        scope: { kind: s.owner.kind, id: s.owner.id, name: await names.get(ownerId) },
        threshold: t,
        spent_usd: usdOf(s.spent),
        budget_usd: usdOf(s.budget),
        period: s.month,
        at: now.toISOString(),
      };
      if (await claimThreshold(s.owner, s.month, t, event)) fired++;
    }),
  );
  return fired;
}
