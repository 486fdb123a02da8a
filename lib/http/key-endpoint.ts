import type { TSchema } from '@sinclair/typebox';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import type { Payer } from '../calls/levels';
import { authenticateKey, requestIdHeader } from './middlewares/authenticate-key';
import { rateLimitHeaders } from './middlewares/rate-limit-headers';
import { stack } from './stack';
import type { ApiEvent } from './types';
import type { Check, Checked } from './validation';

export interface KeyRequest<B, P = never> {
  body: B;
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
 * A /v1 endpoint of the OpenAI-compatible gateway: the shared stack with the API-key guard instead of
 * the login-token one, OpenAI's error shape, and a request id and the caller's rate-limit headers
 * (x-ratelimit-*, lib/http/middlewares/rate-limit-headers.ts) on every answer.
 *
 * `prefetch` lets a call's first read that needs no key (the model's name lookup) run beside the
 * key's lookup, in the same round trip: the guard starts it from the body's `model` before it awaits
 * the key, and the handler awaits it. A caller refused by the guard learns nothing from it.
 */
export function keyEndpoint<B extends TSchema, P = never>(
  options: { body?: Check<B>; streaming?: boolean; prefetch?: (model: string) => Promise<P> },
  handler: (request: KeyRequest<Checked<B>, P>) => Promise<unknown>,
) {
  return stack(
    { auth: 'user', body: options.body, errorShape: 'openai', streaming: options.streaming },
    [requestIdHeader(), authenticateKey(options.prefetch), rateLimitHeaders()],
    (request) =>
      handler({
        body: request.body,
        key: request.event.apiKey as ApiKey,
        user: request.user,
        payer: {
          user: request.user,
          key: request.event.apiKey,
          memberships: request.event.memberships ?? [],
          onRates: (report) => {
            request.event.rateReport = report;
          },
        },
        event: request.event,
        requestId: request.context.awsRequestId,
        remainingMs: () => request.context.getRemainingTimeInMillis(),
        prefetched: request.event.prefetched as Promise<P> | undefined,
      }),
  );
}
