/**
 * The emulator with a state file (`npm start`: .data/emulator-state.json) keeps the emulated platform
 * across a restart, as DynamoDB Local keeps the table: endpoints (and a transition under way),
 * configurations, models, tags and the invocations CloudWatch reports. Each test restarts an emulator
 * on a file of its own.
 */
import { jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  AddTagsCommand,
  CreateEndpointCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  ListTagsCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, createModelAndConfig, deployEndpoint, pollUntil } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'emulator-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `fn` against an emulator on `file`, closing it (as Ctrl-C does) afterwards. */
async function withEmulator<T>(file: string, fn: (e: RunningEmulator, sm: SageMakerClient) => Promise<T>, options: EmulatorOptions = {}): Promise<T> {
  const emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0, stateFile: file, ...options });
  const sm = new SageMakerClient(clientConfig(emulator.url));
  try {
    return await fn(emulator, sm);
  } finally {
    sm.destroy();
    await emulator.close();
  }
}

test('an InService endpoint, its configuration, model and tags are there again after a restart', async () => {
  const file = join(dir, 'in-service.json');
  const arn = await withEmulator(file, async (_e, sm) => {
    await deployEndpoint(sm, 'kept');
    const { EndpointArn } = await sm.send(new DescribeEndpointCommand({ EndpointName: 'kept' }));
    await sm.send(new AddTagsCommand({ ResourceArn: EndpointArn, Tags: [{ Key: 'managed-by', Value: 'model-ops' }] }));
    return EndpointArn as string;
  });

  await withEmulator(file, async (_e, sm) => {
    expect(await sm.send(new DescribeEndpointCommand({ EndpointName: 'kept' }))).toMatchObject({
      EndpointArn: arn,
      EndpointStatus: 'InService',
      EndpointConfigName: 'kept-config',
    });
    expect((await sm.send(new DescribeEndpointConfigCommand({ EndpointConfigName: 'kept-config' }))).ProductionVariants?.[0]).toMatchObject({
      ModelName: 'kept-model',
      InstanceType: 'ml.g5.2xlarge',
    });
    expect((await sm.send(new DescribeModelCommand({ ModelName: 'kept-model' }))).ModelName).toBe('kept-model');
    expect((await sm.send(new ListTagsCommand({ ResourceArn: arn }))).Tags).toEqual([{ Key: 'managed-by', Value: 'model-ops' }]);
  });
});

test('a creation under way when the emulator stops finishes after the restart, on its own clock', async () => {
  const file = join(dir, 'creating.json');
  await withEmulator(
    file,
    async (_e, sm) => {
      await createModelAndConfig(sm, 'slow');
      await sm.send(new CreateEndpointCommand({ EndpointName: 'slow', EndpointConfigName: 'slow-config' }));
      expect((await sm.send(new DescribeEndpointCommand({ EndpointName: 'slow' }))).EndpointStatus).toBe('Creating');
    },
    { lifecycleDelayMs: 60_000 },
  );
  await withEmulator(
    file,
    async (e, sm) => {
      expect((await sm.send(new DescribeEndpointCommand({ EndpointName: 'slow' }))).EndpointStatus).toBe('Creating');
      e.options.lifecycleDelayMs = 0;
      await pollUntil(
        () => sm.send(new DescribeEndpointCommand({ EndpointName: 'slow' })),
        (o) => o.EndpointStatus === 'InService',
      );
    },
    { lifecycleDelayMs: 60_000 },
  );
});

test('invocations before a restart are still counted by CloudWatch after it', async () => {
  const file = join(dir, 'metrics.json');
  const since = new Date(Date.now() - 60_000);
  await withEmulator(file, async (e, sm) => {
    await deployEndpoint(sm, 'busy');
    const rt = new SageMakerRuntimeClient(clientConfig(e.url));
    try {
      for (let i = 0; i < 2; i++) {
        await rt.send(
          new InvokeEndpointCommand({
            EndpointName: 'busy',
            ContentType: 'application/json',
            Body: new TextEncoder().encode(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })),
          }),
        );
      }
    } finally {
      rt.destroy();
    }
  });
  await withEmulator(file, async (e) => {
    const cw = new CloudWatchClient(clientConfig(e.url));
    try {
      const out = await cw.send(
        new GetMetricDataCommand({
          StartTime: since,
          EndTime: new Date(Date.now() + 60_000),
          MetricDataQueries: [
            {
              Id: 'calls',
              MetricStat: {
                Metric: {
                  Namespace: 'AWS/SageMaker',
                  MetricName: 'Invocations',
                  Dimensions: [
                    { Name: 'EndpointName', Value: 'busy' },
                    { Name: 'VariantName', Value: 'AllTraffic' },
                  ],
                },
                Period: 3600,
                Stat: 'Sum',
              },
            },
          ],
        }),
      );
      expect((out.MetricDataResults?.[0]?.Values ?? []).reduce((a, v) => a + v, 0)).toBe(2);
    } finally {
      cw.destroy();
    }
  });
});

test('names made after a restart never repeat one made before it', async () => {
  const file = join(dir, 'ids.json');
  const before = await withEmulator(file, async (e) => {
    const res = await fetch(`${e.url}/_emulator/endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'outside-1', instanceType: 'ml.g5.xlarge' }),
    });
    expect(res.status).toBe(201);
    return e.state.nextId;
  });
  await withEmulator(file, async (e) => {
    expect(e.state.nextId).toBe(before);
  });
});

test('a state file that cannot be read is set aside and the emulator starts empty', async () => {
  const file = join(dir, 'broken.json');
  writeFileSync(file, '{"version": 1, "endpoints": ');
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    await withEmulator(file, async (e) => {
      expect(e.state.endpoints.size).toBe(0);
    });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('could not be read'));
  } finally {
    warn.mockRestore();
  }
  expect(readFileSync(`${file}.unreadable`, 'utf8')).toBe('{"version": 1, "endpoints": ');
});
