// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/pricing/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { Timestamp } from '../system/response-schemas';

/** Where a price came from. */
export const PriceSource = Named(
  'PriceSource',
  Type.Unsafe<'default' | 'admin' | 'aws-price-list'>({
    description: 'Where a price came from.',
    type: 'string',
    enum: ['default', 'admin', 'aws-price-list'],
  }),
);

const cachePriceFields = {
  per_1k_cache_read_tokens_usd: Type.Optional(
    Type.Number({ description: 'USD per 1K prompt tokens read from the prompt cache (models that cache).', minimum: 0 }),
  ),
  per_1k_cache_write_tokens_usd: Type.Optional(
    Type.Number({ description: 'USD per 1K prompt tokens written to the prompt cache with the 5-minute TTL (models that cache).', minimum: 0 }),
  ),
  per_1k_cache_write_1h_tokens_usd: Type.Optional(
    Type.Number({
      description: 'USD per 1K prompt tokens written to the prompt cache with the 1-hour TTL (models that cache it for an hour).',
      minimum: 0,
    }),
  ),
};

/** A Bedrock processing tier's price in force. */
export const TierPrice = Named(
  'TierPrice',
  Type.Object(
    {
      per_1k_input_tokens_usd: Type.Number({ minimum: 0 }),
      per_1k_output_tokens_usd: Type.Number({ minimum: 0 }),
      ...cachePriceFields,
      source: Type.Unsafe<'admin' | 'default'>({
        description:
          "admin: the tier's own price, set with POST /api/pricing; default: the service's working figure (a share of the Standard price).",
        type: 'string',
        enum: ['admin', 'default'],
      }),
    },
    { additionalProperties: false },
  ),
);

const ServiceTierPrices = Type.Optional(
  Type.Object(
    { flex: Type.Optional(Ref(TierPrice)), priority: Type.Optional(Ref(TierPrice)) },
    {
      description:
        'A managed model’s Flex and Priority prices in force (the tiers it offers, and any an admin priced); the entry’s own prices are Standard’s.',
      additionalProperties: false,
    },
  ),
);

export const TokenPrice = Named(
  'TokenPrice',
  Type.Object(
    {
      modelId: Type.String(),
      per_1k_input_tokens_usd: Type.Number({ minimum: 0 }),
      per_1k_output_tokens_usd: Type.Number({ minimum: 0 }),
      ...cachePriceFields,
      service_tiers: ServiceTierPrices,
      source: Ref(PriceSource),
      last_updated: Ref(Timestamp),
    },
    { additionalProperties: false },
  ),
);

export const InstancePrice = Named(
  'InstancePrice',
  Type.Object(
    {
      instanceType: Type.String(),
      hourly_usd: Type.Number({ minimum: 0 }),
      daily_usd: Type.Number({ minimum: 0 }),
      monthly_estimate_usd: Type.Number({ minimum: 0 }),
      source: Ref(PriceSource),
      last_updated: Ref(Timestamp),
    },
    { additionalProperties: false },
  ),
);

export const PricingTableResponse = Named(
  'PricingTableResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      currency: Type.Unsafe<'USD'>({ const: 'USD' }),
      source: Type.Unsafe<'default' | 'admin' | 'aws-price-list' | 'mixed'>({
        description: 'One source when every entry has the same origin, mixed otherwise.',
        type: 'string',
        enum: ['default', 'admin', 'aws-price-list', 'mixed'],
      }),
      sources: Type.Object(
        { default: Type.Integer({ minimum: 0 }), admin: Type.Integer({ minimum: 0 }), 'aws-price-list': Type.Integer({ minimum: 0 }) },
        { description: 'How many entries come from each source.', additionalProperties: false },
      ),
      last_updated: Ref(Timestamp),
      pricing: Type.Object(
        { managed: Type.Array(Ref(TokenPrice)), hosted: Type.Array(Ref(TokenPrice)), dedicated: Type.Array(Ref(InstancePrice)) },
        { additionalProperties: false },
      ),
      fallback: Type.Object(
        { per_1k_input_tokens_usd: Type.Number({ minimum: 0 }), per_1k_output_tokens_usd: Type.Number({ minimum: 0 }), note: Type.String() },
        { description: 'The price used (and flagged as an estimate) for a managed or hosted model without an entry.', additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
);

export const UpsertPricingResponse = Named(
  'UpsertPricingResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      message: Type.String(),
      updated: Type.Integer({ minimum: 1 }),
      last_updated: Ref(Timestamp),
      entries: Type.Array(
        OneOf([
          Type.Object(
            {
              platform: Type.Unsafe<'managed' | 'hosted'>({ type: 'string', enum: ['managed', 'hosted'] }),
              modelId: Type.String(),
              per_1k_input_tokens_usd: Type.Number(),
              per_1k_output_tokens_usd: Type.Number(),
              ...cachePriceFields,
              service_tiers: ServiceTierPrices,
              source: Ref(PriceSource),
              last_updated: Ref(Timestamp),
            },
            { additionalProperties: false },
          ),
          Type.Object(
            {
              platform: Type.Unsafe<'dedicated'>({ const: 'dedicated' }),
              instanceType: Type.String(),
              hourly_usd: Type.Number(),
              daily_usd: Type.Number(),
              monthly_estimate_usd: Type.Number(),
              source: Ref(PriceSource),
              last_updated: Ref(Timestamp),
            },
            { additionalProperties: false },
          ),
        ]),
      ),
    },
    { additionalProperties: false },
  ),
);

export const RefreshPricingResponse = Named(
  'RefreshPricingResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      message: Type.String(),
      source: Type.Unsafe<'aws-price-list'>({ const: 'aws-price-list' }),
      region: Type.String(),
      last_updated: Ref(Timestamp),
      summary: Type.Object(
        {
          checked: Type.Integer({ minimum: 0 }),
          changed: Type.Integer({ minimum: 0 }),
          unchanged: Type.Integer({ minimum: 0 }),
          kept_admin_overrides: Type.Integer({ minimum: 0 }),
          not_in_price_list: Type.Integer({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
      changes: Type.Array(
        Type.Object(
          {
            platform: Type.Unsafe<'managed' | 'dedicated'>({ type: 'string', enum: ['managed', 'dedicated'] }),
            key: Type.String({ description: 'The model id or instance type.' }),
            field: Type.Unsafe<
              | 'per_1k_input_tokens_usd'
              | 'per_1k_output_tokens_usd'
              | 'per_1k_cache_read_tokens_usd'
              | 'per_1k_cache_write_tokens_usd'
              | 'per_1k_cache_write_1h_tokens_usd'
              | 'hourly_usd'
            >({
              type: 'string',
              enum: [
                'per_1k_input_tokens_usd',
                'per_1k_output_tokens_usd',
                'per_1k_cache_read_tokens_usd',
                'per_1k_cache_write_tokens_usd',
                'per_1k_cache_write_1h_tokens_usd',
                'hourly_usd',
              ],
            }),
            old: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
            new: Type.Number(),
          },
          { additionalProperties: false },
        ),
      ),
      kept_admin_overrides: Type.Array(Type.String()),
      not_in_price_list: Type.Array(Type.String()),
      not_covered: Type.String(),
    },
    { additionalProperties: false },
  ),
);
