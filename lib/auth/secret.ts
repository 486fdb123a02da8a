/**
 * The token signing key. Locally and in tests it is JWT_SECRET; deployed stages keep it as an SSM
 * SecureString (JWT_SECRET_PARAMETER, /model-ops/<stage>/jwt-secret) read once per cold start
 * (lib/aws/parameter-store.ts).
 */
import { checkSigningSecret, signingSecretSource } from '../../core/config';
import { parameterStoreFromEnv, readParameter } from '../aws/parameter-store';

// Evaluated at cold start: a missing or short secret stops the function from starting at all.
const source = signingSecretSource();

let pending: Promise<Uint8Array> | undefined;

/** The signing key; fetched from SSM once per cold start in deployed stages, then cached. */
export function signingKey(): Promise<Uint8Array> {
  if (source.kind === 'value') return Promise.resolve(source.key);
  pending ??= readParameter(source.parameterName, parameterStoreFromEnv())
    .then((value) => checkSigningSecret(value, `SSM parameter ${source.parameterName}`))
    .catch((err: unknown) => {
      pending = undefined; // a transient SSM failure must not poison the container
      throw err;
    });
  return pending;
}
