// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/pricing/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */

import { PricingTableResponse, RefreshPricingResponse, UpsertPricingResponse } from './response-schemas';
import { Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { RefreshPricingBody, UpsertPricingBody } from './schemas';

export const operations: Operations = {
  /** GET /api/pricing */
  getPricing: {
    tags: ['pricing'],
    summary: 'The price table in use',
    description: 'Roles: user, admin, super_admin. Stored entries laid over the shipped defaults; every entry says where it came from.',
    responses: {
      '200': { description: 'The price table.', content: { 'application/json': { schema: Ref(PricingTableResponse) } } },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** POST /api/pricing */
  upsertPricing: {
    tags: ['pricing'],
    summary: 'Set price entries (all or nothing)',
    description:
      'Roles: admin, super_admin. Managed and hosted entries take modelId and the two per-1K token prices (a managed entry optionally its Flex and Priority prices, `service_tiers`); dedicated entries take instanceType and hourly_usd.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(UpsertPricingBody, 'UpsertPricingRequest', {
            '/properties/entries/items': {
              description:
                'One entry per platform shape, told apart by `platform`: managed and hosted entries take modelId and the two per-1K token prices, dedicated entries instanceType and hourly_usd.',
              discriminator: {
                propertyName: 'platform',
                mapping: {
                  managed: '#/components/schemas/ManagedPriceEntryInput',
                  hosted: '#/components/schemas/HostedPriceEntryInput',
                  dedicated: '#/components/schemas/DedicatedPriceEntryInput',
                },
              },
            },
            '/properties/entries/items/oneOf/0/properties/modelId': {
              description: 'A managed model id such as anthropic.claude-3-haiku-20240307-v1:0.',
            },
            '/properties/entries/items/oneOf/0/properties/per_1k_input_tokens_usd': {
              description: 'USD per 1K input tokens, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/0/properties/per_1k_output_tokens_usd': {
              description: 'USD per 1K output tokens, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/0/properties/per_1k_cache_read_tokens_usd': {
              description: 'USD per 1K prompt tokens read from the prompt cache, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/0/properties/per_1k_cache_write_tokens_usd': {
              description: 'USD per 1K prompt tokens written to the cache with the 5-minute TTL, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/0/properties/per_1k_cache_write_1h_tokens_usd': {
              description: 'USD per 1K prompt tokens written to the cache with the 1-hour TTL, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/1/properties/modelId': {
              description: 'A hosted model id such as meta/llama-3.1-8b-instruct (a namespace, a slash, a name; at most two slashes).',
            },
            '/properties/entries/items/oneOf/1/properties/per_1k_input_tokens_usd': {
              description: 'USD per 1K input tokens, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/1/properties/per_1k_output_tokens_usd': {
              description: 'USD per 1K output tokens, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/1/properties/per_1k_cache_read_tokens_usd': {
              description: 'USD per 1K prompt tokens read from the prompt cache, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/1/properties/per_1k_cache_write_tokens_usd': {
              description: 'USD per 1K prompt tokens written to the cache with the 5-minute TTL, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/1/properties/per_1k_cache_write_1h_tokens_usd': {
              description: 'USD per 1K prompt tokens written to the cache with the 1-hour TTL, 0 or from 0.000000001 to 1000.',
            },
            '/properties/entries/items/oneOf/2/properties/instanceType': { description: 'A SageMaker instance type such as ml.g5.xlarge.' },
            '/properties/entries/items/oneOf/2/properties/hourly_usd': { description: 'USD per instance-hour, 0 or from 0.000000001 to 10000.' },
          }),
        },
      },
    },
    responses: {
      '200': { description: 'Saved.', content: { 'application/json': { schema: Ref(UpsertPricingResponse) } } },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },

  /** POST /api/pricing/update */
  updatePricing: {
    tags: ['pricing'],
    summary: 'Refresh prices from the AWS Price List API',
    description:
      'Roles: admin, super_admin. Reads SageMaker hosting prices and Bedrock token prices, the prompt cache read and write (5-minute, 1-hour) prices included, from the services AmazonSageMaker, AmazonBedrock and AmazonBedrockFoundationModels (current Claude); a system profile entry (us.<model>, global.<model>) gets its own scope. Entries an admin set by hand are kept unless overrideAdminEntries is true. Hosted prices are not in the Price List and stay as they are.',
    requestBody: {
      required: false,
      content: {
        'application/json': {
          schema: new RequestSchema(RefreshPricingBody, 'RefreshPricingRequest', {
            '/properties/overrideAdminEntries': { description: 'true replaces prices an admin set by hand.' },
          }),
        },
      },
    },
    responses: {
      '200': { description: 'What changed.', content: { 'application/json': { schema: Ref(RefreshPricingResponse) } } },
      ...errors('api', 400, 401, 403, 413, 415, 500, 502, 503, 504),
    },
  },
};
