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
/** Whether the table's stream has been read up to now: after a case that checked its writes. */
let caughtUp = false;
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

describe.each(ops.map((op) => [op.key]))('%s', (key) => {
  const mine = cases.filter((c) => c.op === key);
  test.each(mine.map((c) => [`${c.category} | ${c.label}`, c] as const))('%s', async (_name, c) => {
    const op = byKey.get(key)!;
    const handler = await loadHandler(op);
    const who = REVOKES_CALLER.has(key) ? await fuzzCaller() : caller;
    const checkWrites = c.expect !== 'no5xx';
    // What was written before (by a case without a write check, or a fresh caller) is not this case's.
    if (!caughtUp || REVOKES_CALLER.has(key)) await keyChanges();
    caughtUp = false;
    const res = await call(handler, callOptions(op, c.request, who));
    const summary = { status: res.status, body: res.raw.slice(0, 300) };

    expect(leaks(res)).toEqual([]);
    expect(summary.status).toBeLessThan(500);
    if (c.expect === 'status413') expect(summary).toMatchObject({ status: 413 });
    if (c.expect === 'reject') expect(summary.status).toBeGreaterThanOrEqual(400);
    if (res.status >= 400) expect({ ...summary, problems: errorProblems(res, op) }).toMatchObject({ problems: [] });
    if (checkWrites) {
      expect(await keyChanges()).toEqual([]);
      caughtUp = true;
    }
  });
});
