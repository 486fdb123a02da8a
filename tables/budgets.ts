import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nanosOf, type Nanos } from '../core/money';
import { TABLE, db, getItems, plainItem, readUsd, storedUsd } from './client';
import type { TransactItems } from './transactions';

/**
 * Monthly spend against a budget, of an API key, a user, a team or a team member (a user's spend
 * within one team): one item per owner and month, written only by calls that count against that
 * owner (a key's, a user's and a member's items by that caller's own calls; a team's by its members').
 *
 *   PK SPEND#KEY#<keyId> | SPEND#USER#<userId> | SPEND#TEAM#<teamId> | SPEND#MEMBER#<teamId>#<userId>
 *   SK M#<yyyy-mm>
 *   (every amount is USD as an exact decimal, storedUsd; in code it is integer nano-dollars)
 *     budget     the month's budget (0 when there is none)
 *     spent      the cost of the answered calls
 *     reserved   the sum of the reservations still open
 *     headroom   budget - spent - reserved, kept by every write (DynamoDB conditions cannot add, so
 *                the sum the budget is checked against is kept as one attribute)
 *     rv_<expires epoch s>_<id>   one attribute per open reservation: its amount
 *
 * A call reserves an upper bound of its cost before the model is asked (a conditional update:
 * headroom >= the bound), and settles after: to its true cost inside the transaction that records
 * the call (so the recorded spend is the sum of the answered calls), or to zero when it failed. The
 * reservations of concurrent calls are subtracted from the same headroom, so the spend can pass the
 * budget only by what one call cost beyond its bound, never by a call that was not covered.
 *
 * A reservation whose settle never came (the function crashed or was killed mid-stream, or the call's
 * settlement is still queued behind a failing stream batch) expires: its attribute names its expiry,
 * and the owner's next reservation (which reads the item back for free) charges every expired one its
 * bound, never 0 (the call may well have run: its cost is at most the bound). It leaves a marker
 * `xr_<expires epoch s>_<id>` holding the bound, so that a settle arriving later (the call did answer)
 * turns the bound into the true cost exactly once: settle (rv_ present), else adjust (xr_ present),
 * else nothing is left to settle. See settleWrites.
 */
export type BudgetOwner = { kind: 'key' | 'user' | 'team' | 'member'; id: string };

/** A user's spend within one team (its own budget, `monthly_budget_usd` of the membership). */
export const memberBudgetOwner = (teamId: string, userId: string): BudgetOwner => ({ kind: 'member', id: `${teamId}#${userId}` });

export interface Spend {
  spent: Nanos;
  reserved: Nanos;
}

const spendKey = (owner: BudgetOwner, month: string) => ({ PK: `SPEND#${owner.kind.toUpperCase()}#${owner.id}`, SK: `M#${month}` });
export const monthOf = (at: Date) => at.toISOString().slice(0, 7);

const RESERVATION = /^rv_(\d+)_[A-Za-z0-9-]+$/;

export interface Reservation {
  owner: BudgetOwner;
  month: string;
  /** The attribute holding it: rv_<expiry epoch seconds>_<id>. */
  attribute: string;
  amount: Nanos;
}

/**
 * Reserves `amount` of the owner's month: refused (false) when the headroom cannot cover it. The
 * month's item starts at `budget` (the owner's budget as its record says; a budget change moves the
 * current month's item itself, see setBudget).
 */
export async function reserve(input: {
  owner: BudgetOwner;
  month: string;
  budget: Nanos;
  amount: Nanos;
  id: string;
  expiresAt: Date;
  now: Date;
}): Promise<Reservation | undefined> {
  const { reservation, write } = reserveWrite(input);
  if (!write) return undefined;
  const { owner, month } = input;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const { Attributes } = await db.send(new UpdateCommand({ ...write.Update, ReturnValues: 'ALL_NEW' }));
      await releaseExpired(owner, month, Attributes, input.now);
      return reservation;
    } catch (err) {
      if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
      // Refused: if expired reservations hold the headroom, release them and try once more.
      const item = plainItem((err as { Item?: Record<string, unknown> }).Item) ?? (await readSpendItem(owner, month));
      if (attempt > 0 || (await releaseExpired(owner, month, item, input.now)) === 0) return undefined;
    }
  }
  return undefined;
}

export type ReserveInput = { owner: BudgetOwner; month: string; budget: Nanos; amount: Nanos; id: string; expiresAt: Date };

/**
 * The conditional write of a reservation (headroom >= the amount), for reserve() or a transaction of
 * several (tables/writes/holds.ts); no write when the amount is above the budget itself.
 */
export function reserveWrite(input: ReserveInput): {
  reservation: Reservation;
  write?: { Update: NonNullable<TransactItems[number]['Update']> };
} {
  const { owner, month } = input;
  const { amount } = input;
  const reservation: Reservation = { owner, month, attribute: `rv_${Math.floor(input.expiresAt.getTime() / 1000)}_${input.id}`, amount };
  if (amount > input.budget) return { reservation };
  return {
    reservation,
    write: {
      Update: {
        TableName: TABLE,
        Key: spendKey(owner, month),
        UpdateExpression:
          'SET entity = :e, budget = if_not_exists(budget, :budget), headroom = if_not_exists(headroom, :budget) - :amount, ' +
          'reserved = if_not_exists(reserved, :zero) + :amount, spent = if_not_exists(spent, :zero), #rv = :amount',
        ConditionExpression: 'attribute_not_exists(headroom) OR headroom >= :amount',
        ExpressionAttributeNames: { '#rv': reservation.attribute },
        ExpressionAttributeValues: { ':e': 'spend', ':budget': storedUsd(input.budget), ':amount': storedUsd(amount), ':zero': 0 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  };
}

async function readSpendItem(owner: BudgetOwner, month: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: spendKey(owner, month), ConsistentRead: true }));
  return Item;
}

/** Charges the expired reservations of an item their bound; returns how many it charged. */
export async function releaseExpired(owner: BudgetOwner, month: string, item: Record<string, unknown> | undefined, now: Date): Promise<number> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const expired = Object.entries(item ?? {}).filter(([name]) => Number(RESERVATION.exec(name)?.[1] ?? Infinity) < nowSeconds);
  await Promise.all(expired.map(([attribute, amount]) => expire({ owner, month, attribute, amount: readUsd(amount) })));
  return expired.length;
}

/** The marker an expired reservation leaves: its bound, charged, until a late settle adjusts it. */
const expiredMarker = (reservation: Reservation) => reservation.attribute.replace(/^rv_/, 'xr_');

/** An expired reservation is charged its bound and marked; nothing happens if it was settled meanwhile. */
async function expire(reservation: Reservation): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: spendKey(reservation.owner, reservation.month),
        UpdateExpression: 'SET reserved = reserved - :amount, spent = spent + :amount, #xr = :amount REMOVE #rv',
        ConditionExpression: 'attribute_exists(#rv)',
        ExpressionAttributeNames: { '#rv': reservation.attribute, '#xr': expiredMarker(reservation) },
        ExpressionAttributeValues: { ':amount': storedUsd(reservation.amount) },
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
  }
}

/** Gives a reservation back (the call failed, or it expired). Nothing happens if it is already gone. */
export async function release(reservation: Reservation): Promise<void> {
  try {
    await db.send(new UpdateCommand(releaseInput(reservation, 0)));
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
  }
}

function releaseInput(reservation: Reservation, cost: Nanos) {
  return {
    TableName: TABLE,
    Key: spendKey(reservation.owner, reservation.month),
    UpdateExpression: 'SET headroom = headroom + :back, reserved = reserved - :amount, spent = spent + :cost REMOVE #rv',
    ConditionExpression: 'attribute_exists(#rv)',
    ExpressionAttributeNames: { '#rv': reservation.attribute },
    ExpressionAttributeValues: { ':back': storedUsd(reservation.amount - cost), ':amount': storedUsd(reservation.amount), ':cost': storedUsd(cost) },
  };
}

/**
 * The settle of an answered call, for the transaction that records it: the reservation becomes the
 * call's true cost. Conditional on the reservation still being open (it is, unless it expired before
 * the settle came): if the condition fails, settle with `adjustWrite` instead.
 */
function settleWrite(reservation: Reservation, cost: Nanos): TransactItems[number] {
  return { Update: releaseInput(reservation, cost) };
}

/**
 * The late settle of a reservation that expired (and was charged its bound): the bound becomes the
 * true cost. Conditional on the expiry's marker, which it removes, so it happens once.
 */
function adjustWrite(reservation: Reservation, cost: Nanos): TransactItems[number] {
  const diff = storedUsd(cost - reservation.amount);
  return {
    Update: {
      TableName: TABLE,
      Key: spendKey(reservation.owner, reservation.month),
      UpdateExpression: 'SET spent = spent + :diff, headroom = headroom - :diff REMOVE #xr',
      ConditionExpression: 'attribute_exists(#xr)',
      ExpressionAttributeNames: { '#xr': expiredMarker(reservation) },
      ExpressionAttributeValues: { ':diff': diff },
    },
  };
}

/**
 * Adds a cost to an owner's month with no reservation (no budget to check, or a reservation that
 * expired). `budgetUsd` starts the month's item when this is its first write (0 without a budget).
 */
export function chargeWrite(owner: BudgetOwner, month: string, cost: Nanos, budgetUsd: number | null): TransactItems[number] {
  return {
    Update: {
      TableName: TABLE,
      Key: spendKey(owner, month),
      UpdateExpression:
        'SET entity = :e, budget = if_not_exists(budget, :budget), headroom = if_not_exists(headroom, :budget) - :cost, ' +
        'reserved = if_not_exists(reserved, :zero), spent = if_not_exists(spent, :zero) + :cost',
      ExpressionAttributeValues: { ':e': 'spend', ':budget': storedUsd(nanosOf(budgetUsd ?? 0)), ':cost': storedUsd(cost), ':zero': 0 },
    },
  };
}

/**
 * The spend of one budget owner: the reservation to settle, or a plain charge when none was taken.
 * `expired`: the reservation expired before this settle (charged its bound): adjust it instead.
 */
export type SpendSettle = { reservation: Reservation; expired?: boolean } | { owner: BudgetOwner; month: string; budgetUsd: number | null };

/** The write of a settle inside the transaction that records the call. */
export const settleItem = (settle: SpendSettle, cost: Nanos): TransactItems[number] =>
  'reservation' in settle
    ? settle.expired
      ? adjustWrite(settle.reservation, cost)
      : settleWrite(settle.reservation, cost)
    : chargeWrite(settle.owner, settle.month, cost, settle.budgetUsd);

/**
 * The settles of several calls on one owner's month as ONE update (the stream aggregator settles a
 * batch of calls in one transaction, tables/calls.ts, and a transaction may touch an item once): each
 * settle's effect on budget, headroom, reserved and spent summed, each reservation's (or expiry
 * marker's) attribute removed, and the update conditional on every one of them still being there. For
 * one settle it is exactly that settle's own write. If the condition fails, one of the reservations
 * expired meanwhile (or an adjust already ran): the caller settles those calls one by one instead.
 */
export function combinedSettleWrite(parts: { settle: SpendSettle; cost: Nanos }[]): TransactItems[number] {
  const first = parts[0];
  if (!first) throw new Error('combinedSettleWrite needs at least one settle');
  const owner = 'reservation' in first.settle ? first.settle.reservation.owner : first.settle.owner;
  const month = 'reservation' in first.settle ? first.settle.reservation.month : first.settle.month;
  let headroom = 0;
  let reserved = 0;
  let spent = 0;
  let budget: number | undefined;
  const removed: string[] = [];
  for (const { settle, cost } of parts) {
    if (!('reservation' in settle)) {
      // A plain charge: the first one starts the month's item from its record's budget.
      budget ??= nanosOf(settle.budgetUsd ?? 0);
      headroom -= cost;
      spent += cost;
    } else if (settle.expired) {
      // Its bound was charged when it expired: the bound becomes the true cost (adjustWrite).
      const diff = cost - settle.reservation.amount;
      headroom -= diff;
      spent += diff;
      removed.push(expiredMarker(settle.reservation));
    } else {
      // The reservation becomes the true cost (releaseInput).
      headroom += settle.reservation.amount - cost;
      reserved -= settle.reservation.amount;
      spent += cost;
      removed.push(settle.reservation.attribute);
    }
  }
  const names = Object.fromEntries(removed.map((attribute, i) => [`#a${i}`, attribute]));
  const placeholders = Object.keys(names);
  return {
    Update: {
      TableName: TABLE,
      Key: spendKey(owner, month),
      UpdateExpression:
        'SET entity = :e, budget = if_not_exists(budget, :budget), headroom = if_not_exists(headroom, :budget) + :headroom, ' +
        'reserved = if_not_exists(reserved, :zero) + :reserved, spent = if_not_exists(spent, :zero) + :spent' +
        (placeholders.length ? ` REMOVE ${placeholders.join(', ')}` : ''),
      ...(placeholders.length
        ? { ConditionExpression: placeholders.map((p) => `attribute_exists(${p})`).join(' AND '), ExpressionAttributeNames: names }
        : {}),
      ExpressionAttributeValues: {
        ':e': 'spend',
        ':budget': storedUsd(budget ?? 0),
        ':headroom': storedUsd(headroom),
        ':reserved': storedUsd(reserved),
        ':spent': storedUsd(spent),
        ':zero': 0,
      },
    },
  };
}

/** The owner and month a settle counts against, as one string (to group settles per spend item). */
export const settleItemKey = (settle: SpendSettle): string => {
  const { owner, month } = 'reservation' in settle ? { owner: settle.reservation.owner, month: settle.reservation.month } : settle;
  return `${owner.kind}#${owner.id}#${month}`;
};

/**
 * The next attempt's settles when the transaction that records a call was cancelled on some of them
 * (`failed`, by index). The record's own item comes first in that transaction and is conditional, so
 * the call was not recorded before: a reservation that was open has since expired (adjust it), and an
 * expired one without its marker was released at 0 by a version before markers existed (charge the
 * cost plainly). Undefined when a failed one is not a reservation (nothing explains it).
 */
export function retrySettles(settles: SpendSettle[], failed: (i: number) => boolean): SpendSettle[] | undefined {
  const next: SpendSettle[] = [];
  for (const [i, settle] of settles.entries()) {
    if (!failed(i)) next.push(settle);
    else if (!('reservation' in settle)) return undefined;
    else if (!settle.expired) next.push({ ...settle, expired: true });
    else next.push({ owner: settle.reservation.owner, month: settle.reservation.month, budgetUsd: null });
  }
  return next;
}

/**
 * Sets the budget of the owner's current month (a PATCH of the key's or user's budget), moving the
 * headroom by the difference: read, then a write conditional on what was read, retried if a call
 * moved it in between.
 *
 * `spentSoFar`, when given, is the month's true spend read from the owner's usage counters, for a
 * budget that starts now: a user's session chat is charged to their spend item only while they have
 * a budget (it saves every other turn a write), so the item's spend is raised to the month's whole
 * spend. It is read after the item, and the write is conditional on the item's spend being unchanged,
 * so a call settled in between is counted once, not lost.
 */
export async function setBudget(owner: BudgetOwner, month: string, budgetUsd: number | null, spentSoFar?: () => Promise<Nanos>): Promise<void> {
  const budget = nanosOf(budgetUsd ?? 0);
  for (let attempt = 0; ; attempt++) {
    const item = await readSpendItem(owner, month);
    const oldSpent = readUsd(item?.spent);
    const spent = spentSoFar ? Math.max(oldSpent, await spentSoFar()) : oldSpent;
    try {
      if (!item) {
        // Without spend to carry, the month's first reservation starts the item from the record's budget.
        if (spent === 0) return;
        await db.send(
          new PutCommand({
            TableName: TABLE,
            Item: {
              ...spendKey(owner, month),
              entity: 'spend',
              budget: storedUsd(budget),
              spent: storedUsd(spent),
              reserved: 0,
              headroom: storedUsd(budget - spent),
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
        return;
      }
      const old = readUsd(item.budget);
      await db.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: spendKey(owner, month),
          UpdateExpression: 'SET budget = :budget, spent = :spent, headroom = if_not_exists(headroom, :zero) + :diff',
          ConditionExpression: `${item.budget === undefined ? 'attribute_not_exists(budget)' : 'budget = :old'} AND ${item.spent === undefined ? 'attribute_not_exists(spent)' : 'spent = :oldSpent'}`,
          ExpressionAttributeValues: {
            ':budget': storedUsd(budget),
            ':spent': storedUsd(spent),
            ':diff': storedUsd(budget - old - (spent - oldSpent)),
            ':zero': 0,
            ...(item.budget === undefined ? {} : { ':old': storedUsd(old) }),
            ...(item.spent === undefined ? {} : { ':oldSpent': storedUsd(oldSpent) }),
          },
        }),
      );
      return;
    } catch (err) {
      if ((err as { name?: string }).name !== 'ConditionalCheckFailedException' || attempt >= 10) throw err;
    }
  }
}

/** A spend item as the table's stream shows it (the alert deliverer compares it with its thresholds). */
export interface SpendImage {
  owner: BudgetOwner;
  month: string;
  budget: Nanos;
  spent: Nanos;
  /** When a call was first refused for want of budget this month (markRefused), if one was. */
  refusedAt: string | null;
}

const SPEND_PK = /^SPEND#(KEY|USER|TEAM|MEMBER)#(.+)$/;

/** The spend item's figures, or undefined for an item of another shape. */
export function spendOfItem(item: Record<string, unknown>): SpendImage | undefined {
  const pk = SPEND_PK.exec(String(item.PK));
  const month = /^M#(\d{4}-\d{2})$/.exec(String(item.SK))?.[1];
  if (!pk || !month) return undefined;
  const kind = (pk[1] as string).toLowerCase() as BudgetOwner['kind'];
  return {
    owner: { kind, id: pk[2] as string },
    month,
    budget: readUsd(item.budget),
    spent: readUsd(item.spent),
    refusedAt: typeof item.refused_at === 'string' ? item.refused_at : null,
  };
}

/**
 * Notes on the owner's month that a call was refused for want of budget: the first refusal only
 * (conditional), so the alert deliverer hears of it once through the stream. Holds keep spend just
 * under a budget, so a budget may refuse calls without its spend ever reaching 100 %.
 */
export async function markRefused(owner: BudgetOwner, month: string, budget: Nanos, at: Date): Promise<void> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: spendKey(owner, month),
        // A call whose bound is above the whole budget refuses before the month has an item: start it
        // as a reservation would (the headroom follows from the budget when a reservation comes).
        UpdateExpression: 'SET refused_at = :at, entity = :e, budget = if_not_exists(budget, :budget), spent = if_not_exists(spent, :zero)',
        ConditionExpression: 'attribute_not_exists(refused_at)',
        ExpressionAttributeValues: { ':at': at.toISOString(), ':e': 'spend', ':budget': storedUsd(budget), ':zero': 0 },
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
  }
}

/** The month's spend of several owners, in one BatchGet. */
export async function readSpend(owners: BudgetOwner[], month: string): Promise<(owner: BudgetOwner) => Spend> {
  const items = await getItems(owners.map((o) => spendKey(o, month)));
  return (owner) => {
    const item = items(spendKey(owner, month));
    return { spent: readUsd(item?.spent), reserved: readUsd(item?.reserved) };
  };
}
