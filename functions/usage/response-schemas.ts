// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/usage/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named } from '../../lib/http/contract';

export const UsageFigures = Named(
  'UsageFigures',
  Type.Object(
    {
      cost_usd: Type.Number({
        description:
          "The exact sum of the calls' costs in USD, never rounded (money is counted in nano-dollars: at most 9 decimals, e.g. 0.0000001 for one 5-token embedding).",
        minimum: 0,
      }),
      tokens_in: Type.Integer({ minimum: 0 }),
      tokens_out: Type.Integer({ minimum: 0 }),
      tokens_total: Type.Integer({ minimum: 0 }),
      requests: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
);

/** One clock hour's figures (UsageFigures) and the hour's start. */
export const UsageHour = Named(
  'UsageHour',
  Type.Object(
    {
      hour: Type.String({ format: 'date-time', examples: ['2026-11-23T14:00:00Z'] }),
      cost_usd: Type.Number({ minimum: 0 }),
      tokens_in: Type.Integer({ minimum: 0 }),
      tokens_out: Type.Integer({ minimum: 0 }),
      tokens_total: Type.Integer({ minimum: 0 }),
      requests: Type.Integer({ minimum: 0 }),
    },
    { description: "One clock hour's figures (UsageFigures) and the hour's start.", additionalProperties: false },
  ),
);
