import type { TObject, TSchema } from '@sinclair/typebox';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import type { Payer } from '../calls/levels';
import { authenticateKey, requestIdHeader } from './middlewares/authenticate-key';
import { rateLimitHeaders, withRateLimitHeaders } from './middlewares/rate-limit-headers';
import { stack, type EmptyObject } from './stack';
import type { ApiEvent } from './types';
import type { Check, Checked } from './validation';

export interface KeyRequest<B, P = never, Path = Record<string, never>> {
  body: B;
  /** The path's parameters, as `path` checked them (GET /v1/responses/{id}). */
  path: Path;
  key: ApiKey;
  user: User;
  /** Who pays for the call: the key, its owner and the owner's teams (lib/calls/levels.ts); a metered call takes it as is. */
  payer: Payer;
  event: ApiEvent;
  requestId: string;
  /** The invocation's remaining time (Lambda's context), for work that must end before the function does. */
  remainingMs: () => number;
  /** What `prefetch` started beside the key's lookup, if the body named it. */
  prefetched?: Promise<P>;
}

/**
 * A /v1 endpoint of the gateway: the shared stack with the API-key guard instead of the login-token
 * one, a request id and the caller's rate-limit headers (x-ratelimit-*,
 * lib/http/middlewares/rate-limit-headers.ts) on every answer, and the errors of the API it speaks.
 * `dialect` is `openai` (the default: OpenAI's error shape, the key as a bearer credential) or
 * `anthropic` (POST /v1/messages: Anthropic's error shape, the key in x-api-key or as a bearer
 * credential, the request id also in Anthropic's `request-id`; the anthropic-version header is
 * accepted whatever it says, as the one version this dialect speaks is 2023-06-01's) or `bedrock`
 * (the /bedrock door: Bedrock's errors, the key as a bearer token as Bedrock API keys are sent, the
 * request id also in `x-amzn-requestid`, which the AWS SDKs read).
 *
 * `prefetch` lets a call's first read that needs no key (the model's name lookup) run beside the
 * key's lookup, in the same round trip: the guard starts it from the body's `model` before it awaits
 * the key, and the handler awaits it. A caller refused by the guard learns nothing from it.
 */
export function keyEndpoint<B extends TSchema, P = never, Path extends TObject = EmptyObject>(
  options: {
    body?: Check<B>;
    path?: Check<Path>;
    streaming?: boolean;
    dialect?: 'openai' | 'anthropic' | 'bedrock';
    prefetch?: (model: string) => Promise<P>;
  },
  handler: (request: KeyRequest<Checked<B>, P, Checked<Path>>) => Promise<unknown>,
) {
  const dialect = options.dialect ?? 'openai';
  const anthropic = dialect === 'anthropic';
  const requestIds = { openai: undefined, anthropic: ['x-request-id', 'request-id'], bedrock: ['x-request-id', 'x-amzn-requestid'] }[dialect];
  return stack(
    { auth: 'user', body: options.body, path: options.path, errorShape: dialect, streaming: options.streaming },
    [requestIdHeader(requestIds), authenticateKey({ apiKeyHeader: anthropic, prefetch: options.prefetch }), rateLimitHeaders()],
    async (request) => {
      const payer: Payer = { user: request.user, key: request.context.state.apiKey, memberships: request.context.state.memberships ?? [] };
      const answer = await handler({
        body: request.body,
        path: request.path,
        key: request.context.state.apiKey as ApiKey,
        user: request.user,
        payer,
        event: request.event,
        requestId: request.context.awsRequestId,
        remainingMs: () => request.context.getRemainingTimeInMillis(),
        prefetched: request.context.state.prefetched as Promise<P> | undefined,
      });
      // The headers come from what the handler returned: its metered call's rate report, or the windows as they stand.
      return withRateLimitHeaders(answer, payer);
    },
  );
}
