/**
 * Section 18, the spend breakdown (issue 34): what one GET /api/usage/breakdown reads at 10 and at
 * 100,000 calls behind the same rows. It must be the same: the breakdown reads the rows it returns
 * (days x groups), never the calls.
 *
 *   - Each case is a fresh team (its own partitions, unseen by the other case and the other sections).
 *   - Its calls are folded by the stream aggregator's own code (tables/writes/aggregates.ts
 *     applyTurnContributions, what functions/usage/aggregate.ts runs per stream batch), in batches of
 *     500 and in time order as Lambda delivers them; not 100,000 model calls through the gateway
 *     (hours on this machine), but the items, with the sums, that the aggregator writes for them.
 *   - The calls fall on 5 days of this month, 2 users with a key each, 2 models, 2 resources: 10
 *     (day, key) rows, so 10 calls already fill every row the 100,000 fill.
 *   - Measured: GET /api/usage/breakdown?groupBy=key&teamId=<team> through its handler in process, as
 *     the team's admin, DynamoDB metered as in section 3 (RCU computed from item sizes; DynamoDB
 *     Local's reported figure beside it).
 */
import { randomUUID } from 'node:crypto';
import { metered, type EndpointCapacity } from './capacity';
import { check, fmtNum, loadAverage, markdownTable, type Row, type SectionResult } from './harness';
import { service, sharedWorld } from './service';

export interface BreakdownOptions {
  sizes: number[];
}

/** Calls folded per applyTurnContributions: what Lambda delivers at most in one stream batch. */
const BATCH = 500;

interface Measured {
  calls: number;
  foldSeconds: number;
  capacity: EndpointCapacity;
  rows: number;
  requests: number;
}

export async function breakdownCost(options: BreakdownOptions): Promise<SectionResult> {
  const svc = await service();
  const world = await sharedWorld();
  const [{ handler: breakdownFn }, { handler: createTeam }, { call }, { applyTurnContributions }] = await Promise.all([
    import('../functions/usage/breakdown'),
    import('../functions/teams/create'),
    import('../tests/helpers/invoke'),
    import('../tables/writes/aggregates'),
  ]);
  type Handler = Parameters<typeof call>[0];
  const loadBefore = loadAverage();
  const month = new Date().toISOString().slice(0, 8);
  const days = [1, 2, 3, 4, 5].map((d) => `${month}${String(d).padStart(2, '0')}`);

  const measure = async (calls: number): Promise<Measured> => {
    const team = await call(createTeam as Handler, {
      method: 'POST',
      token: world.adminToken,
      body: { name: `bench-breakdown-${randomUUID().slice(0, 8)}` },
    });
    if (team.status !== 201) throw new Error(`team create answered ${team.status}: ${team.raw}`);
    const teamId = team.body.team.id as string;
    const users = [randomUUID(), randomUUID()];
    const keys = [randomUUID(), randomUUID()];
    const started = process.hrtime.bigint();
    for (let from = 0; from < calls; from += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, calls - from) }, (_, j) => {
        const i = from + j;
        // In time order, as the stream delivers them: the first fifth of the calls on the first day, and so on.
        const day = days[Math.floor((i * days.length) / calls)] as string;
        return {
          eventId: `bench-${teamId}-${i}`,
          usage: {
            answeredAt: new Date(`${day}T12:00:00Z`),
            platform: 'managed' as const,
            modelId: i % 2 ? 'amazon.nova-lite-v1:0' : 'anthropic.claude-3-haiku-20240307-v1:0',
            resourceId: world.resourceId,
            latencyMs: 100,
            delta: { requests: 1, tokensIn: 20, tokensOut: 10, cost: 123 },
            owner: { userId: users[i % 2] as string, keyId: keys[i % 2] as string, teamIds: [teamId] },
          },
        };
      });
      await applyTurnContributions(batch, new Date());
      process.stderr.write(`  folded ${from + batch.length} of ${calls} calls\n`);
    }
    const foldSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const { result, capacity } = await metered(svc, `${calls} calls`, () =>
      call(breakdownFn as Handler, {
        token: world.adminToken,
        query: { groupBy: 'key', teamId, from: days[0] as string, to: days.at(-1) as string },
      }),
    );
    if (result.status !== 200) throw new Error(`breakdown answered ${result.status}: ${result.raw}`);
    const rows = result.body.rows as { requests: number; by_day: unknown[] }[];
    return {
      calls,
      foldSeconds,
      capacity,
      rows: rows.reduce((n, r) => n + r.by_day.length, 0),
      requests: rows.reduce((n, r) => n + r.requests, 0),
    };
  };

  const results: Measured[] = [];
  for (const size of options.sizes) results.push(await measure(size));
  return report(results, loadBefore);
}

function report(results: Measured[], loadBefore: string): SectionResult {
  const S = '18 breakdown';
  const [small, large] = [results[0] as Measured, results.at(-1) as Measured];
  const same = small.capacity.rcu === large.capacity.rcu && small.capacity.calls === large.capacity.calls;
  const rows: Row[] = [
    {
      section: S,
      measure: `GET /api/usage/breakdown, ${small.calls} vs ${large.calls} calls behind the same ${large.rows} rows`,
      value: `RCU ${fmtNum(small.capacity.rcu)} → ${fmtNum(large.capacity.rcu)}, calls ${small.capacity.calls} → ${large.capacity.calls}`,
      target: 'the same read units whatever the number of calls',
      status: check(same && results.every((r) => r.requests === r.calls)),
    },
  ];
  const markdown = [
    `One GET /api/usage/breakdown?groupBy=key&teamId= over 5 days (its handler in process, DynamoDB metered as in section 3), after the stream aggregator's fold (applyTurnContributions, batches of 500 in time order) of each count of calls over 2 keys and 5 days into a fresh team's partitions. Load average ${loadBefore} before the run.`,
    '',
    markdownTable(
      ['Calls folded', 'Fold (s)', 'Rows read (key × day)', 'Requests in the rows', 'RCU', 'RCU reported', 'DynamoDB calls', 'Commands'],
      results.map((r) => [
        r.calls,
        r.foldSeconds.toFixed(1),
        r.rows,
        r.requests,
        fmtNum(r.capacity.rcu),
        fmtNum(r.capacity.reportedRcu),
        r.capacity.calls,
        r.capacity.commands,
      ]),
    ),
  ].join('\n');
  return { rows, markdown };
}
