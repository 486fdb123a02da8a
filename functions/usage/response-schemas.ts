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

const ExactUsd = (description: string) => Type.String({ pattern: '^\\d+(\\.\\d{1,9})?$', description, examples: ['0.000123456'] });

/** One group's spend over the range (GET /api/usage/breakdown). */
export const BreakdownRow = Named(
  'BreakdownRow',
  Type.Object(
    {
      group: Type.Object(
        {
          id: Type.String({ description: "The team's, user's, key's, resource's or route's id, or the model id." }),
          name: Type.Union([Type.String(), Type.Null()], {
            description:
              "The team's name, the user's e-mail, the key's name and prefix (`name (mo_12345678…)`), the model id, the resource's or route's name; null when it no longer exists.",
          }),
        },
        { additionalProperties: false },
      ),
      cost_usd: ExactUsd("The exact sum of the calls' costs in USD, as a decimal string (at most 9 decimals: money is counted in nano-dollars)."),
      tokens_in: Type.Integer({ minimum: 0 }),
      tokens_out: Type.Integer({ minimum: 0 }),
      cached_tokens: Type.Integer({ minimum: 0, description: 'Input tokens read from the prompt cache (part of tokens_in).' }),
      requests: Type.Integer({ minimum: 0 }),
      by_day: Type.Array(
        Type.Object(
          { date: Type.String({ format: 'date' }), cost_usd: ExactUsd("That day's cost in USD."), requests: Type.Integer({ minimum: 0 }) },
          { additionalProperties: false },
        ),
        { description: "The group's days with calls (UTC), oldest first: what a chart by day stacks. An addition to the row the issue asked for." },
      ),
    },
    { description: "One group's spend over the range (GET /api/usage/breakdown).", additionalProperties: false },
  ),
);
