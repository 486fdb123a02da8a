import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery } from '@aws-sdk/client-cloudwatch';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, control, deployEndpoint, injectFault, rejection } from './helpers';

const RESPONSE_DELAY_MS = 20;

let emulator: RunningEmulator;
let cw: CloudWatchClient;
let sm: SageMakerClient;
let rt: SageMakerRuntimeClient;

const invoke = (endpoint: string) =>
  rt.send(
    new InvokeEndpointCommand({
      EndpointName: endpoint,
      ContentType: 'application/json',
      Body: new TextEncoder().encode(JSON.stringify({ messages: [{ role: 'user', content: 'count me' }] })),
    }),
  );

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: 10, responseDelayMs: RESPONSE_DELAY_MS });
  cw = new CloudWatchClient(clientConfig(emulator.url));
  sm = new SageMakerClient(clientConfig(emulator.url));
  rt = new SageMakerRuntimeClient(clientConfig(emulator.url));
  await deployEndpoint(sm, 'metered');
  await deployEndpoint(sm, 'idle');
  for (let i = 0; i < 3; i++) await invoke('metered');
  await injectFault(emulator.url, { target: 'InvokeEndpoint', model: 'metered', fault: '500', count: 1 });
  await rejection(invoke('metered'));
});

afterAll(async () => {
  cw.destroy();
  sm.destroy();
  rt.destroy();
  await emulator.close();
});

afterEach(async () => {
  await control(emulator.url, 'DELETE', '/faults');
});

function query(id: string, namespace: string, metric: string, endpoint: string, stat: string): MetricDataQuery {
  return {
    Id: id,
    MetricStat: {
      Metric: {
        Namespace: namespace,
        MetricName: metric,
        Dimensions: [
          { Name: 'EndpointName', Value: endpoint },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
      },
      Period: 3600,
      Stat: stat,
    },
  };
}

async function metrics(queries: MetricDataQuery[]) {
  const out = await cw.send(
    new GetMetricDataCommand({
      StartTime: new Date(Date.now() - 3 * 3600_000),
      EndTime: new Date(Date.now() + 60_000),
      MetricDataQueries: queries,
    }),
  );
  return Object.fromEntries((out.MetricDataResults ?? []).map((r) => [r.Id, r]));
}

const total = (values: number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);

describe('CloudWatch GetMetricData', () => {
  it('counts the InvokeEndpoint calls the endpoint really received, errors included', async () => {
    const r = await metrics([query('inv', 'AWS/SageMaker', 'Invocations', 'metered', 'Sum')]);
    expect(total(r.inv?.Values)).toBe(4);
    expect(r.inv?.StatusCode).toBe('Complete');
    expect(r.inv?.Label).toBe('Invocations');
  });

  it('counts the fault-injected failure as a 5XX error and none as 4XX', async () => {
    const r = await metrics([
      query('e5', 'AWS/SageMaker', 'Invocation5XXErrors', 'metered', 'Sum'),
      query('e4', 'AWS/SageMaker', 'Invocation4XXErrors', 'metered', 'Sum'),
    ]);
    expect(total(r.e5?.Values)).toBe(1);
    expect(total(r.e4?.Values)).toBe(0);
  });

  it('reports ModelLatency in microseconds from the measured calls', async () => {
    const r = await metrics([query('lat', 'AWS/SageMaker', 'ModelLatency', 'metered', 'Average')]);
    expect(r.lat?.Values?.length).toBeGreaterThan(0);
    for (const v of r.lat?.Values ?? []) expect(v).toBeGreaterThanOrEqual(RESPONSE_DELAY_MS * 1000);
  });

  it('returns Date timestamps aligned to the period, newest first', async () => {
    const r = await metrics([query('cpu', '/aws/sagemaker/Endpoints', 'CPUUtilization', 'metered', 'Average')]);
    const stamps = r.cpu?.Timestamps ?? [];
    expect(stamps.length).toBeGreaterThan(0);
    for (const t of stamps) {
      expect(t).toBeInstanceOf(Date);
      expect(t.getTime() % 3600_000).toBe(0);
    }
    expect([...stamps].sort((a, b) => b.getTime() - a.getTime())).toEqual(stamps);
  });

  it('returns plausible, repeatable CPU and memory utilisation', async () => {
    const ask = () =>
      metrics([
        query('cpu', '/aws/sagemaker/Endpoints', 'CPUUtilization', 'idle', 'Average'),
        query('mem', '/aws/sagemaker/Endpoints', 'MemoryUtilization', 'idle', 'Average'),
      ]);
    const first = await ask();
    const second = await ask();
    expect(first.cpu?.Values).toEqual(second.cpu?.Values);
    for (const v of [...(first.cpu?.Values ?? []), ...(first.mem?.Values ?? [])]) {
      expect(v).toBeGreaterThan(0);
      expect(v).toBeLessThan(100);
    }
  });

  it('publishes invocation metrics per variant only: EndpointName alone, or another variant, has no datapoints', async () => {
    const byEndpoint = query('endpointOnly', 'AWS/SageMaker', 'Invocations', 'metered', 'Sum');
    byEndpoint.MetricStat!.Metric!.Dimensions = [{ Name: 'EndpointName', Value: 'metered' }];
    const otherVariant = query('other', 'AWS/SageMaker', 'Invocations', 'metered', 'Sum');
    otherVariant.MetricStat!.Metric!.Dimensions = [
      { Name: 'EndpointName', Value: 'metered' },
      { Name: 'VariantName', Value: 'Blue' },
    ];
    const r = await metrics([byEndpoint, otherVariant, query('inv', 'AWS/SageMaker', 'Invocations', 'metered', 'Sum')]);
    expect(r.endpointOnly?.Values).toEqual([]);
    expect(r.other?.Values).toEqual([]);
    expect(total(r.inv?.Values)).toBe(4);
  });

  it('refuses more than 500 queries in one request, as CloudWatch does', async () => {
    const queries = Array.from({ length: 501 }, (_, i) => query(`q${i}`, 'AWS/SageMaker', 'Invocations', 'metered', 'Sum'));
    const err = await rejection(metrics(queries));
    expect(err.$metadata.httpStatusCode).toBe(400);
    expect(err.message).toBe('The collection MetricDataQueries must not have a size greater than 500.');
  });

  it('returns no datapoints for an endpoint that does not exist', async () => {
    const r = await metrics([query('none', 'AWS/SageMaker', 'Invocations', 'never-deployed', 'Sum')]);
    expect(r.none?.Timestamps).toEqual([]);
    expect(r.none?.Values).toEqual([]);
  });

  it('answers a 500 fault with InternalServiceFault', async () => {
    await injectFault(emulator.url, { target: 'GetMetricData', fault: '500', count: 1 });
    const err = await rejection(metrics([query('inv', 'AWS/SageMaker', 'Invocations', 'metered', 'Sum')]));
    expect(err.name).toBe('InternalServiceFault');
    expect(err.$metadata.httpStatusCode).toBe(500);
  });

  it('answers a 429 fault with the query-compatible Throttling error', async () => {
    await injectFault(emulator.url, { target: 'GetMetricData', fault: '429', count: 1 });
    const err = await rejection(metrics([query('inv', 'AWS/SageMaker', 'Invocations', 'metered', 'Sum')]));
    expect(err.name).toBe('Throttling');
    expect(err.message).toBe('Rate exceeded');
  });
});
