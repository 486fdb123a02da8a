/**
 * For the wire dialects' tests (lib/dialects/): metered streams made of given events, the text a
 * dialect writes, that text read back as server-sent events, and a fetch that answers an official
 * client with it, so that the clients' own parsers judge the wire format.
 */
import type { MeteredEvent, Settled } from '../../lib/dialects/types';
import { toHttpError } from '../../lib/http/errors';
import type { ChatReply } from '../../lib/platforms/types';

export const META = { id: '123e4567-e89b-42d3-a456-426614174000', model: 'my-model', created: 1_700_000_000 };
export const SETTLED: Settled = { tokensIn: 12, tokensOut: 7, cost: 321_000 };

/** A platform's reply: `Hello` unless told otherwise. */
export const reply = (fields: Partial<ChatReply> = {}): ChatReply => ({
  content: 'Hello',
  tokensIn: 1,
  tokensOut: 1,
  latencyMs: 5,
  modelId: 'm',
  ...fields,
});

/**
 * The 400 that `fn` throws: a dialect's BadRequest, or a request check's refusal (whichever error
 * class lib/http gives it), as long as it answers 400.
 */
export function refusal(fn: () => unknown): Error & { param?: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof Error && toHttpError(err)?.statusCode === 400) return err;
    throw err;
  }
  throw new Error('accepted');
}

/** A metered stream of `items`; an Error among them is thrown from next() at that point, as a platform failing mid-stream. */
export function stream(items: (MeteredEvent | Error)[]): AsyncIterable<MeteredEvent> & { returned: () => boolean } {
  let returned = false;
  return {
    returned: () => returned,
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        async next() {
          const item = items[i++];
          if (item === undefined) return { done: true, value: undefined };
          if (item instanceof Error) throw item;
          return { done: false, value: item };
        },
        async return() {
          returned = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
}

export async function text(pieces: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const piece of pieces) out += piece;
  return out;
}

/** Server-sent events as a client reads them: the event name (if any) and the data, parsed when it is JSON. */
export function events(raw: string): { event?: string; data: any }[] {
  return raw
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice('event: '.length);
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice('data: '.length))
        .join('\n');
      let parsed: unknown = data;
      try {
        parsed = JSON.parse(data);
      } catch {
        // [DONE]
      }
      return { ...(event !== undefined && { event }), data: parsed };
    });
}

/** A fetch that answers every request with `body` (a JSON value, or event-stream text) and records what was sent. */
export function answering(body: unknown, status = 200) {
  const sent: { url: string; body: any; headers: Headers }[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    // The clients call fetch with the URL as a string (or URL) and the body as JSON text.
    const href = url instanceof Request ? url.url : url.toString();
    sent.push({ url: href, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined, headers: new Headers(init?.headers) });
    const stream = typeof body === 'string';
    return new Response(stream ? body : JSON.stringify(body), {
      status,
      headers: { 'content-type': stream ? 'text/event-stream' : 'application/json' },
    });
  };
  return { fetch, sent };
}

/** A 1x1 PNG, as base64. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
/** The first bytes of a JPEG, as base64. */
export const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]).toString('base64');
