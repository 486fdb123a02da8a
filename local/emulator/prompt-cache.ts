/**
 * Bedrock's prompt cache, as "Prompt caching for faster model inference" describes it: a request's
 * `cachePoint` blocks (in toolConfig.tools, system and messages, in that order: the order Bedrock
 * reads the prompt in) each mark a prefix. A checkpoint whose prefix holds fewer than the model's
 * minimum tokens is ignored. The longest prefix still in the cache is read; every later checkpoint's
 * new tokens are written, with that checkpoint's TTL (5 minutes unless it says 1h). A read refreshes
 * the entry's TTL. Usage then reports cacheReadInputTokens, cacheWriteInputTokens, cacheDetails (1h
 * before 5m) and inputTokens without them.
 */
import { createHash } from 'node:crypto';
import { tokensFor } from './chat';
import type { FoundationModel } from './catalogue';
import type { EmulatorState } from './shared';

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
type Ttl = keyof typeof TTL_MS;

/** Entries by prefix hash (model and prefix), with when each expires; one cache per emulator state. */
const caches = new WeakMap<EmulatorState, Map<string, number>>();

export interface CacheUsage {
  inputTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
  cacheDetails?: { ttl: Ttl; inputTokens: number }[];
}

interface Checkpoint {
  /** The prompt's JSON up to the checkpoint. */
  prefix: string;
  tokens: number;
  ttl: Ttl;
}

type Block = Record<string, unknown> & { cachePoint?: { ttl?: unknown } };

/** The checkpoints of a Converse body, in prompt order, each with the tokens of its prefix. */
function checkpointsOf(body: { toolConfig?: { tools?: Block[] }; system?: Block[]; messages?: { content?: Block[] }[] }): Checkpoint[] {
  const blocks: Block[] = [...(body.toolConfig?.tools ?? []), ...(body.system ?? []), ...(body.messages ?? []).flatMap((m) => m.content ?? [])];
  const checkpoints: Checkpoint[] = [];
  const seen: Block[] = [];
  let chars = 0;
  for (const block of blocks) {
    if (block.cachePoint) {
      const ttl: Ttl = block.cachePoint.ttl === '1h' ? '1h' : '5m';
      checkpoints.push({ prefix: JSON.stringify(seen), tokens: tokensFor(chars), ttl });
      continue;
    }
    seen.push(block);
    chars += typeof block.text === 'string' ? block.text.length : JSON.stringify(block).length;
  }
  return checkpoints;
}

/** What the cache does for one call of `model` at `now`, and the call's usage split accordingly. */
export function cacheCall(
  state: EmulatorState,
  model: FoundationModel,
  body: Parameters<typeof checkpointsOf>[0],
  inputTokens: number,
  now = Date.now(),
): CacheUsage {
  const caching = model.caching;
  if (!caching) return { inputTokens };
  const cache = caches.get(state) ?? new Map<string, number>();
  caches.set(state, cache);
  const key = (c: Checkpoint) => createHash('sha256').update(model.modelId).update(c.prefix).digest('hex');
  // Past the prompt's own count a prefix cannot go; short of the minimum it is no checkpoint at all.
  const valid = checkpointsOf(body)
    .map((c) => ({ ...c, tokens: Math.min(c.tokens, inputTokens) }))
    .filter((c) => c.tokens >= caching.minTokens);
  let hit = -1;
  valid.forEach((c, i) => {
    if ((cache.get(key(c)) ?? 0) > now) hit = i;
  });
  const read = hit >= 0 ? (valid[hit] as Checkpoint).tokens : 0;
  if (hit >= 0) cache.set(key(valid[hit] as Checkpoint), now + TTL_MS[(valid[hit] as Checkpoint).ttl]);
  const written: Record<Ttl, number> = { '1h': 0, '5m': 0 };
  let covered = read;
  for (const c of valid.slice(hit + 1)) {
    if (c.tokens <= covered) continue;
    written[c.ttl] += c.tokens - covered;
    covered = c.tokens;
    cache.set(key(c), now + TTL_MS[c.ttl]);
  }
  const writes = written['1h'] + written['5m'];
  if (read === 0 && writes === 0) return { inputTokens };
  return {
    inputTokens: inputTokens - read - writes,
    cacheReadInputTokens: read,
    cacheWriteInputTokens: writes,
    cacheDetails: (['1h', '5m'] as const).filter((t) => written[t] > 0).map((ttl) => ({ ttl, inputTokens: written[ttl] })),
  };
}
