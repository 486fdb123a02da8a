// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/chat/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, Ref } from '../../lib/http/contract';
import { MessageMetadata, Timestamp } from '../system/response-schemas';

export const LegacyMessage = Named(
  'LegacyMessage',
  Type.Object(
    {
      role: Type.Unsafe<'user' | 'assistant'>({ type: 'string', enum: ['user', 'assistant'] }),
      content: Type.String(),
      timestamp: Ref(Timestamp),
      metadata: Ref(MessageMetadata),
      status: Type.Optional(Type.Unsafe<'failed'>({ description: 'Only on a user message whose model call failed.', const: 'failed' })),
    },
    { additionalProperties: false },
  ),
);
