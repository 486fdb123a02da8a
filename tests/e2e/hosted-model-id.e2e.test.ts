import { http, loginAsAdmin } from './http';

/**
 * Hosted model ids carry a slash. Standard tooling percent-encodes a path parameter into one segment
 * (meta%2Fllama-3.1-8b-instruct); the README's curl sends the slash as is. Through serverless-offline
 * both reach GET /api/hosted/model-info/{modelId+} with the same id.
 */
const MODEL = 'meta/llama-3.1-8b-instruct';
let token: string;

beforeAll(async () => {
  token = await loginAsAdmin();
});

test.each([
  ['percent-encoded as one segment (generated clients)', encodeURIComponent(MODEL)],
  ['with its slash as is (the README)', MODEL],
])('a hosted model id %s names the model', async (_form, segment) => {
  const res = await http('GET', `/api/hosted/model-info/${segment}`, { token });
  expect(res.status).toBe(200);
  expect(res.body.modelInfo.modelId).toBe(MODEL);
});
