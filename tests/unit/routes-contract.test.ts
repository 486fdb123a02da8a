import { openapiDocument } from '../helpers/openapi-document';

/**
 * What a route adds to the /v1 answers is in the contract on all four model calls alike: which
 * resource answered and after how many attempts, and the 429 (with Retry-After) of a throttled model
 * or a route whose every target is throttled, in each dialect's error shape.
 */

type Json = Record<string, any>;

const doc = openapiDocument<Json>();
const deref = (node: Json): Json =>
  typeof node.$ref === 'string'
    ? deref(
        node.$ref
          .split('/')
          .slice(1)
          .reduce((n: Json, k: string) => n[k], doc),
      )
    : node;

const CALLS = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses', '/v1/messages'];

test.each(CALLS)('POST %s documents x-model-ops-resource and x-model-ops-attempts on its answer', (path) => {
  const headers = deref(doc.paths[path].post.responses['200']).headers as Json;
  expect(deref(headers['x-model-ops-resource']).description).toMatch(/route/);
  expect(deref(headers['x-model-ops-attempts']).schema).toEqual({ type: 'string', pattern: '^[1-9][0-9]*$' });
});

test.each(CALLS)('POST %s documents its 429 with Retry-After, a throttled model and a route whose targets are all throttled', (path) => {
  const tooMany = deref(doc.paths[path].post.responses['429']);
  expect(Object.keys(tooMany.headers as Json)).toContain('Retry-After');
  expect(tooMany.description).toMatch(/throttles the model/);
  expect(tooMany.description).toMatch(/every target of a route|route whose every target/);
  const body = deref(tooMany.content['application/json'].schema);
  expect(Object.keys(body.properties as Json)).toContain(path === '/v1/messages' ? 'type' : 'error');
});
