import { Type, type Static } from '@sinclair/typebox';

const Usd = (max: number) => Type.Number({ minimum: 0, maximum: max, description: `USD, 0 to ${max}` });

// One object shape for every entry; which fields a platform needs is checked in lib/pricing/table.ts,
// which names the missing or stray field (a union schema could only say "no variant matched").
export const PriceEntry = Type.Object(
  {
    platform: Type.Union([Type.Literal('managed'), Type.Literal('hosted'), Type.Literal('dedicated')], {
      description: 'managed, hosted or dedicated',
    }),
    modelId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$', description: 'a model id' })),
    instanceType: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'an instance type such as ml.g5.xlarge' })),
    per_1k_input_tokens_usd: Type.Optional(Usd(1000)),
    per_1k_output_tokens_usd: Type.Optional(Usd(1000)),
    hourly_usd: Type.Optional(Usd(10_000)),
  },
  { additionalProperties: false },
);

export const UpsertPricingBody = Type.Object(
  { entries: Type.Array(PriceEntry, { minItems: 1, maxItems: 100, description: '1 to 100 entries' }) },
  { additionalProperties: false },
);
export type UpsertPricingBody = Static<typeof UpsertPricingBody>;

export const RefreshPricingBody = Type.Object(
  { overrideAdminEntries: Type.Optional(Type.Boolean({ description: 'true replaces prices an admin set by hand' })) },
  { additionalProperties: false },
);
