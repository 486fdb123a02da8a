/**
 * Concurrency as DynamoDB would see it: DynamoDB's transaction conflict rules applied on the
 * document client (tests/helpers/conflicts.ts: a transaction touching an item another transaction
 * holds is cancelled, and each holds its items 25 ms longer than DynamoDB Local needs, as long as a
 * transaction takes in AWS). Nothing in a turn's transaction is shared by two users, so turns of
 * different users never conflict; a user's own simultaneous turns do (their hour items), and retry.
 */
import { jest } from '@jest/globals';
import type { Handler } from '../helpers/invoke';

// 100 simultaneous turns queue here for one process, one emulator and one DynamoDB Local (in AWS each
// is a Lambda of its own): their model calls and their writes' retries get more than the deployed
// 12 s and 10 s. Set before anything reads the configuration, hence the dynamic imports.
process.env.UPSTREAM_TIMEOUT_MS = '60000';
process.env.TURN_WRITE_RETRY_MS = '60000';
// A turn that fails here fails rarely and only under load: its error goes to the test output.
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'ERROR';
// One after the other: jest's ESM loader fails on simultaneous imports of shared modules.
const { handler: postThread } = await import('../../functions/chat/thread-post');
const { handler: getThread } = await import('../../functions/chat/thread-get');
const { db } = await import('../../tables/client');
const { getTrackedResource } = await import('../../tables/resources');
const { getModelUsageTotals, readUsage } = await import('../../tables/usage');
const { applyTransactionConflictRules } = await import('../helpers/conflicts');
const { call } = await import('../helpers/invoke');
const { drainStream } = await import('../helpers/stream');
const { makeUser } = await import('../helpers/users');
const { MANAGED_MODEL, managedResource, newConversation, ok } = await import('./chat-fixtures');

jest.setTimeout(300_000);

// 20 people with 5 simultaneous turns each: every person's turns conflict with each other (their hour
// items) and no person's with another's, which is all this shows; more turns only queue longer here.
const PEOPLE = 20;
const TURNS = 5;

test('100 concurrent turns by 20 users all succeed under DynamoDB conflict rules, every figure exact: per user and conversation at once, service-wide and per model once drained', async () => {
  const resource = await managedResource();
  const people = await Promise.all(
    Array.from({ length: PEOPLE }, async (_, i) => {
      const owner = await makeUser('user');
      const conversationId = await newConversation(owner.token, resource, `Conflicts ${i}`);
      const first = await ok(
        call(postThread as Handler, { method: 'POST', token: owner.token, body: { message: 'hello', conversationId, resourceId: resource.id } }),
      );
      return { owner, conversationId, threadId: first.body.threadId as string, tokens: first.body.messages[1].tokens_total as number };
    }),
  );
  await drainStream();
  const before = { all: await readUsage({ kind: 'all' }, new Date()), model: await getModelUsageTotals('managed', MANAGED_MODEL) };

  const rules = applyTransactionConflictRules(db, { holdMs: 25 });
  let results;
  try {
    results = await Promise.all(
      people.flatMap((p) =>
        Array.from({ length: TURNS }, (_, k) =>
          call(postThread as Handler, {
            method: 'POST',
            token: p.owner.token,
            body: { message: `turn ${k}`, conversationId: p.conversationId, resourceId: resource.id, threadId: p.threadId },
            // The invocations queue here for one process and one DynamoDB Local (each its own in Lambda).
            remainingMs: 120_000,
          }).then((res) => ({ person: p, res })),
        ),
      ),
    );
  } finally {
    rules.remove();
  }
  expect(results.filter((r) => r.res.status !== 200).map((r) => r.res.raw)).toEqual([]);
  // Conflicts did happen (one user's simultaneous turns share their hour items) and were retried.
  expect(rules.stats.cancelled).toBeGreaterThan(0);

  const tokens = new Map(people.map((p) => [p.owner.user.id, p.tokens]));
  for (const { person, res } of results)
    tokens.set(person.owner.user.id, (tokens.get(person.owner.user.id) ?? 0) + res.body.messages[1].tokens_total);
  for (const p of people) {
    for (const scope of [
      { kind: 'user' as const, id: p.owner.user.id },
      { kind: 'conversation' as const, id: p.conversationId },
    ]) {
      const { mtd } = await readUsage(scope, new Date());
      expect({ requests: mtd.requests, tokens: mtd.tokens_total }).toEqual({ requests: 1 + TURNS, tokens: tokens.get(p.owner.user.id) });
    }
  }
  const thread = await call(getThread as Handler, {
    token: people[0]?.owner.token,
    query: { threadId: people[0]?.threadId as string, conversationId: people[0]?.conversationId as string },
  });
  expect(thread.body.messages).toHaveLength(2 * (1 + TURNS));

  await drainStream();
  const all = await readUsage({ kind: 'all' }, new Date());
  const allTokens = results.reduce((n, r) => n + (r.res.body.messages[1].tokens_total as number), 0);
  expect(all.mtd.requests).toBe(before.all.mtd.requests + PEOPLE * TURNS);
  expect(all.mtd.tokens_total).toBe(before.all.mtd.tokens_total + allTokens);
  expect((await getModelUsageTotals('managed', MANAGED_MODEL)).invocations).toBe(before.model.invocations + PEOPLE * TURNS);
  expect((await getTrackedResource(resource.id))?.chat_count).toBe(PEOPLE * (1 + TURNS));
});
