/**
 * Bad input on every route, generated from docs/openapi.yaml. Each case is sent as a
 * super_admin (past the role guard, so the input reaches validation) and must be answered with a 4xx
 * in the spec's error shape (413 for a body over the limit), with nothing internal in it, and without
 * a write to the table.
 */
import { DeleteItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../local/runtime';
import { call } from '../helpers/invoke';
import {
  callOptions,
  closeTableClient,
  errorProblems,
  fuzzCaller,
  REVOKES_CALLER,
  fuzzCases,
  leaks,
  loadHandler,
  operations,
  SECRET_NAMES,
  keyChanges,
  type FuzzCase,
  type FuzzCaller,
} from './fuzz-cases';

const SKIP = new Set(['GET /api/openapi.json']);
const ops = operations().filter((op) => !SKIP.has(op.key));
const byKey = new Map(ops.map((op) => [op.key, op]));
const cases: FuzzCase[] = ops.flatMap(fuzzCases);

let caller: FuzzCaller;
beforeAll(async () => {
  caller = await fuzzCaller();
});
afterAll(() => closeTableClient());

test('the secrets the leak check looks for are set', () => {
  for (const name of SECRET_NAMES) expect(process.env[name]?.length ?? 0).toBeGreaterThanOrEqual(6);
});

test('the write check sees an item created or deleted, and neither an update nor the audit trail', async () => {
  const db = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);
  const TableName = process.env.TABLE_NAME;
  const Key = { PK: { S: 'WRITE-CHECK#1' }, SK: { S: 'A' } };
  try {
    await keyChanges();
    await db.send(new PutItemCommand({ TableName, Item: Key }));
    await db.send(new PutItemCommand({ TableName, Item: { PK: { S: 'AUDIT' }, SK: { S: 'write-check' } } }));
    expect(await keyChanges()).toEqual(['INSERT WRITE-CHECK#1|A']);
    await db.send(new UpdateItemCommand({ TableName, Key, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': { N: '1' } } }));
    expect(await keyChanges()).toEqual([]);
    await db.send(new DeleteItemCommand({ TableName, Key }));
    expect(await keyChanges()).toEqual(['REMOVE WRITE-CHECK#1|A']);
  } finally {
    db.destroy();
  }
});

test('the generator covers every operation of the document', () => {
  expect(ops.length).toBeGreaterThanOrEqual(30);
  for (const op of ops) expect(cases.some((c) => c.op === op.key)).toBe(true);
  expect(cases.length).toBeGreaterThan(200);
  // A bound on the file's running time: about 20 cases an operation (teams and sign-on brought it past
  // 900; the gateway's embeddings, Responses and Messages bodies, with their many fields, past 1,300;
  // team invitations, the login-failures action, inference profiles, cache_control and service tiers
  // past 1,550; routes, alert channels, stored responses and the Bedrock door's Converse body past
  // 1,900; the door's InvokeModel bodies (Claude's Messages body, twice: buffered and streamed) and
  // /v1/messages/count_tokens past 2,400). Each case reads the table's stream once to see what it
  // wrote, however large it grows.
  expect(cases.length).toBeLessThan(2500);
});

/**
 * Each operation's cases, the refused ones first: the table's stream is read once before them and once
 * after them, and must show no item created or deleted in between (a write names its keys in the
 * failure). The cases a valid request may answer with a success (`no5xx`) may write, so they run after
 * that check. An operation that revokes its caller's sessions gets a fresh caller per case, whose own
 * writes are read off before the case.
 */
describe.each(ops.map((op) => [op.key]))('%s', (key) => {
  const op = byKey.get(key)!;
  const checked = cases.filter((c) => c.op === key && c.expect !== 'no5xx');
  const unchecked = cases.filter((c) => c.op === key && c.expect === 'no5xx');
  const fresh = REVOKES_CALLER.has(key);

  const send = async (c: FuzzCase) => {
    const handler = await loadHandler(op);
    const who = fresh ? await fuzzCaller() : caller;
    if (fresh && c.expect !== 'no5xx') await keyChanges();
    const res = await call(handler, callOptions(op, c.request, who));
    const summary = { status: res.status, body: res.raw.slice(0, 300) };
    expect(leaks(res)).toEqual([]);
    expect(summary.status).toBeLessThan(500);
    if (c.expect === 'status413') expect(summary).toMatchObject({ status: 413 });
    if (c.expect === 'reject') expect(summary.status).toBeGreaterThanOrEqual(400);
    if (res.status >= 400) expect({ ...summary, problems: errorProblems(res, op) }).toMatchObject({ problems: [] });
    if (fresh && c.expect !== 'no5xx') expect(await keyChanges()).toEqual([]);
  };
  const label = (c: FuzzCase) => [`${c.category} | ${c.label}`, c] as const;

  if (checked.length > 0) {
    beforeAll(async () => {
      // What was written before (an earlier operation's successes) is not this operation's.
      await keyChanges();
    });
    test.each(checked.map(label))('%s', async (_name, c) => send(c));
    test(`its ${checked.length} refused cases created and deleted nothing`, async () => {
      expect(await keyChanges()).toEqual([]);
    });
  }
  if (unchecked.length > 0) test.each(unchecked.map(label))('%s', async (_name, c) => send(c));
});
