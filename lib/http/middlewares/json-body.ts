import type middy from '@middy/core';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { BadRequest } from '../../errors';
import { PayloadTooLarge, UnsupportedMediaType } from '../errors';
import type { ApiEvent } from '../types';

/**
 * The one media type the document declares for request bodies: application/json, with at most a
 * charset parameter that says utf-8 (names and values are case-insensitive, so is the type).
 * JSON is UTF-8 by definition (RFC 8259), so any other charset, another parameter, a +json suffix or
 * a list of types is not what the document describes.
 */
const JSON_TYPE = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i;

/**
 * Size check, content type and JSON parsing. The size is checked on the raw bytes before anything is
 * decoded or parsed (413). A body that is there (not empty, not blank) needs Content-Type
 * application/json (415 otherwise, a missing header included); an empty one needs no Content-Type,
 * so GET, DELETE and the bodiless POSTs work without one. A body that is not a JSON object is a 400
 * with a plain reason.
 */
export function jsonBody(maxBytes: number, skip = false): middy.MiddlewareObj<ApiEvent, APIGatewayProxyResultV2> {
  return {
    before: ({ event }) => {
      const raw = event.body;
      if (skip) return;
      if (raw === undefined || raw === null || raw === '') return;
      const bytes = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw, 'utf8');
      if (bytes > maxBytes) throw new PayloadTooLarge(maxBytes);
      const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
      if (text.trim() === '') return;
      const contentType = (event.headers?.['content-type'] ?? '').trim();
      if (!JSON_TYPE.test(contentType)) {
        throw new UnsupportedMediaType(contentType);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new BadRequest('Malformed JSON in request body');
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new BadRequest('Request body must be a JSON object');
      }
      event.input = { body: parsed, query: undefined, path: undefined };
    },
  };
}
