import type { ErrorShape } from './middlewares/error-responder';

/**
 * The one envelope rule: lib returns data, and the stack sends it in the route's dialect. The spec's
 * routes (errors in its `standard`, `message` or `thread` shape) answer `{success: true, ...data}`, the
 * twin of their `{success: false, ...}` errors; a dialect's route (OpenAI's, Anthropic's, Bedrock's)
 * sends the body its API defines, as the handler returns it. Only an object is wrapped: an answer
 * without a body (a redirect) has nothing to wrap.
 */
export function successBody(shape: ErrorShape, data: unknown): unknown {
  const spec = shape === 'standard' || shape === 'message' || shape === 'thread';
  if (!spec || data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  return { success: true, ...data };
}
