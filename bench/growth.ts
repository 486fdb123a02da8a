/**
 * Section 4, growth: usage read, conversation list (page of 20) and thread read (one page) for a user
 * whose history holds SMALL messages and one whose history holds LARGE messages. The history is
 * seeded directly (BatchWrite of turn items built by tables/messages.ts, two messages each, and the
 * usage counters those turns would have left, built by tables/usage.ts, with the hours over a day old
 * folded into the month as the stream aggregator would), not through the model: one turn a minute,
 * ending now, so the last 24 hours hold part of it. Both users have 21 conversations, so the list's
 * page of 20 is full. The two are measured interleaved, so drift in the machine's load hits both.
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { check, fmtMs, markdownTable, summarize, type Row, type SectionResult } from './harness';
import { expectOk, invoke, service, type Service } from './service';
import type { CallOptions } from '../tests/helpers/invoke';

const CONVERSATIONS_PER_USER = 21;
const THREAD_PAGE = 100;
const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';

interface History {
  label: string;
  messages: number;
  token: string;
  conversationId: string;
  threadId: string;
}

async function seedHistory(svc: Service, resourceId: string, messages: number): Promise<History> {
  const { db, TABLE } = svc.client;
  const { user, token } = await svc.users.makeUser('user');
  const resource = { id: resourceId, name: 'bench-growth', type: 'managed' } as never;
  const conversationIds: string[] = [];
  for (let i = 0; i < CONVERSATIONS_PER_USER; i++) conversationIds.push(await svc.fixtures.newConversation(token, resource, `History ${i}`));
  const conversationId = conversationIds.at(-1) as string;
  const threadId = randomUUID();
  const turns = messages / 2;
  const base = Date.now() - (turns + 1) * 60_000;

  const items: Record<string, unknown>[] = [];
  const buckets = new Map<string, { at: Date; requests: number; tokensIn: number; tokensOut: number; cost: number }>();
  for (let i = 0; i < turns; i++) {
    const at = new Date(base + i * 60_000);
    const ts = at.toISOString();
    items.push(
      svc.messages.turnItem({
        source: 'thread',
        conversationId,
        threadId,
        turnId: randomUUID(),
        startedAt: ts,
        username: user.username,
        resourceId,
        userText: `Seeded question number ${i}: what is the capital of France?`,
        reply: {
          text: `Seeded answer number ${i}: the capital of France is Paris.`,
          answeredAt: new Date(at.getTime() + 5).toISOString(),
          modelId: MODEL,
          tokensIn: 20,
          tokensOut: 30,
          latencyMs: 5,
          platform: 'managed',
          usageModelId: MODEL,
          cost: 43_000,
        },
      }),
    );
    const hour = ts.slice(0, 13);
    const b = buckets.get(hour) ?? { at, requests: 0, tokensIn: 0, tokensOut: 0, cost: 0 };
    b.requests += 1;
    b.tokensIn += 20;
    b.tokensOut += 30;
    b.cost += 43_000;
    buckets.set(hour, b);
  }
  const writeChunk = async (chunk: Record<string, unknown>[]) => {
    let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: pending } }));
      pending = (out.UnprocessedItems?.[TABLE] ?? []) as typeof pending;
    }
  };
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) chunks.push(items.slice(i, i + 25));
  for (let i = 0; i < chunks.length; i += 8) await Promise.all(chunks.slice(i, i + 8).map(writeChunk));
  // The thread item and the counters those turns would have left, per hour.
  await svc.transactions.transactWrite([
    svc.conversations.threadPut({ conversationId, threadId, userId: user.id, at: new Date(base).toISOString() }),
  ]);
  const scopes = [
    { kind: 'user' as const, id: user.id },
    { kind: 'conversation' as const, id: conversationId },
  ];
  for (const b of buckets.values()) {
    await svc.transactions.transactWrite(
      svc.usage.usageWrites(scopes, b.at, {
        requests: b.requests,
        tokensIn: b.tokensIn,
        tokensOut: b.tokensOut,
        cost: b.cost,
      }),
    );
  }
  // As the stream aggregator does once a scope starts a new hour: hours over a day old go into the month.
  const now = new Date();
  for (const scope of scopes) await svc.usage.foldUsageHours(scope, now);
  return { label: `${messages.toLocaleString('en')} messages`, messages, token, conversationId, threadId };
}

const READS = {
  usage: {
    label: 'usage read (conversation)',
    handler: 'usageCurrent' as const,
    options: (h: History): CallOptions => ({
      method: 'GET',
      path: '/api/usage/current',
      token: h.token,
      query: { conversationId: h.conversationId },
    }),
  },
  list: {
    label: 'conversation list (page of 20)',
    handler: 'conversationsList' as const,
    options: (h: History): CallOptions => ({ method: 'GET', path: '/api/conversations', token: h.token, query: { limit: '20' } }),
  },
  thread: {
    label: `thread read (page of ${THREAD_PAGE})`,
    handler: 'threadGet' as const,
    options: (h: History): CallOptions => ({
      method: 'GET',
      path: '/api/chat/thread',
      token: h.token,
      query: { conversationId: h.conversationId, threadId: h.threadId, limit: String(THREAD_PAGE) },
    }),
  },
};

export async function growth(options: { small: number; large: number; n: number; warmup: number }): Promise<SectionResult> {
  const svc = await service();
  const resource = await svc.fixtures.managedResource();
  process.stderr.write(`  seeding ${options.small} and ${options.large} messages…\n`);
  const small = await seedHistory(svc, resource.id, options.small);
  const large = await seedHistory(svc, resource.id, options.large);

  // Sanity: the seeded usage is visible and the page is full.
  const usage = expectOk('usage read', await invoke(svc, 'usageCurrent', READS.usage.options(large)));
  if (usage.body.mtd.requests + usage.body.last24h.requests === 0) throw new Error('seeded usage is not visible');
  const page = expectOk('thread read', await invoke(svc, 'threadGet', READS.thread.options(large)));
  if (page.body.messages.length !== THREAD_PAGE) throw new Error(`thread page has ${page.body.messages.length} messages, expected ${THREAD_PAGE}`);

  const rows: Row[] = [];
  const md: (string | number)[][] = [];
  for (const read of Object.values(READS)) {
    process.stderr.write(`  ${read.label}…\n`);
    const times = { small: [] as number[], large: [] as number[] };
    const timed = async (h: History) => {
      let ms = 0;
      const res = await invoke(svc, read.handler, read.options(h), async (work) => {
        const started = performance.now();
        const out = await work();
        ms = performance.now() - started;
        return out;
      });
      expectOk(read.label, res);
      return ms;
    };
    // Interleaved: each iteration reads both histories once.
    for (let i = 0; i < options.warmup + options.n; i++) {
      const a = await timed(small);
      const b = await timed(large);
      if (i >= options.warmup) {
        times.small.push(a);
        times.large.push(b);
      }
    }
    const s = summarize(times.small);
    const l = summarize(times.large);
    const r = l.median / s.median;
    const target = 1.3;
    rows.push({
      section: '4 growth',
      measure: `${read.label}: ${small.label} → ${large.label}`,
      value: `median ${fmtMs(s.median)} → ${fmtMs(l.median)}, ratio ${r.toFixed(2)} (n ${s.n})`,
      target: read === READS.usage ? '≤ 1.3' : 'flat (≤ 1.3)',
      status: check(r <= target),
    });
    md.push([
      read.label,
      fmtMs(s.median),
      fmtMs(s.p99),
      fmtMs(l.median),
      fmtMs(l.p99),
      r.toFixed(2),
      read === READS.usage ? '≤ 1.3' : 'flat (≤ 1.3)',
      r <= target ? 'met' : 'NOT met',
    ]);
  }
  const markdown = [
    `Two users, each with ${CONVERSATIONS_PER_USER} conversations; one conversation of each holds a thread of ${small.label} or ${large.label} (seeded by BatchWrite of message items from tables/messages.ts, one turn a minute ending now, plus the usage counters from tables/usage.ts those turns would have left, per hour, for the user and the conversation). Reads measured interleaved, ${options.n} of each per history, median and p99; ratio = median at ${large.label} / median at ${small.label}. "Flat" is taken as the same bound as usage (≤ 1.3).`,
    '',
    markdownTable(['Read', `${small.label} median`, 'p99', `${large.label} median`, 'p99', 'Ratio', 'Target', 'Status'], md),
  ].join('\n');
  return { rows, markdown };
}
