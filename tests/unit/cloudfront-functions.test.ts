/**
 * The CloudFront Function of the three streaming behaviours (console/deploy/streaming-methods.js), run
 * here as CloudFront runs it: its `cloudfront` module is given as the object CloudFront provides, whose
 * selectRequestOriginById(id) sends the request to another origin of the distribution.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const code = readFileSync(join(ROOT, 'console', 'deploy', 'streaming-methods.js'), 'utf8');

/** The origin a request of `method` goes to: the behaviour's own (the function URL) unless the function picks one. */
function originFor(method: string): string {
  let selected = 'function URL';
  const cf = { selectRequestOriginById: (id: string) => (selected = id) };
  const handler = runInNewContext(`${code.replace(/^import cf from 'cloudfront';$/m, '')}\nhandler;`, { cf }) as (e: unknown) => unknown;
  const request = { method, uri: '/v1/chat/completions', headers: {} };
  expect(handler({ version: '1.0', context: { eventType: 'viewer-request' }, request })).toBe(request);
  return selected;
}

test('the module it imports is CloudFront’s own, in the form the runtime accepts', () => {
  expect(code).toMatch(/^import cf from 'cloudfront';$/m);
});

test('a POST goes on to the streaming function’s URL', () => {
  expect(originFor('POST')).toBe('function URL');
});

test.each(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE'])('a %s goes to the HTTP API instead, never to the function URL', (method) => {
  expect(originFor(method)).toBe('api');
});
