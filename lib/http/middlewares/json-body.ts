import httpJsonBodyParser from '@middy/http-json-body-parser';
import { BadRequest } from '../../errors';
import { PayloadTooLarge, UnsupportedMediaType } from '../errors';
import type { ApiEvent, ApiMiddleware as Step } from '../types';

/**
 * The one media type the document declares for request bodies: application/json, with at most a
 * charset parameter that says utf-8 (names and values are case-insensitive, so is the type).
 * JSON is UTF-8 by definition (RFC 8259), so any other charset, another parameter, a +json suffix or
 * a list of types is not what the document describes.
 */
const JSON_TYPE = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i;

/**
 * The size and the type, before a byte is parsed. The size is checked on the raw bytes before
 * anything is decoded (413). A body that is there (not empty, not blank) needs Content-Type
 * application/json (415 otherwise, a missing header included); an empty or blank one needs no
 * Content-Type, so GET, DELETE and the bodiless POSTs work without one, and it is dropped here:
 * the parser below reads only a body that is there.
 */
function sizeAndType(maxBytes: number): Step {
  return {
    before: ({ event }) => {
      const raw = event.body;
      if (raw === undefined || raw === null || raw === '') {
        event.body = undefined;
        return;
      }
      const bytes = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw, 'utf8');
      if (bytes > maxBytes) throw new PayloadTooLarge(maxBytes);
      const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      if (text.trim() === '') {
        event.body = undefined;
        return;
      }
      const contentType = (event.headers?.['content-type'] ?? '').trim();
      if (!JSON_TYPE.test(contentType)) throw new UnsupportedMediaType(contentType);
    },
  };
}

/**
 * Middy's parser (it decodes a base64 body, parses it and puts the value in `event.body`). Its own
 * Content-Type test is off: the stricter one above has passed already, and Middy's, which is
 * case-sensitive and takes any +json type or parameter, would refuse some types the document
 * allows. (The option is read by the package's code but missing from its 6.4 type declarations,
 * hence the widened type of the options.) It answers a missing body with a 415 of its own,
 * so it sees only a body that is there. Its malformed-JSON error is mapped in lib/http/errors.ts.
 */
const PARSER_OPTIONS: NonNullable<Parameters<typeof httpJsonBodyParser>[0]> & { disableContentTypeCheck: boolean } = {
  disableContentTypeCheck: true,
};
const parseJson = httpJsonBodyParser<ApiEvent>(PARSER_OPTIONS).before as NonNullable<Step['before']>;

const parser: Step = {
  before: (request) => (request.event.body === undefined ? undefined : parseJson(request)),
};

/** The parsed body is a JSON object (a 400 with a plain reason otherwise); no body reads as `{}`. */
const objectBody: Step = {
  before: ({ event, context: { state } }) => {
    const parsed: unknown = event.body === undefined ? {} : event.body;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new BadRequest('Request body must be a JSON object');
    state.input = { body: parsed, query: undefined, path: undefined };
  },
};

/**
 * The body steps of the stack, in order: size and type (413, 415), Middy's JSON parser (400 for
 * malformed JSON), a JSON object (400). None for an endpoint that ignores its input.
 */
export function jsonBody(maxBytes: number, skip = false): Step[] {
  return skip ? [] : [sizeAndType(maxBytes), parser, objectBody];
}
