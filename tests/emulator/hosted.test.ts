import { startEmulator, type RunningEmulator } from '../../local/emulator/server';

const KEY = 'hosted-test-key';
let emulator: RunningEmulator;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, hostedApiKey: KEY });
});

afterAll(async () => {
  await emulator.close();
});

function chat(body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) {
  return fetch(`${emulator.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const LLAMA = 'meta/llama-3.1-8b-instruct';

describe('hosted OpenAI-compatible API', () => {
  it('lists the eight catalogue models (six chat, a vision and an embedding model) in the OpenAI list shape', async () => {
    const res = await fetch(`${emulator.url}/v1/models`);
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.object).toBe('list');
    expect(body.data).toHaveLength(8);
    expect(body.data[0]).toEqual({ id: LLAMA, object: 'model', created: 735790403, owned_by: 'meta', root: LLAMA, parent: null });
  });

  it('returns one model whose id contains a slash', async () => {
    const res = await fetch(`${emulator.url}/v1/models/mistralai/mixtral-8x7b-instruct-v0.1`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).owned_by).toBe('mistralai');
  });

  it('answers an unknown model id with a 404 problem document', async () => {
    const res = await fetch(`${emulator.url}/v1/models/acme/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(await res.json()).toEqual({ type: 'about:blank', status: 404, title: 'Not Found', detail: 'Model acme/nope not found' });
  });

  it('completes a chat with the deterministic reply and OpenAI usage', async () => {
    const res = await chat({
      model: LLAMA,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'Earlier' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'Now' },
      ],
    });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe(LLAMA);
    expect(body.choices[0].message).toEqual({
      role: 'assistant',
      content: `Emulated reply from ${LLAMA}. You said: "Now". Context: 3 messages received; earlier user messages: [Earlier]; system: yes.`,
    });
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.usage.prompt_tokens).toBe(Math.ceil('sysEarlierokNow'.length / 4));
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('answers a message that starts with "echo:" with the rest of it, verbatim (Markdown and all)', async () => {
    const markdown = '# Title\n\n- one\n- two\n\n```js\nconst x = 1;\n```\n<script>alert(1)</script>';
    const res = await chat({ model: LLAMA, messages: [{ role: 'user', content: `echo: ${markdown}` }] });
    const body = (await res.json()) as any;
    expect(body.choices[0].message.content).toBe(markdown);
    expect(body.usage.completion_tokens).toBe(Math.ceil(markdown.length / 4));
  });

  it('refuses a chat without an Authorization header with a 401 problem document', async () => {
    const res = await chat({ model: LLAMA, messages: [{ role: 'user', content: 'x' }] }, {});
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      type: 'about:blank',
      status: 401,
      title: 'Unauthorized',
      detail: 'Header of type `authorization` was missing',
    });
  });

  it('refuses a chat with the wrong key with a 403 problem document', async () => {
    const res = await chat({ model: LLAMA, messages: [{ role: 'user', content: 'x' }] }, { authorization: 'Bearer wrong' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).detail).toBe('Authorization failed');
  });

  it('answers a chat with an unknown model with 404', async () => {
    const res = await chat({ model: 'acme/nope', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).title).toBe('Not Found');
  });

  it('answers a chat without messages with a 422 validation problem', async () => {
    const res = await chat({ model: LLAMA, messages: [] });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).title).toBe('Validation failed');
  });

  it('streams the same reply as server-sent chunks closed by [DONE]', async () => {
    const messages = [{ role: 'user', content: 'Stream it' }];
    const plain = (await (await chat({ model: LLAMA, messages })).json()) as any;
    const res = await chat({ model: LLAMA, messages, stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe(plain.choices[0].message.content);
    expect(chunks.at(-1).usage).toEqual(plain.usage);
  });
});
