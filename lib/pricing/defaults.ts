/**
 * The default price table, so a fresh install has prices. USD, on-demand list prices of the AWS
 * regions in us-east-1 at the time of writing; admins override entries (POST /api/pricing) or refresh
 * them from the AWS Price List API (POST /api/pricing/update).
 */
export interface TokenPrice {
  input_per_1k: number;
  output_per_1k: number;
}

export const DEFAULT_TOKEN_PRICES: Record<'managed' | 'hosted', Record<string, TokenPrice>> = {
  managed: {
    // Claude 4.5 and later: the base id's entry is the global profile's price; a geographic profile
    // (us.) costs 10 % more and has its own entry, which a call through it is priced by.
    'anthropic.claude-sonnet-4-5-20250929-v1:0': { input_per_1k: 0.003, output_per_1k: 0.015 },
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0': { input_per_1k: 0.0033, output_per_1k: 0.0165 },
    'anthropic.claude-haiku-4-5-20251001-v1:0': { input_per_1k: 0.001, output_per_1k: 0.005 },
    'us.anthropic.claude-haiku-4-5-20251001-v1:0': { input_per_1k: 0.0011, output_per_1k: 0.0055 },
    'anthropic.claude-3-haiku-20240307-v1:0': { input_per_1k: 0.00025, output_per_1k: 0.00125 },
    'meta.llama4-maverick-17b-instruct-v1:0': { input_per_1k: 0.00024, output_per_1k: 0.00097 },
    'openai.gpt-oss-120b-1:0': { input_per_1k: 0.00015, output_per_1k: 0.0006 },
    'cohere.embed-v4:0': { input_per_1k: 0.00012, output_per_1k: 0 },
    'amazon.titan-text-express-v1': { input_per_1k: 0.0002, output_per_1k: 0.0006 },
    'amazon.nova-lite-v1:0': { input_per_1k: 0.00006, output_per_1k: 0.00024 },
    'meta.llama3-8b-instruct-v1:0': { input_per_1k: 0.0003, output_per_1k: 0.0006 },
    'mistral.mistral-7b-instruct-v0:2': { input_per_1k: 0.00015, output_per_1k: 0.0002 },
    'cohere.command-r-v1:0': { input_per_1k: 0.0005, output_per_1k: 0.0015 },
    'amazon.titan-embed-text-v2:0': { input_per_1k: 0.00002, output_per_1k: 0 },
  },
  hosted: {
    'meta/llama-3.1-8b-instruct': { input_per_1k: 0.0003, output_per_1k: 0.0003 },
    'meta/llama-3.1-70b-instruct': { input_per_1k: 0.00088, output_per_1k: 0.00088 },
    'mistralai/mixtral-8x7b-instruct-v0.1': { input_per_1k: 0.0006, output_per_1k: 0.0006 },
    'google/gemma-2-9b-it': { input_per_1k: 0.0002, output_per_1k: 0.0002 },
    'nvidia/nemotron-4-340b-instruct': { input_per_1k: 0.0042, output_per_1k: 0.0042 },
    'microsoft/phi-3-mini-128k-instruct': { input_per_1k: 0.0001, output_per_1k: 0.0001 },
  },
};

/** Used when a model has no entry: a conservative figure, flagged as an estimate where shown. */
export const FALLBACK_TOKEN_PRICE: TokenPrice = { input_per_1k: 0.001, output_per_1k: 0.002 };

export const DEFAULT_INSTANCE_PRICES: Record<string, number> = {
  'ml.t2.medium': 0.056,
  'ml.m5.large': 0.115,
  'ml.m5.xlarge': 0.23,
  'ml.m5.2xlarge': 0.461,
  'ml.c5.xlarge': 0.204,
  'ml.g4dn.xlarge': 0.736,
  'ml.g5.xlarge': 1.408,
  'ml.g5.2xlarge': 1.515,
  'ml.g5.4xlarge': 2.03,
  'ml.g5.12xlarge': 7.09,
  'ml.g5.48xlarge': 20.36,
  'ml.p4d.24xlarge': 37.688,
};

/** When the shipped table above was taken from the public price pages (its `last_updated`). */
export const DEFAULT_PRICES_AS_OF = '2024-10-01T00:00:00.000Z';

/** The average month AWS bills with: 730 hours. */
export const HOURS_PER_MONTH = 730;
