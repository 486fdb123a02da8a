import { spawnSync } from 'node:child_process';
import { ConfigError, checkSigningSecret, loadConfig, signingSecretSource } from '../../core/config';
import { mask } from '../../lib/auth/credentials';

describe('signing secret', () => {
  test('a secret of 31 bytes is refused with a message that gives the bits required', () => {
    expect(() => checkSigningSecret('x'.repeat(31), 'JWT_SECRET')).toThrow(/248 bits; at least 256 bits are required/);
  });

  test('a secret of 32 bytes is accepted', () => {
    expect(checkSigningSecret('x'.repeat(32), 'JWT_SECRET').byteLength).toBe(32);
  });

  test('no secret at all is refused', () => {
    expect(() => signingSecretSource({})).toThrow(ConfigError);
  });

  test('deployed stages name an SSM parameter instead of holding the secret', () => {
    expect(signingSecretSource({ JWT_SECRET_PARAMETER: '/model-ops/prod/jwt-secret' })).toEqual({
      kind: 'ssm',
      parameterName: '/model-ops/prod/jwt-secret',
    });
  });

  test('a function refuses to start (its module fails to load) with a short secret', () => {
    const result = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', '--input-type=module', '-e', "import './lib/auth/secret.ts'"], {
      env: { ...process.env, JWT_SECRET: 'too-short', JWT_SECRET_PARAMETER: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('at least 256 bits are required');
  });
});

describe('configuration', () => {
  test('defaults: bcrypt cost 10, 24-hour tokens, waits after 10 failures of an account (up to 60 s), 30 failures per address in 15 minutes', () => {
    const c = loadConfig({});
    expect(c.auth.bcryptCost).toBe(10);
    expect(c.auth.tokenLifetimeSeconds).toBe(86_400);
    expect(c.auth.loginMaxFailures).toBe(10);
    expect(c.auth.loginMaxDelaySeconds).toBe(60);
    expect(c.auth.loginAddressMaxFailures).toBe(30);
    expect(c.auth.loginFailureWindowSeconds).toBe(900);
  });

  test('a malformed number is refused loudly, naming the variable', () => {
    expect(() => loadConfig({ BCRYPT_COST: 'ten' })).toThrow(/BCRYPT_COST must be an integer from 4 to 15/);
  });

  test('lists are split on commas and trimmed', () => {
    expect(loadConfig({ DEDICATED_SUBNET_IDS: ' subnet-a , subnet-b,' }).dedicated.subnetIds).toEqual(['subnet-a', 'subnet-b']);
  });

  test('a malformed URL is refused', () => {
    expect(() => loadConfig({ HOSTED_BASE_URL: 'not a url' })).toThrow(/HOSTED_BASE_URL must be a URL/);
  });
});

describe('masking', () => {
  test('shows at most the last four characters, in a fixed width that hides the length', () => {
    expect(mask('AKIAABCDEFGHIJKL1234')).toBe('************1234');
    expect(mask('short')).toBe('****************');
    expect(mask(undefined)).toBeNull();
  });
});
