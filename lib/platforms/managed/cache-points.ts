/**
 * Prompt caching on Converse (lib/platforms/managed/chat.ts): where a request's checkpoints become
 * `cachePoint` blocks for its model, and what the answer's usage says the cache served and stored.
 */
import type { CachePointBlock, TokenUsage } from '@aws-sdk/client-bedrock-runtime';
import { BadRequest } from '../../errors';
import type { CacheTokens, CacheTtl, ChatRequest } from '../types';
import type { CachingFacts } from './features';

/**
 * Where a request's checkpoints may go for its model: a checkpoint in a field the model does not cache
 * (or on a model that caches nothing) yields no block. A TTL it does not offer is refused.
 */
export class CachePoints {
  constructor(
    private readonly target: string,
    private readonly caching: CachingFacts | undefined,
  ) {}

  /** The cachePoint block for a checkpoint of `ttl` in `field`, or none. */
  after(ttl: CacheTtl | undefined, field: CachingFacts['fields'][number]): { cachePoint: CachePointBlock }[] {
    if (!ttl || !this.caching?.fields.includes(field)) return [];
    if (!this.caching.ttls.includes(ttl)) {
      throw new BadRequest(`The managed model "${this.target}" caches prompts for ${this.caching.ttls.join(' or ')} only, not ${ttl}`, {
        param: 'cache_control.ttl',
      });
    }
    // 5 minutes is Bedrock's default TTL: only the longer one is named.
    return [{ cachePoint: { type: 'default', ...(ttl === '1h' && { ttl }) } }];
  }
}

/** Checkpoints nowhere. */
export const NO_CACHE_POINTS = new CachePoints('', undefined);

/**
 * What the prompt cache served and stored, from Converse's usage. Writes are split by TTL in
 * cacheDetails; a platform that gives the total alone has its writes counted at the longest TTL the
 * request asked for, so that a call is never priced under what it cost.
 */
export function cacheTokensOf(usage: TokenUsage | undefined, request: ChatRequest): CacheTokens | undefined {
  const read = usage?.cacheReadInputTokens ?? 0;
  const written = usage?.cacheWriteInputTokens ?? 0;
  if (read === 0 && written === 0) return undefined;
  const details = usage?.cacheDetails ?? [];
  if (details.length > 0) {
    const of = (ttl: CacheTtl) => details.filter((d) => d.ttl === ttl).reduce((n, d) => n + (d.inputTokens ?? 0), 0);
    return { read, write5m: of('5m'), write1h: of('1h') };
  }
  return asksOneHour(request) ? { read, write5m: 0, write1h: written } : { read, write5m: written, write1h: 0 };
}

const asksOneHour = (request: ChatRequest) => JSON.stringify([request.system, request.messages, request.tools]).includes('"cache":"1h"');
