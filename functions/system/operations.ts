// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/system/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';
import { errors, type Operations } from '../../lib/http/contract';

export const operations: Operations = {
  /** GET /api/openapi.json */
  openapi: {
    tags: ['system'],
    summary: 'This document, as JSON',
    description: 'Public (no token needed).',
    responses: {
      '200': {
        description: 'The OpenAPI document.',
        content: {
          'application/json': {
            schema: Type.Object({
              openapi: Type.String({ pattern: '^3\\.1\\.\\d+$' }),
              info: Type.Object({ title: Type.String(), version: Type.String() }),
              paths: Type.Unsafe({ type: 'object' }),
            }),
          },
        },
      },
      ...errors('api', 400, 413, 415, 500),
    },
  },
};
