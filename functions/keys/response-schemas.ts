// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/keys/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { BudgetAlertThresholds, Timestamp, Uuid } from '../system/response-schemas';

/** An API key as every answer shows it (never its secret or hash). */
export const ApiKey = Named(
  'ApiKey',
  Type.Object(
    {
      id: Ref(Uuid),
      user_id: Ref(Uuid),
      name: Type.String(),
      prefix: Type.String({ description: "The secret's first 11 characters (`mo_` + 8), to tell keys apart." }),
      created_at: Ref(Timestamp),
      expires_at: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      monthly_budget_usd: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
      resource_ids: Type.Unsafe({ type: ['array', 'null'], items: { $ref: '#/components/schemas/Uuid' } }),
      revoked_at: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      team_id: OneOf([Ref(Uuid), Type.Null()], {
        description: 'The team the key spends for (created by a member; its owners manage it too); null for a personal key.',
      }),
      rpm_limit: Type.Unsafe<number | null>({
        description: 'Requests per minute of the key; null means no limit of its own.',
        type: ['integer', 'null'],
      }),
      tpm_limit: Type.Unsafe<number | null>({
        description: 'Tokens per minute of the key; null means no limit of its own.',
        type: ['integer', 'null'],
      }),
      spent_usd: Type.Number({ description: "The cost of the key's answered calls this calendar month (UTC)." }),
      alert_thresholds: Ref(BudgetAlertThresholds),
    },
    { description: 'An API key as every answer shows it (never its secret or hash).' },
  ),
);

export const ApiKeyResponse = Named(
  'ApiKeyResponse',
  Type.Object({ success: Type.Unsafe<true>({ const: true }), key: Ref(ApiKey) }, { additionalProperties: false }),
);
