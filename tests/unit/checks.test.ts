/**
 * The precompiled request checks (functions/<area>/checks.ts, lib/http/checks.ts) are generated from
 * the TypeBox schemas by `npm run checks`: they must be what the generator makes of today's schemas,
 * and they must accept and refuse what the schemas do.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BadRequest } from '../../lib/http/errors';
import { validator } from '../../lib/http/validation';
import { render, SOURCES, targetOf } from '../../local/checks-build';
import { UpsertPricingBody } from '../../functions/pricing/checks';
import { ListConversationsQuery } from '../../functions/conversations/checks';
import { ThreadChatBody } from '../../functions/chat/checks';
import { MAX_MESSAGE_CHARS } from '../../lib/chat/limits';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test.each(SOURCES)('%s has an up-to-date checks.ts (run npm run checks)', async (source) => {
  expect(readFileSync(join(root, targetOf(source)), 'utf8')).toBe(await render(source));
});

const refusal = (fn: () => unknown): BadRequest => {
  try {
    fn();
  } catch (err) {
    if (err instanceof BadRequest) return err;
    throw err;
  }
  throw new Error('accepted');
};

describe('error wording', () => {
  const upsert = validator(UpsertPricingBody, 'body');
  const entry = { platform: 'dedicated', instanceType: 'ml.m5.large', hourly_usd: 1 };

  test('accepts a valid body and returns it unchanged', () => {
    expect(upsert.parse({ entries: [entry] })).toEqual({ entries: [entry] });
  });

  test.each([
    [{ entries: [{ ...entry, hourly_usd: -1 }] }, "Invalid field 'entries.0.hourly_usd': must be >= 0 (USD, 0 to 10000)"],
    [{ entries: [{ ...entry, platform: 'other' }] }, "Invalid field 'entries.0.platform': must be one of the allowed values (managed, hosted or dedicated)"],
    [{ entries: [{ ...entry, currency: 'EUR' }] }, "Unknown field 'entries.0.currency'"],
    [{ entries: [{ instanceType: 'ml.m5.large' }] }, "Missing required field 'entries.0.platform'"],
    [{}, "Missing required field 'entries'"],
    [{ entries: [] }, "Invalid field 'entries': must NOT have fewer than 1 items (1 to 100 entries)"],
    [[], 'Request body must be a JSON object'],
    ['text', 'Request body must be a JSON object'],
  ])('%j → %s', (body, message) => {
    const err = refusal(() => upsert.parse(body));
    expect(err.message).toBe(message);
    expect(err.statusCode).toBe(400);
  });

  test('string lengths count UTF-16 code units, as JavaScript (and the chat limits) count them', () => {
    const chat = validator(ThreadChatBody, 'body');
    const body = (message: string) => ({ conversationId: '00000000-0000-4000-8000-000000000000', resourceId: '00000000-0000-4000-8000-000000000001', message });
    const emoji = '\u{1F600}'; // two code units
    expect(() => chat.parse(body(emoji.repeat(MAX_MESSAGE_CHARS / 2)))).not.toThrow();
    expect(refusal(() => chat.parse(body(emoji.repeat(MAX_MESSAGE_CHARS / 2) + 'x'))).message).toMatch(/^Invalid field 'message': must NOT have more than/);
  });
});

describe('query strings are converted strictly', () => {
  const list = validator(ListConversationsQuery, 'query');

  test('an integer string becomes a number', () => {
    expect(list.parse({ limit: '20' })).toEqual({ limit: 20 });
  });

  test.each(['2.5', 'true', '', '1e3', '0x10'])('limit=%s is refused as a string that is not an integer', (limit) => {
    expect(refusal(() => list.parse({ limit })).message).toMatch(/^Invalid field 'limit': must be integer/);
  });

  test('an unknown parameter is named', () => {
    expect(refusal(() => list.parse({ sort: 'asc' })).message).toBe("Unknown field 'sort'");
  });
});
