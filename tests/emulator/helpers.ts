/** Shared plumbing for the emulator tests: SDK client settings, the control API, polling. */
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  type ProductionVariantInstanceType,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { toHttpError } from '../../lib/http/errors';

/** The smallest PNG there is: a 1x1 pixel. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

export const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

/**
 * Client config pointing a real SDK client at the emulator. One attempt by default so a fault test
 * sees the fault rather than the SDK's retry hiding it.
 */
export function clientConfig(url: string, extra: Record<string, unknown> = {}) {
  return { region: 'us-east-1', endpoint: url, credentials, maxAttempts: 1, ...extra };
}

export async function control(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

export function injectFault(url: string, fault: { target: string; fault: string; model?: string; count?: number }) {
  return control(url, 'POST', '/faults', fault);
}

/**
 * The rejection of a promise that must reject (fails the test if it resolves), with `statusCode`: the
 * status an endpoint answers it with by default (lib/http/errors.ts toHttpError). Domain errors carry
 * no status of their own; this is how a test says which answer a client gets.
 */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    const answered = toHttpError(err);
    return answered && err instanceof Error ? Object.assign(err, { statusCode: answered.statusCode }) : err;
  }
  throw new Error('Expected the call to fail, but it succeeded');
}

/** Polls until `done(value)` holds, returning every value seen so transitions can be asserted. */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T[]> {
  const seen: T[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    seen.push(value);
    if (done(value)) return seen;
    if (Date.now() > deadline) throw new Error(`Condition not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const decode = (bytes: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(bytes));

/** Creates `<name>-model` and `<name>-config`, the way the dedicated adapter deploys. */
export async function createModelAndConfig(sm: SageMakerClient, name: string, instanceType: ProductionVariantInstanceType = 'ml.g5.2xlarge') {
  await sm.send(
    new CreateModelCommand({
      ModelName: `${name}-model`,
      ExecutionRoleArn: 'arn:aws:iam::123456789012:role/SageMakerExecution',
      PrimaryContainer: { Image: 'image-uri', ModelDataUrl: 's3://bucket/model.tar.gz' },
    }),
  );
  await sm.send(
    new CreateEndpointConfigCommand({
      EndpointConfigName: `${name}-config`,
      ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: `${name}-model`, InitialInstanceCount: 1, InstanceType: instanceType }],
    }),
  );
}

/** Deploys an endpoint and waits until it is InService. */
export async function deployEndpoint(sm: SageMakerClient, name: string): Promise<void> {
  await createModelAndConfig(sm, name);
  await sm.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: `${name}-config` }));
  await pollUntil(
    () => sm.send(new DescribeEndpointCommand({ EndpointName: name })),
    (o) => o.EndpointStatus === 'InService',
  );
}
