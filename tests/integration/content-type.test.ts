import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as listConversations } from '../../functions/conversations/list';
import { handler as login } from '../../functions/auth/login';
import { handler as createKey } from '../../functions/keys/create';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as models } from '../../functions/gateway/models';
import { httpEvent, lambdaContext, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';

/**
 * One rule for request bodies, in the shared stack (lib/http/middlewares/json-body.ts) and in
 * docs/openapi.yaml ("Request bodies"): a body is application/json, with at most charset=utf-8; any
 * other Content-Type, or none, is a 415 in the error shape of the route; a request without a body
 * needs no Content-Type.
 */

/** Invokes `handler` with `body` as is and exactly the Content-Type given (undefined: no header at all). */
async function send(handler: unknown, contentType: string | undefined, body: string | undefined, authorization?: string) {
  const event = httpEvent({ method: body === undefined ? 'GET' : 'POST', body, headers: authorization ? { authorization } : {} });
  delete event.headers['content-type'];
  if (contentType !== undefined) event.headers['content-type'] = contentType;
  const result = (await (handler as Handler)(event as never, lambdaContext())) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') };
}

let bearer: string;
let apiKey: string;

beforeAll(async () => {
  ({ token: bearer } = await makeUser('user'));
  const key = await send(createKey, 'application/json', JSON.stringify({ name: 'content-type' }), `Bearer ${bearer}`);
  apiKey = key.body.key;
});

const keyBody = JSON.stringify({ name: 'laptop' });

describe('request bodies are application/json (charset=utf-8 optional) and nothing else', () => {
  test.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', 'application/json ; charset="utf-8"'])(
    'a body sent as %s is read',
    async (type) => {
      const res = await send(createKey, type, keyBody, `Bearer ${bearer}`);
      expect(res.status).toBe(201);
    },
  );

  test.each([
    ['no Content-Type', undefined],
    ['text/plain', 'text/plain'],
    ['a +json type', 'application/vnd.api+json'],
    ['another charset', 'application/json; charset=latin1'],
    ['another parameter', 'application/json; profile=x'],
    ['a list of types', 'application/json, text/plain'],
    ['form data', 'application/x-www-form-urlencoded'],
  ])('a body with %s is 415 in the error shape, saying what to send', async (_label, type) => {
    const res = await send(createKey, type, keyBody, `Bearer ${bearer}`);
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      success: false,
      error: 'Content-Type must be application/json',
      details: expect.stringContaining('send application/json or application/json; charset=utf-8'),
    });
  });

  test('login and validate say it in message, as their other errors do', async () => {
    const res = await send(login, 'text/plain', JSON.stringify({ username: 'a', password: 'b' }));
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ success: false, message: 'Content-Type must be application/json' });
  });

  test('on /v1 the 415 is in OpenAI’s shape', async () => {
    const res = await send(
      completions,
      'text/plain',
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      `Bearer ${apiKey}`,
    );
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      error: { message: expect.stringContaining('Content-Type must be application/json'), type: 'invalid_request_error', code: null, param: null },
    });
  });

  test('a request without a body needs no Content-Type, on /api and on /v1', async () => {
    expect((await send(listConversations, undefined, undefined, `Bearer ${bearer}`)).status).toBe(200);
    expect((await send(models, undefined, undefined, `Bearer ${apiKey}`)).status).toBe(200);
  });

  test('an empty or blank body counts as none, whatever the Content-Type', async () => {
    expect((await send(listConversations, 'text/plain', '', `Bearer ${bearer}`)).status).toBe(200);
    expect((await send(listConversations, undefined, '  \n', `Bearer ${bearer}`)).status).toBe(200);
  });
});
