/**
 * The security headers every API answer carries (lib/http/middlewares/security-headers.ts), on the
 * public functions, which need no table: the OpenAPI document (a 200) and the unknown route (an error
 * answer, written by the error responder).
 */
import { handler as openapi } from '../../functions/system/openapi';
import { handler as notFound } from '../../functions/system/not-found';
import { call, type CallResult } from '../helpers/invoke';

const header = (res: CallResult, name: string) => Object.entries(res.headers).find(([k]) => k.toLowerCase() === name)?.[1];

describe.each([
  ['a 200', openapi, '/api/openapi.json'],
  ['an error answer', notFound, '/api/no/such/route'],
])('%s', (_what, handler, path) => {
  test('carries HSTS when API Gateway or a function URL says the request came over https', async () => {
    const res = await call(handler, { path, headers: { 'x-forwarded-proto': 'https' } });
    expect(header(res, 'strict-transport-security')).toBe('max-age=15552000; includeSubDomains; preload');
    expect(header(res, 'x-content-type-options')).toBe('nosniff');
  });

  test('carries no HSTS over plain http (the local front door) or when nothing says how it came (serverless-offline)', async () => {
    for (const headers of [{ 'x-forwarded-proto': 'http' }, {}] as Record<string, string>[]) {
      const res = await call(handler, { path, headers });
      expect(header(res, 'strict-transport-security')).toBeUndefined();
      expect(header(res, 'x-content-type-options')).toBe('nosniff');
    }
  });

  test('carries no Reporting-Endpoints header, empty or not', async () => {
    const res = await call(handler, { path, headers: { 'x-forwarded-proto': 'https' } });
    expect(Object.keys(res.headers).map((k) => k.toLowerCase())).not.toContain('reporting-endpoints');
  });
});
