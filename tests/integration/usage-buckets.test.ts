import { nanosOf } from '../../core/money';
import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from '../../tables/client';
import { transactWrite } from '../../tables/transactions';
import { foldUsageHours, readUsage, usageWrites, type UsageScope } from '../../tables/usage';

// DynamoDB Local and the emulator are shared by every file running in parallel; under load a turn can take seconds.
jest.setTimeout(60_000);

/** Records one counted turn of `tokens` input tokens (cost 0.001 each) at `at`. */
async function turnAt(scope: UsageScope, at: string, tokens = 1) {
  await transactWrite(usageWrites([scope], new Date(at), { requests: 1, tokensIn: tokens, tokensOut: 0, cost: 1_000_000 * tokens }));
}

async function figures(scope: UsageScope, now: string) {
  return readUsage(scope, new Date(now));
}

const fresh = (): UsageScope => ({ kind: 'user', id: randomUUID() });

/** The sort keys of a user scope's hour items. */
async function hourItems(scope: UsageScope): Promise<string[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': `USAGE#USER#${(scope as { id: string }).id}` },
      ConsistentRead: true,
    }),
  );
  return Items.map((i) => i.SK as string).filter((sk) => sk.length === 15);
}

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

  test('hourly gives the 25 clock hours of the last 24 hours, each turn in its own hour and the oldest from now - 24 h', async () => {
    const scope = fresh();
    await turnAt(scope, '2024-05-10T12:07:00.000Z', 1); // the current hour
    await turnAt(scope, '2024-05-10T09:59:59.000Z', 2);
    await turnAt(scope, '2024-05-10T09:00:00.000Z', 4); // the same hour as the one before
    await turnAt(scope, '2024-05-09T12:05:10.000Z', 8); // the oldest hour, in the slot of now - 24 h
    await turnAt(scope, '2024-05-09T12:04:59.000Z', 16); // the oldest hour, before it: not counted
    const { hourly, last24h } = await figures(scope, now);
    expect(hourly.map((h) => h.hour)).toEqual(
      Array.from({ length: 25 }, (_, i) => new Date(Date.parse('2024-05-09T12:00:00Z') + i * 3_600_000).toISOString().replace('.000', '')),
    );
    const active = hourly.filter((h) => h.requests > 0).map((h) => [h.hour, h.requests, h.tokens_in]);
    expect(active).toEqual([
      ['2024-05-09T12:00:00Z', 1, 8],
      ['2024-05-10T09:00:00Z', 2, 6],
      ['2024-05-10T12:00:00Z', 1, 1],
    ]);
    expect(hourly.reduce((sum, h) => sum + h.tokens_total, 0)).toBe(last24h.tokens_total);
    expect(hourly[21]).toEqual({ hour: '2024-05-10T09:00:00Z', requests: 2, tokens_in: 6, tokens_out: 0, tokens_total: 6, cost_usd: 0.006 });
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
      await transactWrite(usageWrites([scope], new Date(now), { requests: 1, tokensIn: 1, tokensOut: 1, cost: nanosOf(0.000001 * 3 + 0.1) }));
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

describe('folding hours into months', () => {
  const now = '2024-05-10T12:07:30.000Z';
  const later = (ms: number) => new Date(Date.parse(now) + ms);

  test('hours over 26 hours old go into the month item and the figures read the same before and after', async () => {
    const scope = fresh();
    await turnAt(scope, '2024-05-01T08:03:00.000Z', 1);
    await turnAt(scope, '2024-05-08T23:59:00.000Z', 2);
    await turnAt(scope, '2024-05-09T12:06:00.000Z', 4); // inside the last 24 hours' tail hour
    await turnAt(scope, '2024-05-10T12:01:00.000Z', 8);
    const before = await figures(scope, now);
    expect(await foldUsageHours(scope, new Date(now))).toBe(2);
    expect(await figures(scope, now)).toEqual(before);
    expect(before.mtd.tokens_in).toBe(15);
    expect(before.last24h.tokens_in).toBe(12);
  });

  test('a second pass folds nothing again, and two passes at once fold each hour once', async () => {
    const scope = fresh();
    for (let day = 1; day <= 6; day++) await turnAt(scope, `2024-05-0${day}T10:00:00.000Z`, day);
    const before = await figures(scope, now);
    const folded = await Promise.all([foldUsageHours(scope, new Date(now)), foldUsageHours(scope, new Date(now))]);
    expect(folded.reduce((a, b) => a + b, 0)).toBe(6);
    expect(await foldUsageHours(scope, new Date(now))).toBe(0);
    expect(await figures(scope, now)).toEqual(before);
  });

  test('a folded hour is deleted by a later pass, not before a minute has passed, and the figures hold throughout', async () => {
    const scope = fresh();
    await turnAt(scope, '2024-05-02T10:00:00.000Z', 3);
    await turnAt(scope, '2024-05-10T12:00:00.000Z', 1);
    const before = await figures(scope, now);
    await foldUsageHours(scope, new Date(now));
    expect(await hourItems(scope)).toEqual(['H#2024-05-02T10', 'H#2024-05-10T12']);
    await foldUsageHours(scope, later(30_000));
    expect(await hourItems(scope)).toEqual(['H#2024-05-02T10', 'H#2024-05-10T12']);
    await foldUsageHours(scope, later(61_000));
    expect(await hourItems(scope)).toEqual(['H#2024-05-10T12']);
    expect(await figures(scope, now)).toEqual(before);
  });

  test("a month's hours fold into that month, so the new month starts from nothing", async () => {
    const scope = fresh();
    await turnAt(scope, '2024-04-29T10:00:00.000Z', 5);
    await turnAt(scope, '2024-05-01T01:00:00.000Z', 1);
    await foldUsageHours(scope, new Date(now));
    expect((await figures(scope, now)).mtd.tokens_in).toBe(1);
    expect((await figures(scope, '2024-04-30T12:00:00.000Z')).mtd.tokens_in).toBe(5);
  });
});

describe('usage written before the current layout (read lazily, not migrated)', () => {
  const now = '2024-05-10T12:07:30.000Z';

  /** What the layout before wrote for one turn: the month item M#<month> and the hour item, with long names. */
  async function oldTurnAt(scope: UsageScope & { kind: 'user' }, at: string, tokens: number) {
    const slot = `s${String(Math.floor(new Date(at).getUTCMinutes() / 5) * 5).padStart(2, '0')}`;
    const add = (SK: string, slots: boolean) =>
      db.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: { PK: `USAGE#USER#${scope.id}`, SK },
          UpdateExpression: `SET entity = :e ADD requests :r, tokens_in :t, tokens_out :z, cost_usd :c${
            slots ? `, ${slot}_requests :r, ${slot}_tokens_in :t, ${slot}_tokens_out :z, ${slot}_cost_usd :c` : ''
          }`,
          ExpressionAttributeValues: { ':e': 'usage', ':r': 1, ':t': tokens, ':z': 0, ':c': 0.001 * tokens },
        }),
      );
    await add(`M#${at.slice(0, 7)}`, false);
    await add(`H#${at.slice(0, 13)}`, true);
  }

  test("the old month item and the old hours count with the new ones, and a fold does not count an old hour's figures twice", async () => {
    const scope = fresh() as UsageScope & { kind: 'user' };
    await oldTurnAt(scope, '2024-05-02T09:00:00.000Z', 1);
    await oldTurnAt(scope, '2024-05-09T12:05:10.000Z', 2); // the tail slot of the last 24 hours
    await oldTurnAt(scope, '2024-05-10T11:00:00.000Z', 4);
    await turnAt(scope, '2024-05-10T11:30:00.000Z', 8); // the same hour item, the new layout's slots beside the old
    await turnAt(scope, '2024-05-03T09:00:00.000Z', 16);
    const expected = {
      mtd: { requests: 5, tokens_in: 31, tokens_out: 0, tokens_total: 31, cost_usd: 0.031 },
      last24h: { requests: 3, tokens_in: 14, tokens_out: 0, tokens_total: 14, cost_usd: 0.014 },
    };
    const before = await figures(scope, now);
    expect(before).toEqual({ ...expected, hourly: expect.any(Array) });
    // The old hours land in their clock hours too, beside the new layout's slots.
    expect(before.hourly.filter((h) => h.requests > 0).map((h) => [h.hour, h.tokens_in])).toEqual([
      ['2024-05-09T12:00:00Z', 2],
      ['2024-05-10T11:00:00Z', 12],
    ]);
    await foldUsageHours(scope, new Date(now));
    expect(await figures(scope, now)).toEqual(before);
  });
});
