/**
 * Model ids as they arrive in a path. Hosted ids contain a slash ("meta/llama-3.1-8b-instruct"):
 * the route takes the rest of the path (`{modelId+}`), and a client may also send the slash
 * URL-encoded as %2F. API Gateway HTTP APIs and serverless-offline hand the parameter over decoded;
 * other callers may not, so an id that still holds percent-escapes is decoded here, once.
 */
import { BadRequest } from '../errors';
import type { PlatformName } from '../platforms/types';

/** "anthropic.claude-3-haiku-20240307-v1:0" (the request schemas use it too: functions/*\/schemas.ts). */
export const MANAGED_MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
/** "meta/llama-3.1-8b-instruct": a namespace and a name, letters, digits, dots, dashes, underscores. */
export const HOSTED_MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){0,2}$/;

const PATTERNS: Record<'managed' | 'hosted', { pattern: RegExp; hint: string }> = {
  managed: { pattern: MANAGED_MODEL_ID, hint: 'a model id such as anthropic.claude-3-haiku-20240307-v1:0' },
  hosted: { pattern: HOSTED_MODEL_ID, hint: 'a model id such as meta/llama-3.1-8b-instruct' },
};

export function modelIdFromPath(platform: Extract<PlatformName, 'managed' | 'hosted'>, raw: string): string {
  let id = raw.trim();
  if (id.includes('%')) {
    try {
      id = decodeURIComponent(id);
    } catch {
      id = '';
    }
  }
  const { pattern, hint } = PATTERNS[platform];
  if (!pattern.test(id)) throw new BadRequest(`Invalid field 'modelId': expected ${hint}`, 'Invalid path parameter');
  return id;
}
