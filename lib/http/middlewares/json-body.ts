import type middy from '@middy/core';
import type { APIGatewayProxyResultV2 } from 'aws-lambda';
import { BadRequest, PayloadTooLarge } from '../errors';
import type { ApiEvent } from '../types';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;

/**
 * Size check, content type and JSON parsing. The size is checked on the raw bytes before anything is
 * decoded or parsed (413); a body that is not a JSON object is a 400 with a plain reason.
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
      const contentType = event.headers?.['content-type'] ?? '';
      if (!JSON_TYPE.test(contentType)) {
        throw new BadRequest('Content-Type must be application/json', `Received "${contentType.slice(0, 100) || 'none'}"`);
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
