import type { TSchema } from '@sinclair/typebox';
import type { ApiKey } from '../../tables/keys';
import type { User } from '../../tables/users';
import { authenticateKey, requestIdHeader } from './middlewares/authenticate-key';
import { stack } from './stack';
import type { ApiEvent } from './types';
import type { Check, Checked } from './validation';

export interface KeyRequest<B> {
  body: B;
  key: ApiKey;
  user: User;
  event: ApiEvent;
  requestId: string;
}

/**
 * A /v1 endpoint of the OpenAI-compatible gateway: the shared stack with the API-key guard instead of
 * the login-token one, OpenAI's error shape, and a request id on every answer.
 */
export function keyEndpoint<B extends TSchema>(
  options: { body?: Check<B>; streaming?: boolean },
  handler: (request: KeyRequest<Checked<B>>) => Promise<unknown>,
) {
  return stack(
    { auth: 'user', body: options.body, errorShape: 'openai', streaming: options.streaming },
    [requestIdHeader(), authenticateKey()],
    (request) =>
      handler({
        body: request.body,
        key: request.event.apiKey as ApiKey,
        user: request.user,
        event: request.event,
        requestId: request.context.awsRequestId,
      }),
  );
}
