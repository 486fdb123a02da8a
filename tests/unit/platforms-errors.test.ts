import { BadRequest, UpstreamError } from '../../lib/errors';
import { toHttpError } from '../../lib/http/errors';
import { fromStatus, toUpstreamError, upstreamDetail } from '../../lib/platforms/errors';

/**
 * The mapping of platform failures to client-safe errors. The inputs are shaped like what the SDK
 * and fetch really throw (names, $metadata, codes as the emulator tests observed them); every fault
 * that the emulator can produce is also exercised end to end in tests/integration/platforms-*.
 */
const sdkError = (name: string, status: number | undefined, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), {
    name,
    $fault: status && status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status, requestId: 'req-123', attempts: 3 },
    ...extra,
  });

/** The mapped error, with the status an endpoint answers it with by default (lib/http/errors.ts). */
const answered = <E extends Error>(err: E) => Object.assign(err, { statusCode: toHttpError(err)?.statusCode });
const mapped = (err: unknown, platform: 'managed' | 'dedicated' | 'hosted' = 'managed') => answered(toUpstreamError(platform, err) as UpstreamError);

describe('toUpstreamError', () => {
  test.each([
    ['ThrottlingException', 429],
    ['ThrottlingException', 400],
    ['Throttling', 400],
    ['TooManyRequestsException', 429],
    ['ServiceQuotaExceededException', 400],
  ])('%s (status %s) is 503 "The <platform> platform is throttling requests"', (name, status) => {
    const err = mapped(sdkError(name, status, 'Rate exceeded'), 'dedicated');
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.statusCode).toBe(503);
    expect(err.message).toBe('The dedicated platform is throttling requests');
    expect(err.platform).toBe('dedicated');
    expect(err.upstreamStatus).toBe(status);
  });

  test.each([
    [
      Object.assign(new Error('@smithy/node-http-handler - [ERROR] a request has exceeded the configured 300 ms requestTimeout.'), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      }),
    ],
    [Object.assign(new Error('Stream timed out because of no activity for 300 ms'), { name: 'TimeoutError' })],
    [Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' })],
    [Object.assign(new Error('socket hang up'), { code: 'ETIMEDOUT' })],
  ])('a timeout is 504 "did not answer in time" without the transport text', (raw) => {
    const err = mapped(raw);
    expect(err.statusCode).toBe(504);
    expect(err.message).toBe('The managed platform did not answer in time');
    expect(JSON.stringify([err.message, err.details])).not.toMatch(/smithy|ms requestTimeout|Stream/);
  });

  test.each([
    ['UnrecognizedClientException', 403],
    ['InvalidSignatureException', 403],
    ['AccessDeniedException', 403],
    ['ExpiredTokenException', 400],
  ])('refused credentials (%s) are 502 naming the platform, with the upstream status', (name, status) => {
    const err = mapped(sdkError(name, status, 'The security token included in the request is invalid.'));
    expect(err.statusCode).toBe(502);
    expect(err.message).toBe(`The managed platform refused the service's credentials (status ${status})`);
    expect(err.upstreamStatus).toBe(status);
    expect(err.details).toBe('The security token included in the request is invalid.');
  });

  test('no credentials at all (the default chain found none) is 502 saying so', () => {
    const err = mapped(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
    expect(err.statusCode).toBe(502);
    expect(err.message).toBe('No credentials are available to call the managed platform');
  });

  test('an upstream 5xx is 502 with the status in the message and the upstream message in details', () => {
    const err = mapped(sdkError('InternalServerException', 500, 'An internal server error occurred. Retry your request.'));
    expect(err.statusCode).toBe(502);
    expect(err.message).toBe('The managed platform failed (status 500)');
    expect(err.details).toBe('An internal server error occurred. Retry your request.');
    expect(err.upstreamStatus).toBe(500);
  });

  test('a 2xx body that does not parse is 502 "could not be read" and shows nothing of the body', () => {
    const raw = Object.assign(
      new SyntaxError(
        'Bad control character in string literal in JSON at position 12\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object.',
      ),
      {
        $metadata: { httpStatusCode: 200 },
      },
    );
    const err = mapped(raw, 'hosted');
    expect(err.statusCode).toBe(502);
    expect(err.message).toBe('The hosted platform returned a response that could not be read');
    expect(err.details).toBeUndefined();
    expect(err.upstreamStatus).toBe(200);
  });

  test('a model failure reports what the model answered, not the wrapper and its log links', () => {
    const err = mapped(
      sdkError(
        'ModelError',
        424,
        'Received server error (500) from primary with message "CUDA error". See https://us-east-1.console.aws.amazon.com/cloudwatch/home in account 123456789012 for more information.',
        {
          OriginalStatusCode: 500,
          OriginalMessage: 'CUDA error',
        },
      ),
      'dedicated',
    );
    expect(err.statusCode).toBe(502);
    expect(err.message).toBe('The model on the dedicated platform failed (status 500)');
    expect(err.details).toBe('CUDA error');
    expect(JSON.stringify(err.details)).not.toContain('123456789012');
  });

  test('a refused connection is 502 "could not be reached" without the socket error', () => {
    const err = mapped(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), { code: 'ECONNREFUSED' }));
    expect(err.message).toBe('The managed platform could not be reached');
    expect(err.details).toBeUndefined();
  });

  test('other 4xx answers are 502 "rejected the request" with the upstream message', () => {
    const err = mapped(sdkError('ValidationException', 400, 'Cannot create already existing endpoint "x".'), 'dedicated');
    expect(err.statusCode).toBe(502);
    expect(err.message).toBe('The dedicated platform rejected the request (status 400)');
    expect(err.details).toBe('Cannot create already existing endpoint "x".');
  });

  test('an HttpError that is already mapped passes through unchanged', () => {
    const original = new BadRequest('nope');
    expect(toUpstreamError('managed', original)).toBe(original);
  });

  test('something unrecognisable is a generic 502 naming the platform, never its message', () => {
    const err = mapped(new Error('TypeError: cannot read properties of undefined (reading "x") at /var/task/index.mjs:1:2'));
    expect(err.statusCode).toBe(502);
    expect(err.message).toBe('The managed platform call failed');
    expect(err.details).toBeUndefined();
  });
});

describe('fromStatus (the hosted API)', () => {
  test.each([
    [429, 503, 'The hosted platform is throttling requests'],
    [401, 502, "The hosted platform refused the service's credentials (status 401)"],
    [403, 502, "The hosted platform refused the service's credentials (status 403)"],
    [500, 502, 'The hosted platform failed (status 500)'],
    [503, 502, 'The hosted platform failed (status 503)'],
    [504, 504, 'The hosted platform did not answer in time (status 504)'],
    [404, 502, 'The hosted platform rejected the request (status 404)'],
    [422, 502, 'The hosted platform rejected the request (status 422)'],
  ])('status %s becomes %s "%s"', (status, expected, message) => {
    const err = answered(fromStatus('hosted', status, 'problem detail'));
    expect(err.statusCode).toBe(expected);
    expect(err.message).toBe(message);
    expect(err.upstreamStatus).toBe(status);
  });
});

describe('upstreamDetail', () => {
  test('keeps one line and bounds the length', () => {
    expect(upstreamDetail('a\n  b\tc')).toBe('a b c');
    expect(upstreamDetail('x'.repeat(1000))?.length).toBe(300);
    expect(upstreamDetail(undefined)).toBeUndefined();
    expect(upstreamDetail('   ')).toBeUndefined();
  });
});
