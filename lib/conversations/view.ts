import { usdOf } from '../../core/money';
import type { StoredMessage } from '../../tables/messages';

/** A chat message as the API shows it (docs/openapi.yaml ChatMessage). */
export interface ApiMessage {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
  metadata: Record<string, unknown>;
  tokens_in?: number;
  tokens_out?: number;
  tokens_total?: number;
  latency_ms?: number;
  model_id?: string;
  /** What the reply was charged (USD, exact to the nano-dollar; 0 on dedicated endpoints, which bill by the hour). */
  cost_usd?: number;
  /** Where the prompt cache served or stored anything (functions/system/response-schemas.ts PromptCacheFigures). */
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  cache_cost_usd?: number;
  /** Only on a user message whose model call failed. */
  status?: 'failed';
  /** Only in the conversation-wide listing: where the message lives. */
  source?: 'thread' | 'legacy';
  thread_id?: string | null;
}

export function toApiMessage(m: StoredMessage, options: { origin?: boolean } = {}): ApiMessage {
  const out: ApiMessage = { role: m.role, content: m.content, timestamp: m.timestamp, metadata: m.metadata ?? {} };
  if (m.role === 'assistant') {
    out.tokens_in = m.tokens_in ?? 0;
    out.tokens_out = m.tokens_out ?? 0;
    out.tokens_total = m.tokens_total ?? out.tokens_in + out.tokens_out;
    out.latency_ms = m.latency_ms ?? 0;
    out.model_id = m.model_id ?? '';
    if (m.cost !== undefined) out.cost_usd = usdOf(m.cost);
    if (m.cache) Object.assign(out, { cache_read_tokens: m.cache.read, cache_write_tokens: m.cache.write, cache_cost_usd: usdOf(m.cache.cost) });
  }
  if (m.status === 'failed') out.status = 'failed';
  if (options.origin) {
    out.source = m.source;
    out.thread_id = m.thread_id;
  }
  return out;
}
