/**
 * The stacks' request context (lib/http/stack.ts, lib/background.ts): what the middlewares learn lives
 * on the invocation's own context, never on the event, and Powertools' logMetrics publishes each
 * invocation's metrics once. Metrics are on in this file (they are off in every other test), so its
 * modules are imported after the switch.
 */
import { jest } from '@jest/globals';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { httpEvent, lambdaContext, type Handler } from '../helpers/invoke';

process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_DEV = 'false';
const { makeUser } = await import('../helpers/users');
const { handler: validate } = (await import('../../functions/auth/validate')) as { handler: Handler };
const { handler: aggregate } = await import('../../functions/usage/aggregate');

interface Emf {
  _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [field: string]: unknown;
}

/** The EMF documents written to stdout while `run` runs (logMetrics writes one per invocation). */
async function emfDuring(run: () => Promise<unknown>): Promise<Emf[]> {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as Emf);
}

const body = (result: unknown) => JSON.parse((result as APIGatewayProxyStructuredResultV2).body ?? '{}') as { user?: { id: string } };

describe('the request context', () => {
  test('the middlewares add nothing to the event: the caller and the checked input live on the context', async () => {
    const { user, token } = await makeUser('user');
    const event = httpEvent({ token, path: '/api/auth/validate' });
    const before = Object.keys(event).sort();
    let result: unknown;
    await emfDuring(async () => {
      result = await validate(event as never, lambdaContext());
    });
    expect(body(result).user?.id).toBe(user.id);
    expect(Object.keys(event).sort()).toEqual(before);
  });

  test('two invocations given the same context object (as a test or a wrapper may) each see their own caller', async () => {
    const [a, b] = await Promise.all([makeUser('user'), makeUser('admin')]);
    const shared: Context = lambdaContext();
    let results: unknown[] = [];
    await emfDuring(async () => {
      results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a)).map((u) => validate(httpEvent({ token: u.token }) as never, shared)),
      );
    });
    expect(results.map((r) => body(r).user?.id)).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).user.id));
    expect(Object.keys(shared)).not.toContain('state');
  });

  test('each request publishes its metrics once: ApiRequests and ApiLatency, and no ApiErrors for a refusal', async () => {
    const { token } = await makeUser('user');
    const docs = await emfDuring(async () => {
      await validate(httpEvent({ token }) as never, lambdaContext());
      await validate(httpEvent({ token: 'not-a-token' }) as never, lambdaContext());
    });
    expect(docs).toHaveLength(2);
    for (const doc of docs) {
      expect(doc.ApiRequests).toBe(1);
      expect(typeof doc.ApiLatency).toBe('number');
      expect(doc.ApiErrors).toBeUndefined();
      expect(doc.stage).toBeDefined();
    }
  });

  test('a stream consumer runs on the background stack: one run counted, with its job as a dimension', async () => {
    const docs = await emfDuring(() => aggregate({ Records: [] }, lambdaContext()));
    expect(docs).toHaveLength(1);
    const [doc] = docs as [Emf];
    expect(doc).toMatchObject({ job: 'aggregation', BackgroundRuns: 1 });
    expect(doc._aws.CloudWatchMetrics.flatMap((m) => m.Dimensions.flat())).toContain('job');
    expect(doc.BackgroundFailures).toBeUndefined();
  });
});
