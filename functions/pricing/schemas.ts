import { Type, type Static } from '@sinclair/typebox';
import { HOSTED_MODEL_ID, MANAGED_MODEL_ID } from '../../lib/catalogue/model-id';
import { Discriminated, Usd } from '../../lib/http/schemas';
import { INSTANCE_TYPE } from '../../core/vocabulary';
import { traitsOf } from '../../lib/platforms/registry';

/** A model's per-1K-token prices: input and output, and optionally the prompt cache's three. */
const tokenPrices = {
  per_1k_input_tokens_usd: Usd(1000),
  per_1k_output_tokens_usd: Usd(1000),
  per_1k_cache_read_tokens_usd: Type.Optional(Usd(1000, 'prompt tokens read from the prompt cache')),
  per_1k_cache_write_tokens_usd: Type.Optional(Usd(1000, 'prompt tokens written to the cache with the 5-minute TTL')),
  per_1k_cache_write_1h_tokens_usd: Type.Optional(Usd(1000, 'prompt tokens written to the cache with the 1-hour TTL')),
};

/** A Bedrock processing tier's own price, as AWS's pricing page lists it per model. */
const TierPrice = (tier: string) =>
  Type.Object(tokenPrices, {
    additionalProperties: false,
    description: `the ${tier} tier's per_1k_input_tokens_usd and per_1k_output_tokens_usd, and optionally its per_1k_cache_* prices (else the Standard ones scaled as its input price is)`,
  });

/** A managed model's Flex and Priority prices; a tier left out is billed at the working figure. */
const ServiceTierPrices = Type.Object(
  { flex: Type.Optional(TierPrice('flex')), priority: Type.Optional(TierPrice('priority')) },
  { additionalProperties: false, description: 'flex and/or priority prices' },
);

/** A managed or hosted entry: a model's two per-1K-token prices, and its tiers' where its platform has service tiers (the registry says). */
const TokenPriceEntry = <P extends 'managed' | 'hosted'>(platform: P, modelId: RegExp, maxLength: number, example: string) => {
  const tiered = traitsOf(platform).serviceTiers;
  return Type.Object(
    {
      platform: Type.Literal(platform),
      modelId: Type.String({ minLength: 1, maxLength, pattern: modelId.source, description: `a ${platform} model id such as ${example}` }),
      ...tokenPrices,
      ...(tiered ? { service_tiers: Type.Optional(ServiceTierPrices) } : {}),
    },
    {
      additionalProperties: false,
      description: `a ${platform} entry takes platform, modelId, per_1k_input_tokens_usd and per_1k_output_tokens_usd, and optionally the three per_1k_cache_* prices${tiered ? ' and service_tiers' : ''}`,
    },
  );
};

const ManagedPriceEntry = TokenPriceEntry('managed', MANAGED_MODEL_ID, 200, 'anthropic.claude-3-haiku-20240307-v1:0');
const HostedPriceEntry = TokenPriceEntry('hosted', HOSTED_MODEL_ID, 302, 'meta/llama-3.1-8b-instruct');
const DedicatedPriceEntry = Type.Object(
  {
    platform: Type.Literal('dedicated'),
    instanceType: Type.String({ minLength: 1, maxLength: 64, pattern: INSTANCE_TYPE.source, description: 'an instance type such as ml.g5.xlarge' }),
    hourly_usd: Usd(10_000),
  },
  { additionalProperties: false, description: 'a dedicated entry takes platform, instanceType and hourly_usd' },
);

// Which fields an entry takes depends on its platform: one branch per platform, told apart by
// `platform`, so the check names the missing or stray field of the branch the entry asked for.
export const PriceEntry = Discriminated('platform', [ManagedPriceEntry, HostedPriceEntry, DedicatedPriceEntry], {
  description: 'managed, hosted or dedicated',
});

export const UpsertPricingBody = Type.Object(
  { entries: Type.Array(PriceEntry, { minItems: 1, maxItems: 100, description: '1 to 100 entries' }) },
  { additionalProperties: false },
);
export type UpsertPricingBody = Static<typeof UpsertPricingBody>;

export const RefreshPricingBody = Type.Object(
  { overrideAdminEntries: Type.Optional(Type.Boolean({ description: 'true replaces prices an admin set by hand' })) },
  { additionalProperties: false },
);
