import { BatchWriteCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Nanos } from '../core/money';
import type { PlatformName } from '../core/vocabulary';
import { GSI1, TABLE, db, decodeCursor, encodeCursor, getItems, readUsd, storedUsd, type ItemKey } from './client';
import { attribute, defineEntity, type RecordOf } from './entity';
import { DataError } from './errors';
import { spendOwnerOfItem, type SpendOwner } from './breakdown';
import type { TransactItems } from './transactions';

/**
 * Chat turns (docs/openapi.yaml ChatMessage): one item per turn, holding both of its messages.
 *
 *   PK THREAD#<threadId>   SK MSG#<ts>#<turnId>   a thread turn
 *   PK LEGACY#<convId>     SK MSG#<ts>#<turnId>   a legacy (thread-less) turn
 *   PK CONVIDX#<convId>    SK <ts>#<turnId>       conversation index entry (written with its turn)
 *
 * `ts` is the turn's start (when the user message arrived) and `turnId` a fresh UUID, so turns of a
 * thread have a total order (by time, then id) and no two turns can ever write the same key.
 *
 * A turn item carries short attribute names because every page and every write pays for its bytes:
 *   c   conversation id              u   the user's text             un  the caller's username
 *   r   resource id                  a   the reply (absent: the model call failed; the user text is kept)
 *   dt  ms from the turn's start to the reply     m  model that answered    um  model counted (when not m)
 *   p   platform    ti/to  tokens in/out    ms  model latency    usd  cost (0 on dedicated endpoints)
 *   ct/cw  prompt tokens read from / written to the prompt cache    cu  their share of usd (all three
 *          only where the cache served or stored anything; ti is the input besides them)
 *   x   1: the turn's index entry was written with it (absent on turns written before that)
 * The spec's message fields (metadata, tokens_total, model_response_time, ...) are derived from these
 * when a page is read.
 *
 * The conversation-wide listing is served from the index entries (`t` thread id, absent for legacy;
 * `n` messages in the turn; `o` 1 for a turn in the layout before this one), each about 150 bytes. The
 * entry is written in the turn's own transaction (2 write units), so a turn is listed on its caller's
 * very next request and never depends on the stream aggregator. A global secondary index over the
 * turn items would copy every turn whole (as many write units as it has kilobytes) and could not be
 * read strongly consistent. Turns written before entries went into the turn's transaction (no `x`)
 * are indexed by the stream aggregator, as they were then.
 *
 * The layout before this one stored one item per message (SK MSG#<ts>#<turnId>#<0 user / 1 assistant>,
 * long attribute names, in GSI1 CONVMSG#<convId>). Such items sort among the turn items of their
 * partition and are read as they are; their index entries are written by scripts/backfill-conversation-index.ts.
 */

type MessageSource = 'thread' | 'legacy';
type MessageStatus = 'ok' | 'failed';

/**
 * One chat message, as pages and the chat context see it: what a message item of the layout before
 * turn items holds (read as stored: such items were written whole), and what a turn item expands to.
 */
const MESSAGE = defineEntity({
  source: attribute.stored<MessageSource>(),
  conversation_id: attribute.stored<string>(),
  /** null for legacy messages. */
  thread_id: attribute.nullable<string>(),
  turn_id: attribute.stored<string>(),
  /** 0 = the user message of the turn, 1 = the assistant reply. */
  seq: attribute.stored<0 | 1>(),
  /** The turn's timestamp, as in the key (the user message's time). */
  turn_ts: attribute.stored<string>(),
  role: attribute.stored<'user' | 'assistant'>(),
  content: attribute.stored<string>(),
  timestamp: attribute.stored<string>(),
  metadata: attribute.read((stored) => (stored ?? {}) as Record<string, unknown>),
  /** 'failed': a user message whose model call failed; it got no reply and counted no usage. */
  status: attribute.or<MessageStatus>('ok'),
  /** Only on messages stored in the layout before turn items. */
  user_id: attribute.optional<string>(),
  resource_id: attribute.stored<string>(),
  tokens_in: attribute.optional<number>(),
  tokens_out: attribute.optional<number>(),
  tokens_total: attribute.optional<number>(),
  latency_ms: attribute.optional<number>(),
  model_id: attribute.optional<string>(),
});

/**
 * A message, with what its reply cost in nano-dollars as charged and what went through the prompt
 * cache for it (TurnReply `cache`, where anything did): derived from a turn item's attributes, never
 * stored on a message (absent on messages stored before turn items).
 */
export type StoredMessage = RecordOf<typeof MESSAGE> & { cost?: Nanos; cache?: TurnReply['cache'] };

/** A turn as the chat domain records it. */
export interface NewTurn {
  source: MessageSource;
  conversationId: string;
  /** null for a legacy turn. */
  threadId: string | null;
  turnId: string;
  /** ISO time the user's message arrived: the turn's place in its thread. */
  startedAt: string;
  username: string;
  resourceId: string;
  /** The route the turn named, when it named one (`resourceId` is then the target that answered). */
  route?: { id: string; name: string };
  userText: string;
  /** Absent when the model call failed: the user's text is kept, marked failed, and nothing is counted. */
  reply?: TurnReply;
}

export interface TurnReply {
  text: string;
  answeredAt: string;
  /** The model that answered (shown in the reply's metadata). */
  modelId: string;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
  platform: PlatformName;
  /** The model the usage is counted against (model totals), when it is not `modelId`. */
  usageModelId: string;
  /** What it cost, in nano-dollars (core/money.ts). */
  cost: Nanos;
  /** Prompt tokens the cache served (`read`) and stored (`write`), and their share of `cost`; absent: none. */
  cache?: { read: number; write: number; cost: Nanos };
}

const threadPartition = (threadId: string) => `THREAD#${threadId}`;
const legacyPartition = (conversationId: string) => `LEGACY#${conversationId}`;
const indexPartition = (conversationId: string) => `CONVIDX#${conversationId}`;
const turnSortKey = (startedAt: string, turnId: string) => `MSG#${startedAt}#${turnId}`;
/** Just past every `MSG#...` key: the upper end of a range over a thread's or legacy partition. */
const AFTER_MESSAGES = 'MSG$';

function turnPartition(source: MessageSource, conversationId: string, threadId: string | null): string {
  return source === 'thread' ? threadPartition(threadId as string) : legacyPartition(conversationId);
}

/** The full item of a turn, keys included (also used by the benchmark to seed history). */
export function turnItem(turn: NewTurn): Record<string, unknown> {
  const item: Record<string, unknown> = {
    PK: turnPartition(turn.source, turn.conversationId, turn.threadId),
    SK: turnSortKey(turn.startedAt, turn.turnId),
    entity: 'turn',
    c: turn.conversationId,
    u: turn.userText,
    un: turn.username,
    r: turn.resourceId,
    // The route's attributes as a call-log item names them (tables/writes/calls.ts): the breakdown reads `ro`.
    ...(turn.route && { ro: turn.route.id, rn: turn.route.name }),
  };
  if (turn.reply) Object.assign(item, { a: turn.reply.text }, usageAttributes(turn.startedAt, turn.reply), cacheAttributes(turn.reply.cache));
  return item;
}

/** A reply's prompt-cache figures; `ct` is also what the spend breakdown sums as cached tokens (tables/breakdown.ts). */
function cacheAttributes(cache: TurnReply['cache']): Record<string, unknown> {
  return cache ? { ct: cache.read, cw: cache.write, cu: storedUsd(cache.cost) } : {};
}

/**
 * What the stream aggregator counts of a created item: the attributes that make an item with entity
 * `turn` and a sort key `MSG#<startedAt>#<id>` a counted call (a chat turn's reply, or a gateway call
 * stored without its texts). Without them (`p` absent) the item is a failed turn: kept, not counted.
 */
function usageAttributes(startedAt: string, reply: Omit<TurnReply, 'text'>): Record<string, unknown> {
  return {
    dt: Date.parse(reply.answeredAt) - Date.parse(startedAt),
    m: reply.modelId,
    ...(reply.usageModelId !== reply.modelId ? { um: reply.usageModelId } : {}),
    p: reply.platform,
    ti: reply.tokensIn,
    to: reply.tokensOut,
    ms: reply.latencyMs,
    usd: storedUsd(reply.cost),
  };
}

const CALL_LOG_TTL_SECONDS = 90 * 86_400;

/**
 * A gateway call's entry in its key's call log (`KEYCALLS#<keyId>`): a turn item without texts, so
 * the stream aggregator counts it like a chat turn, timed from its start by the same sort key, kept 90
 * days. `attributes`: what the call adds (its resource, route, key, request id, spend owners).
 */
export function callLogItem(
  call: { keyId: string; callId: string; startedAt: string },
  reply: Omit<TurnReply, 'text'>,
  attributes: Record<string, unknown>,
): Record<string, unknown> {
  return {
    PK: `KEYCALLS#${call.keyId}`,
    SK: turnSortKey(call.startedAt, call.callId),
    entity: 'turn',
    ...attributes,
    ttl: Math.floor(Date.parse(call.startedAt) / 1000) + CALL_LOG_TTL_SECONDS,
    ...usageAttributes(call.startedAt, reply),
  };
}

/**
 * The turn's puts for its transaction: the turn item first (a new key by construction; the condition
 * makes a retry idempotent), then its conversation index entry, so the conversation-wide listing shows
 * the turn as soon as the transaction has committed.
 */
export function turnPuts(turn: NewTurn, extra: Record<string, unknown> = {}): TransactItems {
  return [
    { Put: { TableName: TABLE, Item: { ...turnItem(turn), ...extra, x: 1 }, ConditionExpression: 'attribute_not_exists(PK)' } },
    { Put: { TableName: TABLE, Item: indexEntryItem(indexedTurnOf(turn)) } },
  ];
}

function indexedTurnOf(turn: NewTurn): IndexedTurn {
  return {
    conversationId: turn.conversationId,
    threadId: turn.threadId,
    startedAt: turn.startedAt,
    turnId: turn.turnId,
    messages: turn.reply ? 2 : 1,
  };
}

/** The messages of a turn item (one if its model call failed, else two), user first. */
function messagesOfTurnItem(item: Record<string, unknown>): StoredMessage[] {
  const pk = item.PK as string;
  const source: MessageSource = pk.startsWith('THREAD#') ? 'thread' : 'legacy';
  const [, turnTs, turnId] = /^MSG#(.+)#([^#]+)$/.exec(item.SK as string) ?? [];
  const common = {
    source,
    conversation_id: item.c as string,
    thread_id: source === 'thread' ? pk.slice('THREAD#'.length) : null,
    turn_id: turnId as string,
    turn_ts: turnTs as string,
    resource_id: item.r as string,
  };
  const username = item.un as string;
  const answered = item.a !== undefined;
  const user: StoredMessage = {
    ...common,
    seq: 0,
    role: 'user',
    content: item.u as string,
    timestamp: common.turn_ts,
    metadata: { username, resource_id: common.resource_id },
    status: answered ? 'ok' : 'failed',
  };
  if (!answered) return [user];
  const tokensIn = Number(item.ti ?? 0);
  const tokensOut = Number(item.to ?? 0);
  const latencyMs = Number(item.ms ?? 0);
  const modelId = item.m as string;
  const assistant: StoredMessage = {
    ...common,
    seq: 1,
    role: 'assistant',
    content: item.a as string,
    timestamp: new Date(Date.parse(common.turn_ts) + Number(item.dt ?? 0)).toISOString(),
    metadata: {
      model_id: modelId,
      model_response_time: latencyMs / 1000,
      tokens_used: tokensIn + tokensOut,
      username,
      ...(typeof item.ro === 'string' && { resource_id: common.resource_id, route_id: item.ro, route_name: String(item.rn) }),
    },
    status: 'ok',
    tokens_in: tokensIn,
    tokens_out: tokensOut,
    tokens_total: tokensIn + tokensOut,
    latency_ms: latencyMs,
    model_id: modelId,
    cost: readUsd(item.usd),
    ...(item.cu !== undefined && { cache: { read: Number(item.ct ?? 0), write: Number(item.cw ?? 0), cost: readUsd(item.cu) } }),
  };
  return [user, assistant];
}

/** The messages of a turn as a page will show them (the chat answer uses it, so both always agree). */
export function messagesOfTurn(turn: NewTurn): StoredMessage[] {
  return messagesOfTurnItem(turnItem(turn));
}

/** What the stream aggregator counts of a turn item or counted call; undefined for a failed turn or anything else. */
export interface TurnUsage {
  answeredAt: Date;
  platform: PlatformName;
  modelId: string;
  resourceId: string;
  latencyMs: number;
  delta: { requests: number; tokensIn: number; tokensOut: number; cost: Nanos };
  /** Who made it (the spend breakdown, tables/breakdown.ts); absent on items written before it. */
  owner?: SpendOwner;
  cachedTokens?: number;
}

export function usageOfTurnItem(item: Record<string, unknown>): TurnUsage | undefined {
  if (item.entity !== 'turn' || item.p === undefined) return undefined;
  const [, startedAt] = /^MSG#(.+)#([^#]+)$/.exec(String(item.SK)) ?? [];
  const answeredAt = new Date(Date.parse(startedAt ?? '') + Number(item.dt ?? 0));
  const platform = item.p as PlatformName;
  const modelId = (item.um ?? item.m) as string;
  if (Number.isNaN(answeredAt.getTime()) || typeof platform !== 'string' || typeof modelId !== 'string' || typeof item.r !== 'string')
    return undefined;
  return {
    answeredAt,
    platform,
    modelId,
    resourceId: item.r,
    latencyMs: Number(item.ms ?? 0),
    delta: { requests: 1, tokensIn: Number(item.ti ?? 0), tokensOut: Number(item.to ?? 0), cost: readUsd(item.usd) },
    ...spendOwnerOfItem(item),
  };
}

// ------------------------------------------------------------------------------------- the layout before

/** A message item of the layout before turn items (one item per message), keys included: for tests. */
export function legacyMessageItem(m: StoredMessage): Record<string, unknown> {
  const suffix = `${m.turn_ts}#${m.turn_id}#${m.seq}`;
  return {
    PK: turnPartition(m.source, m.conversation_id, m.thread_id),
    SK: `MSG#${suffix}`,
    GSI1PK: `CONVMSG#${m.conversation_id}`,
    GSI1SK: suffix,
    entity: 'message',
    ...m,
  };
}

const messageOfLegacyItem = (item: Record<string, unknown>): StoredMessage => MESSAGE.read(item);

/** The messages an item holds, whichever layout it is in. */
function messagesOf(item: Record<string, unknown>): StoredMessage[] {
  return item.entity === 'turn' ? messagesOfTurnItem(item) : [messageOfLegacyItem(item)];
}

// ------------------------------------------------------------------------------------- reading

/**
 * The newest `turns` turns of a thread, as messages newest first, strongly consistent so a turn sees
 * every turn that completed before it started. (In a thread of the layout before turn items, each
 * item is one message, so the same query reaches back half as many turns.)
 */
export async function recentThreadMessages(threadId: string, turns: number): Promise<StoredMessage[]> {
  if (turns <= 0) return [];
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :p AND begins_with(SK, :m)',
      ExpressionAttributeValues: { ':p': threadPartition(threadId), ':m': 'MSG#' },
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: turns,
    }),
  );
  return Items.flatMap((item) => messagesOf(item).reverse());
}

export interface MessagePage {
  messages: StoredMessage[];
  nextCursor: string | null;
}

/**
 * Where a page starts. A cursor names the last item the previous page showed; `m: '1'` means it showed
 * only that item's first message (a page of an odd number of messages can end inside a turn), so the
 * next page starts with the item's second message.
 */
function decodeMessageCursor(cursor: string | undefined, partition: string): { SK: string; inside: boolean } | undefined {
  const key = decodeCursor(cursor, ['PK', 'SK'], { PK: partition }, ['m']);
  if (!key) return undefined;
  if (key.m !== undefined && key.m !== '1')
    throw new DataError('InvalidCursor', 'Invalid cursor', 'Pass the nextCursor value of the previous page unchanged');
  return { SK: key.SK as string, inside: key.m === '1' };
}

const encodeMessageCursor = (partition: string, sk: string, inside: boolean) =>
  encodeCursor(inside ? { PK: partition, SK: sk, m: '1' } : { PK: partition, SK: sk });

/**
 * Takes messages from items in order until `limit` is reached. Returns where it stopped: the last item
 * it took anything from, and whether it took only part of it.
 */
class PageFiller {
  readonly messages: StoredMessage[] = [];
  last: { SK: string; inside: boolean } | undefined;

  constructor(
    readonly limit: number,
    private skipFirstOf: string | undefined,
  ) {}

  get full(): boolean {
    return this.messages.length >= this.limit;
  }

  /** Adds an item's messages; false once the page is full (the item may have been cut). */
  take(sk: string, messages: StoredMessage[]): boolean {
    let list = messages;
    if (this.skipFirstOf !== undefined) {
      if (this.skipFirstOf === sk) list = list.slice(1);
      this.skipFirstOf = undefined;
    }
    const room = this.limit - this.messages.length;
    this.messages.push(...list.slice(0, room));
    this.last = { SK: sk, inside: list.length > room };
    return !this.full;
  }
}

/**
 * One page of a thread's or legacy partition, oldest first, `limit` messages. The first Query asks for
 * half as many items as messages (a turn item holds two); only a page with failed turns or items of the
 * layout before (one message each) needs a second Query for the rest, which then asks for one item per
 * missing message, so no Query reads past the page.
 */
async function pageOfPartition(partition: string, limit: number, cursor: string | undefined): Promise<MessagePage> {
  const start = decodeMessageCursor(cursor, partition);
  const page = new PageFiller(limit, start?.inside ? start.SK : undefined);
  let exclusiveStart: ItemKey | undefined = start && !start.inside ? { PK: partition, SK: start.SK } : undefined;
  let from = start?.inside ? start.SK : undefined;
  let more = true;
  for (let round = 0; more && !page.full; round++) {
    const want = limit - page.messages.length;
    const out: QueryCommandOutput = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: from ? 'PK = :p AND SK BETWEEN :from AND :to' : 'PK = :p AND begins_with(SK, :m)',
        ExpressionAttributeValues: from ? { ':p': partition, ':from': from, ':to': AFTER_MESSAGES } : { ':p': partition, ':m': 'MSG#' },
        ScanIndexForward: true,
        ConsistentRead: true,
        Limit: round === 0 ? Math.ceil(want / 2) + (from ? 1 : 0) : want,
        ExclusiveStartKey: exclusiveStart,
      }),
    );
    const items = out.Items ?? [];
    let taken = 0;
    for (const item of items) {
      taken++;
      if (!page.take(item.SK as string, messagesOf(item))) break;
    }
    more = out.LastEvaluatedKey !== undefined || taken < items.length || page.last?.inside === true;
    if (!page.last) break;
    exclusiveStart = { PK: partition, SK: page.last.SK };
    from = undefined;
  }
  const last = page.last;
  return { messages: page.messages, nextCursor: last && more ? encodeMessageCursor(partition, last.SK, last.inside) : null };
}

/** A thread's messages, oldest first. */
export function listThreadMessages(threadId: string, limit: number, cursor?: string): Promise<MessagePage> {
  return pageOfPartition(threadPartition(threadId), limit, cursor);
}

/** A conversation's legacy (thread-less) messages, oldest first. */
export function listLegacyMessages(conversationId: string, limit: number, cursor?: string): Promise<MessagePage> {
  return pageOfPartition(legacyPartition(conversationId), limit, cursor);
}

// ------------------------------------------------------------------------------------- conversation index

/** What the conversation index needs of a turn. */
export interface IndexedTurn {
  conversationId: string;
  threadId: string | null;
  startedAt: string;
  turnId: string;
  messages: 1 | 2;
}

/**
 * The conversation index entry of a turn item, from its key and attributes; undefined for anything
 * else. `written`: the entry was written in the turn's own transaction (every turn since entries went
 * there), so the stream aggregator has nothing to add.
 */
export function indexedTurnOfItem(item: Record<string, unknown>): (IndexedTurn & { written: boolean }) | undefined {
  if (item.entity !== 'turn' || typeof item.c !== 'string') return undefined;
  const pk = String(item.PK);
  const [, startedAt, turnId] = /^MSG#(.+)#([^#]+)$/.exec(String(item.SK)) ?? [];
  if (!startedAt || !turnId || !(pk.startsWith('THREAD#') || pk.startsWith('LEGACY#'))) return undefined;
  return {
    conversationId: item.c,
    threadId: pk.startsWith('THREAD#') ? pk.slice('THREAD#'.length) : null,
    startedAt,
    turnId,
    messages: item.a === undefined ? 1 : 2,
    written: item.x !== undefined,
  };
}

function indexEntryItem(turn: IndexedTurn, oldLayout = false): Record<string, unknown> {
  const item: Record<string, unknown> = {
    PK: indexPartition(turn.conversationId),
    SK: `${turn.startedAt}#${turn.turnId}`,
    entity: 'conv-index',
    n: turn.messages,
  };
  if (turn.threadId) item.t = turn.threadId;
  if (oldLayout) item.o = 1;
  return item;
}

/**
 * Writes conversation index entries for turns stored without one (the stream aggregator, for turns
 * written before entries went into the turn's transaction; the backfill, for the layout before):
 * puts of keys that only ever hold the same content, so a retried or repeated batch changes nothing.
 * In BatchWriteItem calls of 25, unprocessed items retried.
 */
export async function putConversationIndexEntries(turns: IndexedTurn[], options: { oldLayout?: boolean } = {}): Promise<void> {
  const unique = new Map(turns.map((t) => [`${t.conversationId}#${t.startedAt}#${t.turnId}`, t]));
  const requests = [...unique.values()].map((t) => ({ PutRequest: { Item: indexEntryItem(t, options.oldLayout) } }));
  for (let i = 0; i < requests.length; i += 25) {
    let pending = requests.slice(i, i + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt) * Math.random()));
      const out = await db.send(new BatchWriteCommand({ RequestItems: { [TABLE]: pending } }));
      pending = (out.UnprocessedItems?.[TABLE] ?? []) as typeof pending;
    }
  }
}

/** The keys of the items an index entry points at: the turn item, or the one or two message items of the layout before. */
function itemKeysOfEntry(conversationId: string, entry: Record<string, unknown>): ItemKey[] {
  const thread = entry.t as string | undefined;
  const PK = thread ? threadPartition(thread) : legacyPartition(conversationId);
  const suffix = entry.SK as string;
  if (entry.o !== 1) return [{ PK, SK: `MSG#${suffix}` }];
  return Array.from({ length: Number(entry.n ?? 2) }, (_, seq) => ({ PK, SK: `MSG#${suffix}#${seq}` }));
}

/**
 * Every message of a conversation, threads and legacy, oldest first: a strongly consistent Query of
 * the conversation's index entries (each says how many messages its turn holds, so exactly the entries
 * the page needs are picked; a turn's entry is written in its own transaction, so a caller's answered
 * turn is in the next listing), then one BatchGet of their items, eventually consistent (turn items
 * never change once written), with anything not found asked again strongly consistent.
 */
export async function listConversationMessages(conversationId: string, limit: number, cursor?: string): Promise<MessagePage> {
  const partition = indexPartition(conversationId);
  const start = decodeMessageCursor(cursor, partition);
  const inside = start?.inside === true;
  const { Items: entries = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: inside ? 'PK = :p AND SK >= :from' : 'PK = :p',
      ExpressionAttributeValues: inside ? { ':p': partition, ':from': start?.SK } : { ':p': partition },
      ScanIndexForward: true,
      ConsistentRead: true,
      // Every entry is at least one message: `limit` entries always fill the page (they are small).
      Limit: limit + (inside ? 1 : 0),
      ExclusiveStartKey: start && !inside ? { PK: partition, SK: start.SK } : undefined,
    }),
  );

  // Pick the entries the page needs, counting their messages, before reading any turn.
  const picked: Record<string, unknown>[] = [];
  let count = 0;
  for (const [i, entry] of entries.entries()) {
    const skip = i === 0 && inside && entry.SK === start?.SK ? 1 : 0;
    picked.push(entry);
    count += Number(entry.n ?? 2) - skip;
    if (count >= limit) break;
  }
  const keys = picked.flatMap((entry) => itemKeysOfEntry(conversationId, entry));
  const eventual = await getItems(keys, false);
  const missing = keys.filter((k) => !eventual(k));
  const strong = missing.length ? await getItems(missing) : () => undefined;
  const found = (k: ItemKey) => eventual(k) ?? strong(k);

  const page = new PageFiller(limit, inside ? start?.SK : undefined);
  for (const entry of picked) {
    const messages = itemKeysOfEntry(conversationId, entry).flatMap((k) => {
      const item = found(k);
      return item ? messagesOf(item) : [];
    });
    page.take(entry.SK as string, messages);
  }
  const last = page.last;
  const more = LastEvaluatedKey !== undefined || picked.length < entries.length || last?.inside === true;
  return { messages: page.messages, nextCursor: last && more ? encodeMessageCursor(partition, last.SK, last.inside) : null };
}

/**
 * The turns of a conversation stored in the layout before turn items (one item per message, in GSI1
 * CONVMSG#<convId>), for scripts/backfill-conversation-index.ts. Reads only the keys.
 */
export async function oldLayoutTurnsOfConversation(conversationId: string): Promise<IndexedTurn[]> {
  const turns = new Map<string, IndexedTurn>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const out: QueryCommandOutput = await db.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: GSI1,
        KeyConditionExpression: 'GSI1PK = :p',
        ExpressionAttributeValues: { ':p': `CONVMSG#${conversationId}` },
        ProjectionExpression: 'PK, SK',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) {
      const pk = String(item.PK);
      const [, startedAt, turnId] = /^MSG#(.+)#([^#]+)#[01]$/.exec(String(item.SK)) ?? [];
      if (!startedAt || !turnId) continue;
      const key = `${startedAt}#${turnId}`;
      const known = turns.get(key);
      if (known) known.messages = 2;
      else turns.set(key, { conversationId, threadId: pk.startsWith('THREAD#') ? pk.slice('THREAD#'.length) : null, startedAt, turnId, messages: 1 });
    }
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return [...turns.values()];
}
