/**
 * The signing-secret read of deployed stages (lib/auth/secret.ts: one SigV4-signed GetParameter over
 * fetch) against the emulator's SSM, whose wire format is checked first with the real SDK client.
 */
import { execFile } from 'node:child_process';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { ParameterStoreError, readParameter, type ParameterStore } from '../../lib/aws/parameter-store';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, control, credentials, injectFault, rejection } from './helpers';

const NAME = '/model-ops/test/jwt-secret';
const SECRET = 's'.repeat(48);
const SHORT = '/model-ops/test/short-secret';

let emulator: RunningEmulator;
let store: ParameterStore;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, parameters: { [NAME]: SECRET, [SHORT]: 'too-short' } });
  // A timeout no answer meets however loaded the machine (at 300 ms a slow answer was retried and
  // counted twice); the case that times out sets its own.
  store = { region: 'us-east-1', endpoint: emulator.url, credentials, timeoutMs: 10_000, attempts: 3 };
});
afterAll(() => emulator.close());
afterEach(async () => {
  await control(emulator.url, 'DELETE', '/faults');
  emulator.state.calls = {};
});

describe('emulator GetParameter, read by the real SDK client', () => {
  const ssm = () => new SSMClient(clientConfig(emulator.url));

  test('returns the SecureString decrypted only WithDecryption', async () => {
    const client = ssm();
    const plain = await client.send(new GetParameterCommand({ Name: NAME, WithDecryption: true }));
    expect(plain.Parameter).toMatchObject({ Name: NAME, Type: 'SecureString', Value: SECRET, Version: 1 });
    expect(plain.Parameter?.LastModifiedDate).toBeInstanceOf(Date);
    const encrypted = await client.send(new GetParameterCommand({ Name: NAME }));
    expect(encrypted.Parameter?.Value).not.toBe(SECRET);
    client.destroy();
  });

  test('an unknown name is ParameterNotFound', async () => {
    const client = ssm();
    const err = await rejection(client.send(new GetParameterCommand({ Name: '/nope', WithDecryption: true })));
    expect(err.name).toBe('ParameterNotFound');
    expect(err.$metadata.httpStatusCode).toBe(400);
    client.destroy();
  });
});

describe('readParameter (signed fetch)', () => {
  test('reads the decrypted value in one signed request to the ssm service', async () => {
    expect(await readParameter(NAME, store)).toBe(SECRET);
    expect(emulator.state.calls.GetParameter).toBe(1);
  });

  test('ParameterNotFound fails at once, not retried', async () => {
    const err = await rejection(readParameter('/missing', store));
    expect(err).toBeInstanceOf(ParameterStoreError);
    expect(err.code).toBe('ParameterNotFound');
    expect(emulator.state.calls.GetParameter).toBe(1);
  });

  test('a 500 is retried and the next attempt succeeds', async () => {
    await injectFault(emulator.url, { target: 'GetParameter', fault: '500', count: 1 });
    expect(await readParameter(NAME, store)).toBe(SECRET);
    expect(emulator.state.calls.GetParameter).toBe(2);
  });

  test('throttling that does not stop fails after the attempt limit with its code', async () => {
    await injectFault(emulator.url, { target: 'GetParameter', fault: '429' });
    const err = await rejection(readParameter(NAME, store));
    expect(err).toMatchObject({ code: 'ThrottlingException', retryable: true });
    expect(emulator.state.calls.GetParameter).toBe(3);
  });

  test('a request that does not answer in time fails after the attempt limit', async () => {
    await injectFault(emulator.url, { target: 'GetParameter', fault: 'timeout' });
    const err = await rejection(readParameter(NAME, { ...store, timeoutMs: 150, attempts: 2 }));
    expect(err).toMatchObject({ code: 'NetworkError' });
  });
});

describe('signingKey at cold start (a fresh process, as Lambda starts one)', () => {
  // Asynchronous: the emulator answering the child runs in this very process.
  const coldStart = (parameter: string) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          'node_modules/tsx/dist/cli.mjs',
          '--input-type=module',
          '-e',
          "const { signingKey } = await import('./lib/auth/secret.ts'); console.log('KEY', (await signingKey()).byteLength);",
        ],
        {
          encoding: 'utf8',
          timeout: 30_000,
          env: {
            PATH: process.env.PATH,
            JWT_SECRET_PARAMETER: parameter,
            SERVICE_CLOUD_ENDPOINT: emulator.url,
            AWS_REGION: 'us-east-1',
            AWS_ACCESS_KEY_ID: 'ASIATEST',
            AWS_SECRET_ACCESS_KEY: 'test',
            AWS_SESSION_TOKEN: 'session',
          },
        },
        (err, stdout, stderr) => resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  test('reads the key from the parameter', async () => {
    const result = await coldStart(NAME);
    expect(result.stdout).toContain(`KEY ${SECRET.length}`);
  });

  test('a parameter shorter than 256 bits is refused', async () => {
    const result = await coldStart(SHORT);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('at least 256 bits are required');
    expect(result.stderr).toContain(`SSM parameter ${SHORT}`);
  });
});
