/**
 * What a managed (Bedrock) model can do beyond plain chat, by model family: plain data, no client, so
 * that the catalogue, the deploy and the chat adapter agree without a platform call.
 *
 * Bedrock's catalogue says the modalities (input IMAGE, output TEXT or EMBEDDING) and whether a model
 * streams, but not whether Converse lets it use tools. That comes from AWS's "Supported models and
 * model features" table of the Converse API (tool use, streaming tool use) and the ToolChoice
 * reference (`tool`: only Anthropic Claude 3 and later and Amazon Nova; `any`: those and Mistral
 * Large). A family missing here has no tool use, which is what the table says of the rest (Titan Text,
 * Llama 2 and 3 before 3.1, Mistral 7B and Mixtral, Claude 2, Cohere Command Text).
 *
 * JSON output: Bedrock's own structured output (Converse `outputConfig.textFormat`) is offered only for
 * Claude Sonnet 4.5, Haiku 4.5, Opus 4.5/4.6 and some open-weight models, all of them reached through
 * inference profiles rather than on-demand model ids, and none of the models this service deploys on
 * demand. So JSON output here is the forced tool call (managed/chat.ts), which needs a model that can be
 * made to call one tool: a family whose `forcedTool` is `tool` or `any`.
 */
import type { CacheTtl, ModelCapabilities, ServiceTier } from '../types';

export interface ConverseFeatures {
  /** Converse toolConfig is accepted. */
  tools: boolean;
  /** ConverseStream accepts toolConfig (otherwise a tool call is made with Converse and replayed as a stream). */
  streamTools: boolean;
  /** How a tool call can be forced: `tool` (a named tool), `any` (some tool), or not at all. */
  forcedTool: 'tool' | 'any' | 'none';
}

const NONE: ConverseFeatures = { tools: false, streamTools: false, forcedTool: 'none' };
const FULL: ConverseFeatures = { tools: true, streamTools: true, forcedTool: 'tool' };

const FAMILIES: { match: RegExp; features: ConverseFeatures }[] = [
  { match: /^anthropic\.claude-(3|sonnet-4|opus-4|haiku-4)/, features: FULL },
  { match: /^amazon\.nova-(micro|lite|pro|premier)/, features: FULL },
  { match: /^ai21\.jamba-1-5/, features: { tools: true, streamTools: true, forcedTool: 'none' } },
  { match: /^cohere\.command-r/, features: { tools: true, streamTools: false, forcedTool: 'none' } },
  { match: /^meta\.llama3-(1|3)-|^meta\.llama3-2-(11|90)b|^meta\.llama4-/, features: { tools: true, streamTools: false, forcedTool: 'none' } },
  { match: /^mistral\.mistral-large/, features: { tools: true, streamTools: false, forcedTool: 'any' } },
];

/**
 * The most output tokens a model writes in one call, by family, from the model providers' parameter
 * pages on Bedrock (Anthropic's max_tokens, Meta's max_gen_len, Mistral's and Cohere's max_tokens,
 * Titan's maxTokenCount, Nova's inferenceConfig.maxTokens). Bedrock's catalogue does not say it; a
 * family missing here is bounded by CHAT_MAX_OUTPUT_TOKENS alone (lib/calls/metered.ts).
 */
const MAX_OUTPUT_TOKENS: { match: RegExp; tokens: number }[] = [
  { match: /^anthropic\.claude-3-(haiku|sonnet|opus)-/, tokens: 4_096 },
  { match: /^anthropic\.claude-3-5-/, tokens: 8_192 },
  { match: /^anthropic\.claude-(3-7-sonnet|sonnet-4|haiku-4)/, tokens: 64_000 },
  { match: /^anthropic\.claude-opus-4/, tokens: 32_000 },
  { match: /^amazon\.nova-(micro|lite|pro)/, tokens: 5_000 },
  { match: /^amazon\.titan-text-(express|premier)/, tokens: 3_072 },
  { match: /^meta\.llama3/, tokens: 2_048 },
  { match: /^mistral\.(mistral-7b|mixtral-8x7b)/, tokens: 8_192 },
  { match: /^cohere\.command-r/, tokens: 4_000 },
];

/** A managed model's most output tokens in one call, where its family is known. */
export const managedMaxOutputTokens = (modelId: string): number | undefined =>
  MAX_OUTPUT_TOKENS.find((f) => f.match.test(baseModelId(modelId)))?.tokens;

/** A model id without a cross-region inference profile's prefix (us., eu., apac., global.). */
export const baseModelId = (modelId: string) => modelId.replace(/^(us|eu|apac|us-gov|ca|jp|au|global)\./, '');

export function converseFeatures(modelId: string): ConverseFeatures {
  const id = baseModelId(modelId);
  return FAMILIES.find((f) => f.match.test(id))?.features ?? NONE;
}

/**
 * Prompt caching on Bedrock, by model family, as AWS's "Prompt caching for faster model inference"
 * page lists it: the fewest tokens a checkpoint's prefix must hold (a checkpoint placed earlier is
 * ignored: nothing is written), the TTLs a checkpoint may ask for, and the request fields that may
 * carry a `cachePoint` (Nova caches no tools). At most four checkpoints a request, for every model.
 */
export interface CachingFacts {
  minTokens: number;
  ttls: readonly CacheTtl[];
  fields: readonly ('system' | 'messages' | 'tools')[];
}

const CLAUDE_FIELDS = ['system', 'messages', 'tools'] as const;
const FIVE_MINUTES = ['5m'] as const;
const ONE_HOUR_TOO = ['5m', '1h'] as const;

const CACHING: { match: RegExp; facts: CachingFacts }[] = [
  { match: /^anthropic\.claude-(haiku-4-5|opus-4-5|opus-4-6)/, facts: { minTokens: 4_096, ttls: ONE_HOUR_TOO, fields: CLAUDE_FIELDS } },
  { match: /^anthropic\.claude-sonnet-4-(5|6)/, facts: { minTokens: 1_024, ttls: ONE_HOUR_TOO, fields: CLAUDE_FIELDS } },
  { match: /^anthropic\.claude-(3-7-sonnet|sonnet-4|opus-4)/, facts: { minTokens: 1_024, ttls: FIVE_MINUTES, fields: CLAUDE_FIELDS } },
  { match: /^anthropic\.claude-3-5-haiku/, facts: { minTokens: 2_048, ttls: FIVE_MINUTES, fields: CLAUDE_FIELDS } },
  { match: /^amazon\.nova-(micro|lite|pro|premier|2-lite)/, facts: { minTokens: 1_000, ttls: FIVE_MINUTES, fields: ['system', 'messages'] } },
];

/** How a model caches prompts on Bedrock; undefined where it does not (checkpoints are then left out of the call). */
export function cachingOf(modelId: string): CachingFacts | undefined {
  const id = baseModelId(modelId);
  return CACHING.find((f) => f.match.test(id))?.facts;
}

/**
 * The processing tiers a model offers beyond Standard (`default`), as AWS's "Service tiers for
 * optimizing performance and cost" page lists the models that take Priority and Flex.
 */
const TIERED = /^openai\.gpt-oss-|^amazon\.nova-(pro|premier|2-lite)|^qwen\.|^deepseek\.v3/;

export function serviceTiersOf(modelId: string): readonly ServiceTier[] {
  return TIERED.test(baseModelId(modelId)) ? ['default', 'flex', 'priority'] : ['default'];
}

/**
 * How a model reasons on Bedrock (AWS's "Enhance model responses with model reasoning" and the
 * providers' parameter pages): `budget` takes a thinking budget (Claude 3.7 and 4.x), `adaptive` that
 * or adaptive thinking (Claude Opus 4.6, Sonnet 4.6), `effort` a reasoning effort (gpt-oss), `always`
 * reasons by itself and takes no setting (DeepSeek-R1). A family missing here does not reason.
 */
export type ReasoningStyle = 'budget' | 'adaptive' | 'effort' | 'always';

const REASONING: { match: RegExp; style: ReasoningStyle }[] = [
  { match: /^anthropic\.claude-(opus-4-6|sonnet-4-6)/, style: 'adaptive' },
  { match: /^anthropic\.claude-(3-7-sonnet|sonnet-4|opus-4|haiku-4-5)/, style: 'budget' },
  { match: /^openai\.gpt-oss-/, style: 'effort' },
  { match: /^deepseek\.r1/, style: 'always' },
];

export const managedReasoning = (modelId: string): ReasoningStyle | undefined => REASONING.find((f) => f.match.test(baseModelId(modelId)))?.style;

/**
 * The Anthropic betas Claude takes on Bedrock (the `anthropic_beta` model request field), as AWS's
 * Anthropic Claude Messages API page lists them; other betas (the first-party API's own, such as its
 * files or OAuth betas) are not Bedrock's and are dropped by the gateway.
 */
const CLAUDE_BETAS = [
  'interleaved-thinking-2025-05-14',
  'fine-grained-tool-streaming-2025-05-14',
  'token-efficient-tools-2025-02-19',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'computer-use-2025-01-24',
] as const;

export const managedBetas = (modelId: string): readonly string[] => (/^anthropic\.claude-/.test(baseModelId(modelId)) ? CLAUDE_BETAS : []);

/** Whether the model takes top_k on Converse (Claude, in its model request fields). */
export const managedTopK = (modelId: string): boolean => /^anthropic\.claude-/.test(baseModelId(modelId));

/**
 * The models that read documents in Converse (DocumentBlock: "Document chat" in AWS's "Supported models
 * and model features" table): Claude, Nova Lite, Pro and Premier (not Micro), Titan Text (not
 * Premier), Llama, Mistral, Cohere Command R and Jamba 1.5. The rest refuse a document block.
 */
const DOCUMENTS =
  /^anthropic\.claude-|^amazon\.nova-(lite|pro|premier)|^amazon\.titan-text-(express|lite)|^meta\.llama|^mistral\.|^cohere\.command-r|^ai21\.jamba-1-5/;

export const managedDocuments = (modelId: string): boolean => DOCUMENTS.test(baseModelId(modelId));

/** What the catalogue says of a model: its modalities and whether it streams. */
export interface ManagedModelFacts {
  modelId: string;
  inputModalities: string[];
  outputModalities: string[];
  responseStreamingSupported: boolean;
}

/** A managed model's capabilities: modalities and streaming from the catalogue, tool use from the family table. */
export function managedCapabilities(model: ManagedModelFacts): ModelCapabilities {
  const embeddings = model.outputModalities.includes('EMBEDDING');
  const chat = model.outputModalities.includes('TEXT') && !embeddings;
  const features = chat ? converseFeatures(model.modelId) : NONE;
  return {
    chat,
    stream: chat && model.responseStreamingSupported,
    tools: features.tools,
    jsonOutput: features.tools && features.forcedTool !== 'none',
    imageInput: chat && model.inputModalities.includes('IMAGE'),
    embeddings,
  };
}

/** The embedding bodies this service speaks (managed/embeddings.ts), by model family. */
export function embeddingFamily(modelId: string): 'titan-v2' | 'titan-v1' | 'cohere-v3' | 'cohere-v4' | undefined {
  const id = baseModelId(modelId);
  if (/^amazon\.titan-embed-text-v2/.test(id)) return 'titan-v2';
  if (/^amazon\.titan-embed-(text-v1|g1-text)/.test(id)) return 'titan-v1';
  if (/^cohere\.embed-(english|multilingual)-v3/.test(id)) return 'cohere-v3';
  if (/^cohere\.embed-v4/.test(id)) return 'cohere-v4';
  return undefined;
}

/**
 * Capabilities of a managed model known by its id alone (a resource tracked before capabilities were
 * stored): the family tables, and image input for the families that read images.
 */
export function managedCapabilitiesOfId(modelId: string): ModelCapabilities {
  const id = baseModelId(modelId);
  const embeddings = embeddingFamily(id) !== undefined || /^[a-z0-9]+\.[a-z0-9-]*embed/.test(id);
  const vision =
    /^anthropic\.claude-(3-(haiku|sonnet|opus)|3-5-sonnet|3-7|sonnet-4|opus-4|haiku-4)|^amazon\.nova-(lite|pro|premier)|^meta\.llama3-2-(11|90)b|^meta\.llama4-/.test(
      id,
    );
  return managedCapabilities({
    modelId: id,
    inputModalities: vision ? ['TEXT', 'IMAGE'] : ['TEXT'],
    outputModalities: [embeddings ? 'EMBEDDING' : 'TEXT'],
    responseStreamingSupported: !embeddings,
  });
}
