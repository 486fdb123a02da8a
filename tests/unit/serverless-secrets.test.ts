/**
 * scripts/serverless-secrets.cjs: which environments a package or deploy refuses. The refusal of a real
 * `serverless package` is in tests/unit/package-template.test.ts.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { refusal } = require('../../scripts/serverless-secrets.cjs') as {
  refusal: (stage: string, env: Record<string, string>) => string | undefined;
};

const SECRETS = ['JWT_SECRET', 'OIDC_CLIENT_SECRET', 'HOSTED_API_KEY', 'SERVICE_CLOUD_SECRET_ACCESS_KEY'];

test.each(SECRETS)('refuses %s set for a deployed stage, saying where to keep it', (name) => {
  const message = refusal('prod', { [name]: 'a-secret-value' });
  expect(message).toContain(`${name} is set in the environment`);
  expect(message).toContain(`aws ssm put-parameter --type SecureString --name /model-ops/prod/`);
  expect(message).not.toContain('a-secret-value');
});

test('lets the local stage (npm start) have every secret as a value', () => {
  expect(refusal('local', Object.fromEntries(SECRETS.map((s) => [s, 'value'])))).toBeUndefined();
});

test('lets a deployed stage name its secrets’ parameters, and nothing else set', () => {
  expect(refusal('prod', { HOSTED_API_KEY_PARAMETER: '/model-ops/prod/hosted-api-key', JWT_SECRET: ' ', PATH: '/usr/bin' })).toBeUndefined();
});

test('refuses a parameter name that is not a path, which the IAM grant could not name', () => {
  expect(refusal('prod', { SERVICE_CLOUD_SECRET_ACCESS_KEY_PARAMETER: 'cloud-key' })).toContain(
    'SERVICE_CLOUD_SECRET_ACCESS_KEY_PARAMETER must be the full name (path) of an SSM parameter',
  );
});
