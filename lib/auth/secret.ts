import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { checkSigningSecret, signingSecretSource } from '../config';

// Evaluated at cold start: a missing or short secret stops the function from starting at all.
const source = signingSecretSource();

let pending: Promise<Uint8Array> | undefined;

/** The signing key; fetched from SSM once per cold start in deployed stages, then cached. */
export function signingKey(): Promise<Uint8Array> {
  if (source.kind === 'value') return Promise.resolve(source.key);
  pending ??= fetchFromSsm(source.parameterName).catch((err: unknown) => {
    pending = undefined; // a transient SSM failure must not poison the container
    throw err;
  });
  return pending;
}

async function fetchFromSsm(name: string): Promise<Uint8Array> {
  const ssm = new SSMClient({ maxAttempts: 3, requestHandler: { connectionTimeout: 1000, requestTimeout: 3000 } });
  const { Parameter } = await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
  if (!Parameter?.Value) throw new Error(`SSM parameter ${name} has no value`);
  return checkSigningSecret(Parameter.Value, `SSM parameter ${name}`);
}
