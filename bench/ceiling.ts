/**
 * Section 9, the predicted ceiling: how many chat turns a second the table can take, computed from
 * the items each turn writes. A model, not a measurement (DynamoDB Local neither conflicts nor
 * throttles); its inputs are measured: the items one continuing chat turn writes now (recorded here,
 * each read back for its size), the items it wrote before the stream aggregator (recorded the same way
 * on the parent commit, below), and what the aggregator writes per batch.
 *
 * DynamoDB's limits used (developer guide: "Partitions and data distribution", "Transaction conflict
 * handling"): one item takes at most 1,000 write units a second; two transactions on one item at the
 * same time conflict and one is cancelled, so an item in every turn's transaction admits about one
 * transaction per transaction time, 25-30 ms in AWS (27.5 ms here). Retries after a conflict only
 * lower that. The ceiling of a group of callers (every user, the users of one model, one user, ...) is
 * the lowest of the limits of the items they all share; the service-wide one is that of the items
 * every user shares.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { fmtNum, itemSize, markdownTable, type Row, type SectionResult } from './harness';
import { benchStream, expectOk, invoke, requests, service, sharedWorld, type Service } from './service';

const ITEM_WCU_PER_SECOND = 1000;
const TRANSACTION_MS = 27.5;

export type Sharing =
  'this turn' | 'one thread' | 'one conversation' | 'one user' | 'one API key' | 'users of one model' | 'users of one resource' | 'every user';

export interface WrittenItem {
  /** The key with ids and times replaced by placeholders. */
  key: string;
  bytes: number;
  /** Global secondary indexes the item is in (each is written again, at the item's size). */
  indexes: number;
  transactional: boolean;
}

/** Who else writes an item, by its key. */
export function sharingOf(key: string): Sharing {
  if (key.startsWith('USAGE#ALL')) return 'every user';
  if (key.startsWith('USAGE#MODEL#')) return 'users of one model';
  if (key.startsWith('RES#')) return 'users of one resource';
  if (key.startsWith('USAGE#USER#')) return 'one user';
  if (key.startsWith('USAGE#CONV#')) return 'one conversation';
  if (key.startsWith('USAGE#KEY#')) return 'one API key';
  if (key.startsWith('CONV#')) return 'one thread';
  return 'this turn';
}

const writeUnits = (item: WrittenItem) =>
  Math.max(1, Math.ceil(item.bytes / 1024)) * (item.transactional ? 2 : 1) + item.indexes * Math.max(1, Math.ceil(item.bytes / 1024));

export interface Ceiling {
  sharing: Sharing;
  items: string[];
  wcuPerTurn: number;
  turnsPerSecond: number;
  boundBy: string;
}

/**
 * The ceiling of each group of callers that shares items of a turn's synchronous write. `perTransaction`
 * is how many turns one write of these items carries (1 on the request path; a batch for the aggregator).
 */
export function ceilings(items: WrittenItem[], perTransaction = 1): Ceiling[] {
  const groups = new Map<Sharing, WrittenItem[]>();
  for (const item of items) {
    const sharing = sharingOf(item.key);
    if (sharing === 'this turn') continue;
    groups.set(sharing, [...(groups.get(sharing) ?? []), item]);
  }
  return [...groups].map(([sharing, shared]) => {
    const hottest = Math.max(...shared.map(writeUnits));
    const byUnits = (ITEM_WCU_PER_SECOND / hottest) * perTransaction;
    const byConflicts = shared.some((i) => i.transactional) ? (1000 / TRANSACTION_MS) * perTransaction : Infinity;
    return {
      sharing,
      items: shared.map((i) => i.key),
      wcuPerTurn: shared.reduce((a, i) => a + writeUnits(i), 0) / perTransaction,
      turnsPerSecond: Math.min(byUnits, byConflicts),
      boundBy:
        byConflicts <= byUnits
          ? `conflicts: one transaction per ${TRANSACTION_MS} ms on an item${perTransaction > 1 ? `, ${perTransaction} turns each` : ''}`
          : `${ITEM_WCU_PER_SECOND} WCU/s on an item at ${hottest} WCU per write`,
    };
  });
}

/** One continuing chat turn on the parent commit (0736277), recorded as `recordTurnItems` does. */
export const BEFORE: WrittenItem[] = [
  { key: 'THREAD#<id> MSG#<ts>#<id>#0', bytes: 708, indexes: 1, transactional: true },
  { key: 'THREAD#<id> MSG#<ts>#<id>#1', bytes: 1500, indexes: 1, transactional: true },
  { key: 'CONV#<id> THREAD#<id>', bytes: 367, indexes: 0, transactional: true },
  { key: 'USAGE#USER#<id> M#<month>', bytes: 118, indexes: 0, transactional: true },
  { key: 'USAGE#USER#<id> H#<hour>', bytes: 196, indexes: 0, transactional: true },
  { key: 'USAGE#CONV#<id> M#<month>', bytes: 118, indexes: 0, transactional: true },
  { key: 'USAGE#CONV#<id> H#<hour>', bytes: 196, indexes: 0, transactional: true },
  { key: 'USAGE#ALL M#<month>', bytes: 80, indexes: 0, transactional: true },
  { key: 'USAGE#ALL H#<hour>', bytes: 158, indexes: 0, transactional: true },
  { key: 'USAGE#MODEL#managed#<model> TOTAL', bytes: 229, indexes: 0, transactional: true },
  { key: 'RES#<id> META', bytes: 517, indexes: 2, transactional: true },
];

const placeholders = (key: string) =>
  key
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<ts>')
    .replace(/\d{4}-\d\d-\d\dT\d\d\b/g, '<hour>')
    .replace(/H#\d{4}-\d\d\b/g, 'H#<month>')
    .replace(/USAGE#MODEL#(\w+)#.*/, 'USAGE#MODEL#$1#<model> TOTAL');

/** The items of the writes `run` makes through the service's client, read back for their sizes. */
async function recordTurnItems(svc: Service, run: () => Promise<unknown>): Promise<WrittenItem[]> {
  svc.meter.record = true;
  let records;
  try {
    records = (await svc.meter.measure(run)).meter.records;
  } finally {
    svc.meter.record = false;
  }
  const writes: { key: Record<string, unknown>; transactional: boolean }[] = [];
  for (const r of records) {
    if (r.command === 'TransactWriteItemsCommand') {
      for (const t of r.input.TransactItems) {
        const key = t.Put ? { PK: t.Put.Item.PK, SK: t.Put.Item.SK } : (t.Update ?? t.Delete ?? t.ConditionCheck).Key;
        writes.push({ key, transactional: true });
      }
    } else if (r.command === 'PutItemCommand' || r.command === 'UpdateItemCommand') {
      writes.push({ key: r.command === 'PutItemCommand' ? { PK: r.input.Item.PK, SK: r.input.Item.SK } : r.input.Key, transactional: false });
    } else if (r.command === 'BatchWriteItemCommand') {
      for (const reqs of Object.values<{ PutRequest?: { Item: Record<string, unknown> } }[]>(r.input.RequestItems))
        for (const req of reqs)
          if (req.PutRequest) writes.push({ key: { PK: req.PutRequest.Item.PK, SK: req.PutRequest.Item.SK }, transactional: false });
    }
  }
  svc.meter.paused = true;
  try {
    const items: WrittenItem[] = [];
    for (const w of writes) {
      const { Item } = await svc.client.db.send(new GetCommand({ TableName: svc.client.TABLE, Key: w.key, ConsistentRead: true }));
      const indexes = [Item?.GSI1PK, Item?.GSI2PK].filter((v) => v !== undefined).length;
      items.push({ key: placeholders(`${String(w.key.PK)} ${String(w.key.SK)}`), bytes: itemSize(Item), indexes, transactional: w.transactional });
    }
    return items;
  } finally {
    svc.meter.paused = false;
  }
}

const fmtRate = (n: number) => (Number.isFinite(n) ? (n >= 1000 ? `${Math.round(n).toLocaleString('en')}` : fmtNum(n, 0)) : 'no limit');

export async function ceiling(options: { batch: number }): Promise<SectionResult> {
  const svc = await service();
  const world = await sharedWorld();
  const req = requests(world);
  const stream = await benchStream(svc);
  await stream.drain();

  process.stderr.write('  the items of one continuing chat turn…\n');
  const after = await recordTurnItems(svc, async () => expectOk('chat turn', await invoke(svc, 'threadPost', req.threadPost())));
  process.stderr.write(`  the items the aggregator writes for a batch of ${options.batch} turns…\n`);
  for (let i = 1; i < options.batch; i++) expectOk('chat turn', await invoke(svc, 'threadPost', req.threadPost()));
  const records = await stream.capture();
  const aggregated = await recordTurnItems(svc, () => stream.aggregate({ Records: records }));

  const before = ceilings(BEFORE);
  const now = ceilings(after);
  const folded = ceilings(
    aggregated.filter((i) => sharingOf(i.key) !== 'this turn'),
    options.batch,
  );
  const serviceWide = (list: Ceiling[]) => list.find((c) => c.sharing === 'every user');
  const beforeAll = serviceWide(before) as Ceiling;
  const foldedAll = serviceWide(folded);
  const rows: Row[] = [
    {
      section: '9 ceiling',
      measure: 'service-wide ceiling, chat turns per second (items shared by every user)',
      value: `before: ${fmtRate(beforeAll.turnsPerSecond)} (${beforeAll.items.join(', ')}; ${beforeAll.boundBy}); now: ${
        serviceWide(now) ? fmtRate((serviceWide(now) as Ceiling).turnsPerSecond) : 'no item shared by every user on the request path'
      }; the aggregator's: ${foldedAll ? fmtRate(foldedAll.turnsPerSecond) : 'none'} (${foldedAll?.boundBy ?? ''})`,
      target: 'no item shared by every user on the request path',
      status: serviceWide(now) ? 'not met' : 'met',
    },
  ];
  const table = (list: Ceiling[]) =>
    markdownTable(
      ['Shared by', 'Items', 'WCU per turn on them', 'Ceiling (turns/s)', 'Bound by'],
      list.map((c) => [c.sharing, c.items.join(', '), fmtNum(c.wcuPerTurn, 2), fmtRate(c.turnsPerSecond), c.boundBy]),
    );
  const markdown = [
    `A model (bench/ceiling.ts), not a measurement: DynamoDB Local neither conflicts nor throttles. Limits: ${ITEM_WCU_PER_SECOND} write units a second per item; an item in every turn's transaction admits one transaction per ${TRANSACTION_MS} ms (AWS's 25-30 ms; concurrent transactions on it are cancelled, and retries only lower the rate). Inputs: the items one continuing chat turn writes, read back for their sizes (now: recorded in this run; before: recorded the same way on the parent commit, 0736277), and what the stream aggregator writes for a batch of ${options.batch} turns (per turn).`,
    '',
    '**Before** (one 11-item transaction per turn):',
    '',
    table(before),
    '',
    "**Now, the request path** (the turn and its caller's own counters):",
    '',
    table(now),
    '',
    `**Now, the stream aggregator** (batch of ${options.batch}; one transaction per batch carries all its turns):`,
    '',
    table(folded),
    '',
    `So the service-wide ceiling moves from about ${fmtRate(beforeAll.turnsPerSecond)} turns a second (every turn serialised on ${beforeAll.items.filter((k) => k.includes('USAGE#ALL')).join(' and ')}) to no item-bound on the request path: each user, conversation and API key is bounded by its own hour items (about ${fmtRate(1000 / TRANSACTION_MS)} turns a second of one caller, or into one conversation, at once), and the shared totals by the aggregator, which carries a whole batch per transaction${foldedAll ? ` (${fmtRate(foldedAll.turnsPerSecond)} turns a second at batches of ${options.batch}; Lambda's batches grow to 500 under load)` : ''}.`,
  ].join('\n');
  return { rows, markdown };
}
