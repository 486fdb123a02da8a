/**
 * Section 12, a gateway call at fleet scale (issue 24): what one POST /v1/chat/completions costs in
 * DynamoDB (RCU, WCU, calls, sequential round trips) when the service tracks 10 resources and when it
 * tracks 2,000, for an API key without a budget and for one with a budget.
 *
 * The fleet is written as the deploys write it: the target is a managed resource deployed through its
 * handler (POST /api/deploy/managed), and every other resource is a copy of its item under a new id and
 * name, inserted with tables/resources.ts insertResource (the resource item with its GSI entries and its
 * name guard, in the deploy's own transaction), older than the target.
 *
 * Each figure is one call metered after a warm call of the same key and model (a warm container: the
 * key's owner and the name's resource are known to it), the median of `repeats`; the cold row is the
 * first call of a key never seen and a name never resolved. The rounds are printed in order, each
 * with the commands that overlap in it, so the critical path can be read: before the model, reads
 * (and a conditional write only when a budget applies); after it, the call's record.
 *
 * Also: whether the OLDEST of the 2,000 resources can still be called by name (a listing capped at
 * 1,000 resources could not find it).
 */
import { randomUUID } from 'node:crypto';
import { metered, type EndpointCapacity } from './capacity';
import { check, fmtMs, fmtNum, loadAverage, markdownTable, summarize, type CallRecord, type Row, type SectionResult } from './harness';
import { expectOk, invoke, service, sharedWorld } from './service';

export interface ResolutionOptions {
  small: number;
  large: number;
  repeats: number;
}

const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'TransactGetItemsCommand']);
const SINGLE_WRITES = new Set(['PutItemCommand', 'UpdateItemCommand']);

interface Measured {
  label: string;
  fleet: number;
  capacity: EndpointCapacity;
  rounds: CallRecord[][];
  ms: number;
  status: number;
}

/** Sequential round trips: a call that starts while another is in flight joins that one's round. */
export function roundsOf(records: CallRecord[]): CallRecord[][] {
  const rounds: CallRecord[][] = [];
  let openUntil = -Infinity;
  for (const r of [...records].sort((a, b) => a.started - b.started)) {
    if (r.started < openUntil) {
      rounds.at(-1)!.push(r);
      openUntil = Math.max(openUntil, r.ended);
    } else {
      rounds.push([r]);
      openUntil = r.ended;
    }
  }
  return rounds;
}

const commandName = (r: CallRecord) => r.command.replace(/Command$/, '');
/** The kind of item a key names: its partition key up to the first '#' (KEY, USER, RESNAME, PENDING…). */
const kindOf = (key: Record<string, unknown> | undefined): string => (typeof key?.PK === 'string' ? key.PK : '?').split('#')[0] ?? '?';

/** A call and the kinds of item it touched, e.g. "BatchGetItem (RESNAME ×3, RES)" or "GetItem KEY". */
function callName(r: CallRecord): string {
  const i = r.input;
  const counted = (kinds: string[]) => {
    const n = new Map<string, number>();
    for (const k of kinds) n.set(k, (n.get(k) ?? 0) + 1);
    return [...n].map(([k, c]) => (c > 1 ? `${k} ×${c}` : k)).join(', ');
  };
  switch (r.command) {
    case 'BatchGetItemCommand':
      return `BatchGetItem (${counted(Object.values(i.RequestItems as Record<string, { Keys: Record<string, unknown>[] }>).flatMap((t) => t.Keys.map(kindOf)))})`;
    case 'TransactWriteItemsCommand':
    case 'TransactGetItemsCommand':
      return `${commandName(r)} (${counted((i.TransactItems ?? []).map((t: Record<string, any>) => kindOf(Object.values(t)[0]?.Key ?? Object.values(t)[0]?.Item)))})`;
    case 'QueryCommand': {
      const first = Object.values<unknown>(i.ExpressionAttributeValues ?? {}).find((v): v is string => typeof v === 'string');
      return `Query ${i.IndexName ? `${i.IndexName} ` : ''}${(first ?? '?').split('#')[0]}`;
    }
    default:
      return `${commandName(r)} ${kindOf(i.Key ?? i.Item)}`;
  }
}

export function describeRounds(rounds: CallRecord[][]): string {
  return rounds
    .map((round) => {
      const counts = new Map<string, number>();
      for (const r of round) counts.set(callName(r), (counts.get(callName(r)) ?? 0) + 1);
      return [...counts].map(([c, n]) => (n > 1 ? `${c} ×${n}` : c)).join(' + ');
    })
    .join(' → ');
}

/**
 * The critical path issue 24 asks for: one round of reads before the model, then one conditional
 * write only with a budget, and after the model one single-item write.
 */
export function meetsRoundTarget(rounds: CallRecord[][], budgeted: boolean): boolean {
  if (rounds.length === 0) return false;
  const [first, ...rest] = rounds;
  if (!first!.every((r) => READS.has(r.command))) return false;
  const last = rest.pop();
  if (!last || last.length !== 1 || !SINGLE_WRITES.has(last[0]!.command)) return false;
  if (!budgeted) return rest.length === 0;
  return rest.length === 1 && rest[0]!.length === 1 && SINGLE_WRITES.has(rest[0]![0]!.command) && Boolean(rest[0]![0]!.input.ConditionExpression);
}

/** How many resources the table tracks (their listing index, page by page). */
async function trackedCount(): Promise<number> {
  const { listResources } = await import('../tables/resources');
  let n = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await listResources({ limit: 100, cursor });
    n += page.resources.length;
    if (!page.nextCursor) return n;
    cursor = page.nextCursor;
  }
}

export async function resolution(options: ResolutionOptions): Promise<SectionResult> {
  const svc = await service();
  const world = await sharedWorld();
  const [{ handler: createKey }, { handler: completions }, { call }, resources] = await Promise.all([
    import('../functions/keys/create'),
    import('../functions/gateway/completions'),
    import('../tests/helpers/invoke'),
    import('../tables/resources'),
  ]);
  type Handler = Parameters<typeof call>[0];
  const loadBefore = loadAverage();

  /** A managed resource deployed through its handler; its model name is the endpoint name given. */
  const deploy = async (endpointName = `bench-res-${randomUUID().slice(0, 8)}`): Promise<string> => {
    expectOk(
      'deploy',
      await invoke(svc, 'deployManaged', {
        method: 'POST',
        path: '/api/deploy/managed',
        token: world.adminToken,
        body: { modelId: MODEL, endpointName, dryRun: false },
      }),
    );
    return endpointName;
  };
  const newKey = async (body: Record<string, unknown>) => {
    const res = await call(createKey as Handler, {
      method: 'POST',
      token: world.token,
      body: { name: `bench ${randomUUID().slice(0, 6)}`, ...body },
    });
    if (res.status !== 201) throw new Error(`key create answered ${res.status}`);
    return res.body.key as string;
  };
  const complete = async (key: string, model: string) => {
    const res = await call(completions as Handler, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { model, messages: [{ role: 'user', content: 'Benchmark: what is the capital of France?' }], max_tokens: 64 },
    });
    return res.status;
  };

  // The target, deployed the real way; every filler is a copy of its item (older, so the target stays
  // the newest resource whatever a listing's order).
  const targetName = await deploy(`bench-res-target-${randomUUID().slice(0, 8)}`);
  const targetId = await resources.getNameHolder('managed', targetName);
  const template = targetId ? await resources.getTrackedResource(targetId) : undefined;
  if (!template) throw new Error(`the deployed resource ${targetName} is not in the table`);
  let fillers = 0;
  let oldestName: string | undefined;
  const base = Date.parse('2020-01-01T00:00:00Z');
  const fillTo = async (total: number) => {
    const have = await trackedCount();
    const todo = Math.max(0, total - have);
    process.stderr.write(`  fleet: ${have} tracked, inserting ${todo} more (as the deploys write them)…\n`);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < todo; i = next++) {
          const n = fillers++;
          const name = `bench-fleet-${String(n).padStart(5, '0')}-${randomUUID().slice(0, 6)}`;
          const at = new Date(base + n * 1000).toISOString();
          if (n === 0) oldestName = name;
          await resources.insertResource({
            ...template,
            id: randomUUID(),
            name,
            endpoint_name: name,
            created_at: at,
            last_updated: at,
            client_token: null,
          });
        }
      }),
    );
    const now = await trackedCount();
    process.stderr.write(`  fleet: ${now} tracked (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
    return now;
  };

  const budgeted = await newKey({ monthly_budget_usd: 1000 });
  const unbudgeted = await newKey({});
  const results: Measured[] = [];
  const measure = async (label: string, fleet: number, key: string, model: string, warm: boolean, repeats: number) => {
    if (warm) await complete(key, model);
    const per: Measured[] = [];
    for (let k = 0; k < repeats; k++) {
      let status = 0;
      const started = performance.now();
      const { capacity, records } = await metered(svc, label, async () => {
        status = await complete(key, model);
      });
      const ms = performance.now() - started;
      per.push({ label, fleet, capacity, rounds: roundsOf(records), ms, status });
    }
    per.sort((a, b) => a.capacity.rcu + a.capacity.wcu - (b.capacity.rcu + b.capacity.wcu));
    const mid = per[Math.floor(per.length / 2)] as Measured;
    results.push({ ...mid, ms: summarize(per.map((p) => p.ms)).median });
  };

  const small = await fillTo(options.small);
  process.stderr.write(`  ${small} resources: calls with and without a budget…\n`);
  await measure('key without a budget', small, unbudgeted, targetName, true, options.repeats);
  await measure('key with a budget', small, budgeted, targetName, true, options.repeats);

  const large = await fillTo(options.large);
  process.stderr.write(`  ${large} resources: calls with and without a budget, cold calls, the oldest resource…\n`);
  await measure('key without a budget', large, unbudgeted, targetName, true, options.repeats);
  await measure('key with a budget', large, budgeted, targetName, true, options.repeats);
  // Cold: a key this container never saw, calling a name it never resolved.
  await measure('cold: a new key (no budget) and a new name', large, await newKey({}), await deploy(), false, 1);
  await measure('cold: a new key (with a budget) and a new name', large, await newKey({ monthly_budget_usd: 1000 }), await deploy(), false, 1);
  const oldestStatus = oldestName ? await complete(unbudgeted, oldestName) : 0;

  return report(results, options, loadBefore, { oldestName, oldestStatus, small, large });
}

function report(
  results: Measured[],
  options: ResolutionOptions,
  loadBefore: string,
  o: { oldestName?: string; oldestStatus: number; small: number; large: number },
): SectionResult {
  const S = '12 resolution';
  const rows: Row[] = [];
  const find = (fleet: number, label: string) => results.find((r) => r.fleet === fleet && r.label === label);
  for (const r of results) {
    rows.push({
      section: S,
      measure: `${r.fleet} resources, ${r.label}`,
      value: `RCU ${fmtNum(r.capacity.rcu)}, WCU ${fmtNum(r.capacity.wcu)}, ${r.capacity.calls} calls / ${r.capacity.rounds} rounds: ${describeRounds(r.rounds)}${r.status === 200 ? '' : ` (answered ${r.status})`}`,
      status: 'info',
      detail: true,
    });
  }
  for (const label of ['key without a budget', 'key with a budget']) {
    const a = find(o.small, label);
    const b = find(o.large, label);
    if (!a || !b) continue;
    const same = a.capacity.rcu === b.capacity.rcu && a.capacity.calls === b.capacity.calls && a.capacity.rounds === b.capacity.rounds;
    rows.push({
      section: S,
      measure: `${label}: ${o.small} → ${o.large} resources`,
      value: `RCU ${fmtNum(a.capacity.rcu)} → ${fmtNum(b.capacity.rcu)}, calls ${a.capacity.calls} → ${b.capacity.calls}, rounds ${a.capacity.rounds} → ${b.capacity.rounds}`,
      target: 'the same at both sizes',
      status: check(same && a.status === 200 && b.status === 200),
    });
    const budgeted = label === 'key with a budget';
    rows.push({
      section: S,
      measure: `${label}: round trips (${o.large} resources)`,
      value: describeRounds(b.rounds),
      target: budgeted
        ? 'one round of reads, one conditional write, the model, one single-item write'
        : 'one round of reads, the model, one single-item write',
      status: check(meetsRoundTarget(b.rounds, budgeted)),
    });
  }
  rows.push({
    section: S,
    measure: `the oldest of ${o.large} resources, called by name`,
    value: o.oldestStatus === 200 ? 'answered 200' : `answered ${o.oldestStatus} (not found)`,
    target: 'answered',
    status: check(o.oldestStatus === 200),
  });
  const markdown = [
    `One POST /v1/chat/completions (a managed model through the completions handler, in process; the emulator answers at once) with DynamoDB metered as in section 3 (units computed from item sizes by DynamoDB's rules; Local's own figures beside them). The fleet: the target deployed through POST /api/deploy/managed, the others copies of its item inserted with the deploy's own transaction (tables/resources.ts insertResource: the item with its listing-index entries, and its name guard), older than the target. Warm rows: the median of ${options.repeats} calls after one unmeasured call of the same key and model (a warm container); cold rows: the first call of a key this process never saw, naming a resource it never resolved. Rounds: the sequential DynamoDB round trips in order, the commands that overlap in one joined by +. Load average ${loadBefore} before the run.`,
    '',
    markdownTable(
      ['Resources', 'Call', 'RCU', 'WCU', 'Calls', 'Round trips', 'In order', 'Median ms (in process)', 'Status'],
      results.map((r) => [
        r.fleet,
        r.label,
        fmtNum(r.capacity.rcu),
        fmtNum(r.capacity.wcu),
        r.capacity.calls,
        r.capacity.rounds,
        describeRounds(r.rounds),
        fmtMs(r.ms),
        r.status,
      ]),
    ),
    '',
    `The oldest of the ${o.large} resources (${o.oldestName ?? 'none'}), called by name with the key without a budget: ${o.oldestStatus === 200 ? 'answered 200' : `answered ${o.oldestStatus}`}.`,
  ].join('\n');
  return { rows, markdown };
}
