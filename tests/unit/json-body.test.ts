/**
 * The body steps of the shared stack (lib/http/middlewares/json-body.ts): the byte cap and the strict
 * Content-Type in front, @middy/http-json-body-parser for the parsing, its errors mapped in
 * lib/http/errors.ts to the same answers the stack gave when it parsed by hand.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { config } from '../../core/config';
import { LoginBody } from '../../generated/checks/auth';
import { toHttpError } from '../../lib/http/errors';
import { publicEndpoint } from '../../lib/http/public-endpoint';
import { call, httpEvent, lambdaContext, type Handler } from '../helpers/invoke';

const echo = publicEndpoint({ body: LoginBody }, async ({ body }) => ({ got: body })) as Handler;
const echoOpenAi = publicEndpoint({ body: LoginBody, errorShape: 'openai' }, async ({ body }) => ({ got: body })) as Handler;
const login = { username: 'ada', password: 'correct horse battery staple' };

/** Calls `handler` with `text` base64-encoded, as API Gateway delivers a body it treats as binary. */
async function callBase64(handler: Handler, text: string, contentType = 'application/json') {
  const event = httpEvent({ method: 'POST', body: text, headers: { 'content-type': contentType } });
  Object.assign(event, { body: Buffer.from(text).toString('base64'), isBase64Encoded: true });
  const result = (await handler(event as never, lambdaContext())) as { statusCode: number; body: string };
  return { status: result.statusCode, body: JSON.parse(result.body) };
}

describe('the JSON body parser in the stack', () => {
  test('a JSON object body reaches the handler parsed', async () => {
    const res = await call(echo, { method: 'POST', body: login });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, got: login });
  });

  test('a base64-encoded body is decoded before it is parsed', async () => {
    const res = await callBase64(echo, JSON.stringify(login));
    expect(res).toEqual({ status: 200, body: { success: true, got: login } });
  });

  test('a blank base64-encoded body counts as none, whatever the Content-Type', async () => {
    const res = await callBase64(echo, '  \n', 'text/plain');
    expect(res).toEqual({ status: 200, body: { success: true, got: {} } });
  });

  test.each(['{"username":', '{username: "ada"}', 'undefined', '{"a":1}}'])('malformed JSON %j is a 400 saying so, never a 415', async (text) => {
    const res = await call(echo, { method: 'POST', body: text });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Malformed JSON in request body' });
  });

  test('malformed base64-encoded JSON is the same 400', async () => {
    const res = await callBase64(echo, '{"username"');
    expect(res).toEqual({ status: 400, body: { success: false, error: 'Malformed JSON in request body' } });
  });

  test('on /v1 the 400 is in OpenAI’s shape', async () => {
    const res = await call(echoOpenAi, { method: 'POST', body: '{"model":' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { message: 'Malformed JSON in request body', type: 'invalid_request_error', code: null, param: null } });
  });

  test.each([['[]'], ['"text"'], ['42'], ['null'], ['true']])('JSON that is not an object (%s) is a 400 with a plain reason', async (text) => {
    const res = await call(echo, { method: 'POST', body: text });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Request body must be a JSON object' });
  });

  test('the byte cap comes before the parser: an oversized body is a 413 even when it is not JSON', async () => {
    const res = await call(echo, { method: 'POST', body: '{'.repeat(config.http.maxBodyBytes + 1) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, error: 'Request body too large', details: `The limit is ${config.http.maxBodyBytes} bytes` });
  });

  test('the strict Content-Type comes before the parser: a +json type Middy would take is a 415', async () => {
    const res = await call(echo, { method: 'POST', body: login, headers: { 'content-type': 'application/vnd.api+json' } });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('Content-Type must be application/json');
  });

  test('a Content-Type Middy’s own check would refuse but the document allows is read', async () => {
    const res = await call(echo, { method: 'POST', body: login, headers: { 'content-type': 'Application/JSON ; charset="UTF-8"' } });
    expect(res.status).toBe(200);
  });
});

describe('the one error mapping', () => {
  test('maps the parser’s own error (a 415 by its count) to the 400 for malformed JSON', async () => {
    const request = { event: { headers: { 'content-type': 'application/json' }, body: '{', isBase64Encoded: false } };
    const thrown = await Promise.resolve(httpJsonBodyParser().before?.(request as never)).catch((err: unknown) => err);
    expect(thrown).toMatchObject({ statusCode: 415, cause: { package: '@middy/http-json-body-parser' } });
    expect(toHttpError(thrown)).toMatchObject({ statusCode: 400, message: 'Malformed JSON in request body', details: undefined });
  });
});
