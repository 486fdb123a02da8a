import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { transactWrite } from '../../tables/transactions';
import { readUsage, usageWrites, type UsageScope } from '../../tables/usage';

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a turn can take seconds.
jest.setTimeout(60_000);

/** Records one counted turn of `tokens` input tokens (cost 0.001 each) at `at`. */
async function turnAt(scope: UsageScope, at: string, tokens = 1) {
  await transactWrite(usageWrites([scope], new Date(at), { requests: 1, tokensIn: tokens, tokensOut: 0, costUsd: 0.001 * tokens }));
}

async function figures(scope: UsageScope, now: string) {
  return readUsage(scope, new Date(now));
}

const fresh = (): UsageScope => ({ kind: 'user', id: randomUUID() });

describe('usage buckets', () => {
  const now = '2024-05-10T12:07:30.000Z';

  test('last24h counts whole hours and, of the oldest hour, the slots from the one holding now - 24 h', async () => {
    const scope = fresh();
    await turnAt(scope, '2024-05-10T12:07:00.000Z', 1); // now
    await turnAt(scope, '2024-05-09T13:00:00.000Z', 2); // 23 h ago
    await turnAt(scope, '2024-05-09T12:08:00.000Z', 4); // 23 h 59 m ago
    await turnAt(scope, '2024-05-09T12:05:10.000Z', 8); // 24 h 2 m ago: same 5-minute slot as now - 24 h, counted (within 5 min)
    await turnAt(scope, '2024-05-09T12:04:59.000Z', 16); // 24 h 3 m ago, earlier slot: not counted
    await turnAt(scope, '2024-05-09T11:59:00.000Z', 32); // 24 h 8 m ago: not counted
    const { last24h } = await figures(scope, now);
    expect(last24h).toEqual({ requests: 4, tokens_in: 15, tokens_out: 0, tokens_total: 15, cost_usd: 0.015 });
  });

  test('mtd counts the calendar month (UTC) and nothing of the previous one', async () => {
    const scope = fresh();
    await turnAt(scope, '2024-04-30T23:59:59.999Z', 1);
    await turnAt(scope, '2024-05-01T00:00:00.000Z', 2);
    await turnAt(scope, '2024-05-10T12:00:00.000Z', 4);
    const { mtd, last24h } = await figures(scope, now);
    expect(mtd).toEqual({ requests: 2, tokens_in: 6, tokens_out: 0, tokens_total: 6, cost_usd: 0.006 });
    expect(last24h.requests).toBe(1);
  });

  test('costs add up exactly, without floating-point drift', async () => {
    const scope = fresh();
    for (let i = 0; i < 10; i++) {
      await transactWrite(usageWrites([scope], new Date(now), { requests: 1, tokensIn: 1, tokensOut: 1, costUsd: 0.000001 * 3 + 0.1 }));
    }
    const { mtd } = await figures(scope, now);
    expect(mtd.cost_usd).toBe(1.00003);
  });

  test('scopes are kept apart', async () => {
    const a = fresh();
    const b: UsageScope = { kind: 'conversation', id: a.kind === 'user' ? a.id : '' };
    await turnAt(a, now, 5);
    expect((await figures(b, now)).mtd.requests).toBe(0);
    expect((await figures(a, now)).mtd.requests).toBe(1);
  });
});
