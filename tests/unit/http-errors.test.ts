/**
 * lib/http/errors.ts: the one mapping of the domain's and the data layer's errors to HTTP.
 */
import {
  BadRequest,
  BudgetExceeded,
  Conflict,
  Forbidden,
  NotFound,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized,
  UpstreamError,
  type UpstreamFailure,
} from '../../lib/errors';
import { HttpError, toHttpError } from '../../lib/http/errors';
import { publicEndpoint } from '../../lib/http/public-endpoint';
import { DataError } from '../../tables/errors';
import { call, type Handler } from '../helpers/invoke';

describe('toHttpError', () => {
  test.each([
    [new BadRequest('b'), 400],
    [new Unauthorized('u'), 401],
    [new Forbidden('f'), 403],
    [new NotFound('n'), 404],
    [new Conflict('c'), 409],
    [new TooManyRequests('t', 7), 429],
    [new BudgetExceeded('e'), 429],
    [new ServiceUnavailable('s', 30), 503],
  ])('%s answers %i', (err, status) => {
    expect(toHttpError(err)?.statusCode).toBe(status);
  });

  test('keeps the text, the details, the code and the param, and turns a retry time into Retry-After', () => {
    const mapped = toHttpError(new ServiceUnavailable('not now', 30, { details: 'later', code: 'model_not_available', param: 'model' }));
    expect(mapped).toMatchObject({
      message: 'not now',
      details: 'later',
      code: 'model_not_available',
      param: 'model',
      headers: { 'Retry-After': '30' },
    });
    expect(toHttpError(new TooManyRequests('slow down', 0.2))?.headers).toEqual({ 'Retry-After': '1' });
    expect(toHttpError(new NotFound('gone'))?.headers).toEqual({});
  });

  test.each<[UpstreamFailure, number]>([
    ['failed', 502],
    ['throttled', 503],
    ['timed_out', 504],
    ['not_ready', 503],
    ['missing', 404],
  ])('a platform failure %s answers %i by default', (failure, status) => {
    expect(toHttpError(new UpstreamError('managed', 'x', failure))?.statusCode).toBe(status);
  });

  test('a route may report every platform failure one way, and OpenAI’s dialect keeps only timeouts apart', () => {
    for (const failure of ['failed', 'throttled', 'timed_out', 'not_ready', 'missing'] as const) {
      const err = new UpstreamError('dedicated', 'x', failure);
      expect(toHttpError(err, { platformFailures: 500 })?.statusCode).toBe(500);
      expect(toHttpError(err, { openAi: true })?.statusCode).toBe(failure === 'timed_out' ? 504 : 502);
    }
  });

  test.each([
    ['ItemNotFound', 404],
    ['InvalidCursor', 400],
    ['NameTaken', 409],
    ['StaleWrite', 409],
    ['RuleViolation', 409],
    ['DatabaseUnavailable', 503],
  ] as const)('a data error %s answers %i', (kind, status) => {
    expect(toHttpError(new DataError(kind, 'm'))?.statusCode).toBe(status);
  });

  test('passes HTTP errors through and leaves anything else to the generic 500', () => {
    const http = new HttpError(415, 'wrong type');
    expect(toHttpError(http)).toBe(http);
    expect(toHttpError(new Error('boom'))).toBeUndefined();
  });
});

describe('a request that outlives its function', () => {
  test("is answered 504 in the route's shape when Middy ends it before the function's timeout, never a generic 500", async () => {
    const slow = publicEndpoint({ ignoreInput: true }, () => new Promise((resolve) => setTimeout(() => resolve({ success: true }), 2_000)));
    const res = await call(slow as Handler, { remainingMs: 100 });
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ success: false, error: "The request did not finish within the function's time limit" });
  });
});
