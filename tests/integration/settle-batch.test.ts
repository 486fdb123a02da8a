/**
 * The batched settle of pending gateway calls (tables/calls.ts settlePendingCalls), what the stream
 * aggregator runs on each batch: against DynamoDB Local, with real reservations and rate holds.
 * Checked: every figure equals the sum of the calls exactly (spend, reserved, headroom, the usage hour
 * items, the rate windows), every call is logged once and no pending item is left, a redelivered
 * batch or a batch half settled before changes nothing twice, a reservation that expired before its
 * settle came is adjusted, and a batch larger than one transaction is cut into several.
 */
import { nanosOf, usdOf } from '../../core/money';
import { tokenCost } from '../../lib/pricing/service';
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { readSpend, releaseExpired, reserve, monthOf, type BudgetOwner, type SpendSettle } from '../../tables/budgets';
import { pendingCallsOf, putPendingCall, type MeteredCall } from '../../tables/calls';
import { settlePendingCall, settlePendingCalls } from '../../tables/writes/calls';
import { TABLE, db } from '../../tables/client';
import { holdRate, minuteOf, readRateCounts, type RateHold } from '../../tables/rates';
import { readUsage } from '../../tables/usage';

jest.setTimeout(120_000);

const now = new Date();
const month = monthOf(now);
const usd = (n: number) => Math.round(n * 1e6) / 1e6;

async function spendItem(owner: BudgetOwner) {
  const { Item } = await db.send(
    new GetCommand({ TableName: TABLE, Key: { PK: `SPEND#${owner.kind.toUpperCase()}#${owner.id}`, SK: `M#${month}` }, ConsistentRead: true }),
  );
  return Item as Record<string, unknown> | undefined;
}

async function loggedCalls(keyId: string): Promise<string[]> {
  const { Items } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': `KEYCALLS#${keyId}` },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((i) => String(i.SK));
}

/** The TransactWriteItems requests sent from here on, by their item counts. */
function countTransactions() {
  const items: number[] = [];
  const name = `count-transactions-${randomUUID()}`;
  db.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TransactItems?: unknown[] };
      if (input.TransactItems) items.push(input.TransactItems.length);
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { items, stop: () => db.middlewareStack.remove(name) };
}

interface Caller {
  userId: string;
  keyId: string;
  key: BudgetOwner;
  user: BudgetOwner;
}

const newCaller = (): Caller => {
  const userId = randomUUID();
  const keyId = randomUUID();
  return { userId, keyId, key: { kind: 'key', id: keyId }, user: { kind: 'user', id: userId } };
};

/**
 * One answered call of `caller`, as the critical path leaves it: a reservation of `bound` on the
 * key's budget (when it has one), a plain charge on the user, a rate hold of `bound * 1000` tokens on
 * the key's minute, and its pending item written.
 */
async function answeredCall(caller: Caller, costUsd: number, opts: { budget?: number; bound?: number; expiresAt?: Date } = {}): Promise<MeteredCall> {
  const callId = randomUUID();
  const settles: SpendSettle[] = [{ owner: caller.user, month, budgetUsd: null }];
  const bound = opts.bound ?? 0.01;
  if (opts.budget !== undefined) {
    const reservation = await reserve({
      owner: caller.key,
      month,
      budget: nanosOf(opts.budget),
      amount: nanosOf(bound),
      id: callId,
      expiresAt: opts.expiresAt ?? new Date(now.getTime() + 600_000),
      now: new Date(),
    });
    if (!reservation) throw new Error('the test budget could not cover the bound');
    settles.push({ reservation });
  }
  const hold: RateHold = { level: { kind: 'key', id: caller.keyId }, minute: minuteOf(now), tokens: 1000 };
  const held = await holdRate({ level: hold.level, rpm: 10_000, tpm: 10_000_000 }, hold);
  expect(held.ok).toBe(true);
  const call: MeteredCall = {
    callId,
    requestId: randomUUID(),
    userId: caller.userId,
    keyId: caller.keyId,
    startedAt: new Date(now.getTime() - 20).toISOString(),
    answeredAt: now.toISOString(),
    resource: { id: 'res-settle-batch', type: 'hosted' },
    modelId: 'meta/llama-3.1-8b-instruct',
    usageModelId: 'meta/llama-3.1-8b-instruct',
    tokensIn: 10,
    tokensOut: 20,
    latencyMs: 20,
    cost: nanosOf(costUsd),
    scopes: [
      { kind: 'user', id: caller.userId },
      { kind: 'key', id: caller.keyId },
    ],
    settles,
    rates: [hold],
  };
  await putPendingCall(call);
  return call;
}

test('a batch of calls of several keys settles exactly: spend, reservations, headroom, usage hours, rate windows, call logs', async () => {
  const callers = [newCaller(), newCaller(), newCaller()];
  const calls: MeteredCall[] = [];
  const costs = [0.000123, 0.004567, 0.00089, 0.0021, 0.000001, 0.003333];
  for (const [i, cost] of costs.entries()) {
    const caller = callers[i % 3] as Caller;
    // The first caller's key has a budget (reservations); the others' calls are plain charges.
    calls.push(await answeredCall(caller, cost, i % 3 === 0 ? { budget: 1 } : {}));
  }
  // Interleaved, as a stream batch brings them; settled in ONE transaction (6 calls × 2 own items, 6 hour items, 3 rate windows, 4 spend items).
  const transactions = countTransactions();
  try {
    expect(await settlePendingCalls(calls)).toBe(costs.length);
  } finally {
    transactions.stop();
  }
  expect(transactions.items).toEqual([12 + 6 + 3 + 4]);

  for (const [c, caller] of callers.entries()) {
    const mine = costs.filter((_, i) => i % 3 === c);
    const sum = usd(mine.reduce((a, b) => a + b, 0));
    expect(await pendingCallsOf(caller.userId)).toEqual([]);
    expect(await loggedCalls(caller.keyId)).toHaveLength(mine.length);
    const user = await spendItem(caller.user);
    expect(user).toMatchObject({ spent: sum, reserved: 0, headroom: -sum });
    for (const scope of [
      { kind: 'user' as const, id: caller.userId },
      { kind: 'key' as const, id: caller.keyId },
    ]) {
      const { mtd } = await readUsage(scope, new Date());
      expect(mtd.requests).toBe(mine.length);
      expect(mtd.tokens_total).toBe(30 * mine.length);
      expect(mtd.cost_usd).toBeCloseTo(sum, 6);
    }
    const [rate] = await readRateCounts([{ kind: 'key', id: caller.keyId }], minuteOf(now));
    // Each hold's 1,000-token bound became the call's 30 true tokens.
    expect(rate).toEqual({ requests: mine.length, tokens: 30 * mine.length });
  }
  const budgeted = usd(costs[0]! + costs[3]!);
  expect(await spendItem(callers[0]!.key)).toMatchObject({ budget: 1, spent: budgeted, reserved: 0, headroom: usd(1 - budgeted) });
  const open = Object.keys((await spendItem(callers[0]!.key)) ?? {}).filter((a) => a.startsWith('rv_'));
  expect(open).toEqual([]);
});

test('a redelivered batch, and a batch of which some calls were settled before, settle nothing twice', async () => {
  const caller = newCaller();
  const calls = [];
  for (let i = 0; i < 6; i++) calls.push(await answeredCall(caller, 0.001 * (i + 1), { budget: 5 }));
  // Two settled alone first (an earlier, shorter delivery).
  expect(await settlePendingCall(calls[1]!)).toBe(true);
  expect(await settlePendingCall(calls[4]!)).toBe(true);
  expect(await settlePendingCalls(calls)).toBe(4);
  expect(await settlePendingCalls(calls)).toBe(0);
  const sum = usd(0.001 * (1 + 2 + 3 + 4 + 5 + 6));
  expect(await spendItem(caller.key)).toMatchObject({ spent: sum, reserved: 0, headroom: usd(5 - sum) });
  expect(await spendItem(caller.user)).toMatchObject({ spent: sum });
  expect(await loggedCalls(caller.keyId)).toHaveLength(6);
  expect((await readUsage({ kind: 'key', id: caller.keyId }, new Date())).mtd.requests).toBe(6);
  expect(await readRateCounts([{ kind: 'key', id: caller.keyId }], minuteOf(now))).toEqual([{ requests: 6, tokens: 180 }]);
});

test('a reservation that expired before its settle came is charged its bound, then adjusted to the true cost in the batch', async () => {
  const caller = newCaller();
  const expired = await answeredCall(caller, 0.002, { budget: 1, bound: 0.05, expiresAt: new Date(Date.now() - 1000) });
  const fresh = await answeredCall(caller, 0.003, { budget: 1, bound: 0.05 });
  // The owner's next reservation (the fresh call's) found the expired one and charged its bound; nothing is left to release.
  expect(await spendItem(caller.key)).toMatchObject({ spent: 0.05, reserved: 0.05 });
  expect(await releaseExpired(caller.key, month, await spendItem(caller.key), new Date())).toBe(0);
  expect(await settlePendingCalls([expired, fresh])).toBe(2);
  expect(await spendItem(caller.key)).toMatchObject({ spent: 0.005, reserved: 0, headroom: usd(1 - 0.005) });
  const left = Object.keys((await spendItem(caller.key)) ?? {}).filter((a) => /^(rv|xr)_/.test(a));
  expect(left).toEqual([]);
  expect(await loggedCalls(caller.keyId)).toHaveLength(2);
});

test('a batch larger than one transaction is cut into several, every call settled once', async () => {
  // 60 callers, one call each: 2 own items + 2 hour items + 1 rate window + 1 spend item per call.
  const callers = Array.from({ length: 60 }, newCaller);
  const calls = [];
  for (const caller of callers) calls.push(await answeredCall(caller, 0.000007));
  const transactions = countTransactions();
  try {
    expect(await settlePendingCalls(calls)).toBe(60);
  } finally {
    transactions.stop();
  }
  // 16 calls (96 items) fit in a transaction of at most 100.
  expect(transactions.items).toEqual([96, 96, 96, 72]);
  for (const caller of callers.slice(0, 5).concat(callers.slice(-5))) {
    expect(await pendingCallsOf(caller.userId)).toEqual([]);
    expect(await spendItem(caller.user)).toMatchObject({ spent: 0.000007 });
    expect(await loggedCalls(caller.keyId)).toHaveLength(1);
  }
});

test('three hundred 5-token embedding calls at $0.0000001 each settle to exactly $0.00003, on top of a spend item written in the old rounded unit', async () => {
  const caller = newCaller();
  // A month item as the service wrote it before nano-dollars: USD rounded to a millionth.
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { PK: `SPEND#USER#${caller.userId}`, SK: `M#${month}`, entity: 'spend', budget: 0, spent: 0.000002, reserved: 0, headroom: -0.000002 },
    }),
  );
  const cost = usdOf(tokenCost({ input_per_1k: 0.00002, output_per_1k: 0 }, 5, 0)); // Titan Text Embeddings v2
  expect(cost).toBe(0.0000001);
  const calls = await Promise.all(Array.from({ length: 300 }, () => answeredCall(caller, cost, { budget: 1, bound: 0.0000002 })));
  expect(await settlePendingCalls(calls)).toBe(300);
  expect(await spendItem(caller.key)).toMatchObject({ budget: 1, spent: 0.00003, reserved: 0, headroom: 0.99997 });
  expect(await spendItem(caller.user)).toMatchObject({ spent: 0.000032, headroom: -0.000032 });
  expect((await readSpend([caller.user], month))(caller.user).spent).toBe(32_000);
  for (const scope of [
    { kind: 'user' as const, id: caller.userId },
    { kind: 'key' as const, id: caller.keyId },
  ])
    expect((await readUsage(scope, new Date())).mtd.cost_usd).toBe(0.00003);
});
