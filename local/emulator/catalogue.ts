/**
 * The shipped data: what a fresh account in one region would see. Names, ids, ARN shapes and prices
 * follow the real services so adapters can be written against the emulator and run unchanged in AWS.
 */

// Fixed dates keep every listing deterministic across runs.
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

// ---------------------------------------------------------------- Bedrock foundation models

/**
 * Where a cross-Region inference profile may send a request: its destination Regions, by the prefix
 * of its id. A geographic profile is offered only to source Regions inside its geography; the global
 * profile to every commercial source Region ("Supported Regions and models for inference profiles").
 */
export const PROFILE_GEOGRAPHIES = {
  us: { label: 'US', regions: ['us-east-1', 'us-east-2', 'us-west-2'] },
  eu: { label: 'EU', regions: ['eu-central-1', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-3'] },
  apac: { label: 'APAC', regions: ['ap-northeast-1', 'ap-northeast-2', 'ap-south-1', 'ap-southeast-1', 'ap-southeast-2'] },
  global: {
    label: 'Global',
    regions: [
      'us-east-1',
      'us-east-2',
      'us-west-2',
      'ca-central-1',
      'eu-central-1',
      'eu-north-1',
      'eu-west-1',
      'eu-west-3',
      'ap-northeast-1',
      'ap-south-1',
      'ap-southeast-2',
      'sa-east-1',
    ],
  },
} as const;

export type ProfileGeography = keyof typeof PROFILE_GEOGRAPHIES;

/** USD per 1k tokens. */
interface TokenPrices {
  input: number;
  output: number;
}

export interface FoundationModel {
  modelId: string;
  modelName: string;
  providerName: string;
  inputModalities: string[];
  outputModalities: string[];
  responseStreamingSupported: boolean;
  customizationsSupported: string[];
  /**
   * ListFoundationModels' words: `ON_DEMAND` (callable by its base id in this Region),
   * `INFERENCE_PROFILE` (callable only through a cross-Region profile), `PROVISIONED`.
   */
  inferenceTypesSupported: string[];
  /**
   * ListFoundationModels' modelLifecycle (the SDK's FoundationModelLifecycle): the times are Smithy
   * `date-time` timestamps, ISO 8601 strings on the wire that the SDK parses into Dates, each only
   * where AWS publishes it.
   */
  lifecycle: Lifecycle;
  /** Tokens: the context window, and the most one answer may hold (the model card's figures). */
  contextWindow: number;
  maxOutputTokens: number;
  /** The system-defined profiles that contain the model (each `<prefix>.<modelId>`). */
  profiles: ProfileGeography[];
  /** Per 1k tokens, USD: on demand, or through the global profile where that is the only way. */
  inputPrice: number;
  outputPrice: number;
  /**
   * Through a geographic profile, where AWS prices it apart (Claude 4.5 and later: 10 % above the
   * global price, which keeps the base price).
   */
  geographicPrice?: TokenPrices;
  /**
   * What Converse lets the model do beyond text, as AWS's "Supported models and model features" table
   * and the ToolChoice reference say: tool use, tool use while streaming, and the tool choices beyond
   * `auto` (`any`, `tool`: only Claude 3+ and Nova take `tool`). Absent: no tool use.
   */
  converse?: { tools: boolean; streamTools: boolean; toolChoice: ('auto' | 'any' | 'tool')[] };
  /** Converse takes document blocks ("Document chat" in the same table). Absent: it refuses them. */
  documents?: boolean;
  /** Embedding models: the InvokeModel body they take and the vector sizes they answer. */
  embedding?: { body: 'titan-v2' | 'cohere-v3' | 'cohere-v4'; dimensions: number[] };
  /**
   * Prompt caching, where the model has it (AWS's "Prompt caching for faster model inference"): the
   * fewest tokens a checkpoint's prefix must hold, the TTLs it takes, the fields that take a cachePoint.
   */
  caching?: { minTokens: number; ttls: ('5m' | '1h')[]; fields: ('system' | 'messages' | 'tools')[] };
  /** The processing tiers it offers (Converse serviceTier.type); absent: Standard (`default`) only. */
  serviceTiers?: ('default' | 'flex' | 'priority')[];
  /**
   * How the model reasons on Converse (AWS's "Enhance model responses with model reasoning"): a
   * thinking budget (Claude 3.7 and 4.x), that or adaptive thinking (Claude Opus 4.6, Sonnet 4.6), or
   * a reasoning effort (gpt-oss). Absent: it does not reason (reasoning.ts).
   */
  reasoning?: 'budget' | 'adaptive' | 'effort';
}

interface Lifecycle {
  status: 'ACTIVE' | 'LEGACY';
  startOfLifeTime?: string;
  legacyTime?: string;
  publicExtendedAccessTime?: string;
  endOfLifeTime?: string;
}

const ACTIVE: Lifecycle = { status: 'ACTIVE' };
/**
 * A LEGACY model whose dates we could not find published by AWS ("Model lifecycle (Legacy)",
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle-legacy.html, and the model cards):
 * the emulator invents none, as ListFoundationModels gives none where AWS has set none.
 */
const LEGACY: Lifecycle = { status: 'LEGACY' };
const ON_DEMAND = ['ON_DEMAND'];
const PROFILE_ONLY = ['INFERENCE_PROFILE'];

/** Cohere Embed v3 (English, multilingual): 1024 numbers a text, InvokeModel only. */
function cohereEmbed(modelId: string, modelName: string): FoundationModel {
  return {
    modelId,
    modelName,
    providerName: 'Cohere',
    inputModalities: ['TEXT'],
    outputModalities: ['EMBEDDING'],
    responseStreamingSupported: false,
    customizationsSupported: [],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: ACTIVE,
    contextWindow: 512,
    maxOutputTokens: 0,
    profiles: [],
    inputPrice: 0.0001,
    outputPrice: 0,
    embedding: { body: 'cohere-v3', dimensions: [1024] },
  };
}

const CLAUDE_TOOLS = { tools: true, streamTools: true, toolChoice: ['auto', 'any', 'tool'] } as FoundationModel['converse'];

/**
 * A current Claude: profile-only, geographic and global, 200k context, the geographic price 10 % up;
 * it caches prompts in its system, messages and tools for 5 minutes or an hour, from `minCacheTokens`.
 */
function claude(modelId: string, modelName: string, maxOutputTokens: number, price: TokenPrices, minCacheTokens: number): FoundationModel {
  const up = (usd: number) => Math.round(usd * 1.1 * 1e9) / 1e9;
  return {
    modelId,
    modelName,
    providerName: 'Anthropic',
    inputModalities: ['TEXT', 'IMAGE'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: [],
    inferenceTypesSupported: PROFILE_ONLY,
    lifecycle: ACTIVE,
    contextWindow: 200_000,
    maxOutputTokens,
    profiles: ['us', 'eu', 'apac', 'global'],
    inputPrice: price.input,
    outputPrice: price.output,
    geographicPrice: { input: up(price.input), output: up(price.output) },
    converse: CLAUDE_TOOLS,
    documents: true,
    caching: { minTokens: minCacheTokens, ttls: ['5m', '1h'], fields: ['system', 'messages', 'tools'] },
    reasoning: 'budget',
  };
}

export const FOUNDATION_MODELS: FoundationModel[] = [
  claude('anthropic.claude-sonnet-4-5-20250929-v1:0', 'Claude Sonnet 4.5', 64_000, { input: 0.003, output: 0.015 }, 1_024),
  claude('anthropic.claude-haiku-4-5-20251001-v1:0', 'Claude Haiku 4.5', 64_000, { input: 0.001, output: 0.005 }, 4_096),
  {
    modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
    modelName: 'Claude 3 Haiku',
    providerName: 'Anthropic',
    inputModalities: ['TEXT', 'IMAGE'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: [],
    inferenceTypesSupported: ON_DEMAND,
    // AWS's model card "Claude 3 Haiku" (https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-3-haiku.html):
    // launched March 13, 2024, "Model EOL date: September 10, 2026" under the lifecycle policy for models
    // launched before September 7, 2026 (model-lifecycle-legacy.html). It gives no Legacy or public
    // extended access date. Past that date it still answers in ca-central-1, eu-central-2 and sa-east-1,
    // and is Legacy in ap-northeast-2; elsewhere Bedrock refuses it as past its end of life. The emulator
    // keeps answering it, as those Regions do, so that a LEGACY on-demand model stays testable.
    lifecycle: { status: 'LEGACY', startOfLifeTime: '2024-03-13T00:00:00Z', endOfLifeTime: '2026-09-10T00:00:00Z' },
    contextWindow: 200_000,
    maxOutputTokens: 4_096,
    profiles: ['us', 'eu', 'apac'],
    inputPrice: 0.00025,
    outputPrice: 0.00125,
    converse: CLAUDE_TOOLS,
    documents: true,
  },
  {
    modelId: 'amazon.titan-text-express-v1',
    documents: true,
    modelName: 'Titan Text G1 - Express',
    providerName: 'Amazon',
    inputModalities: ['TEXT'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: ['FINE_TUNING', 'CONTINUED_PRE_TRAINING'],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: LEGACY,
    contextWindow: 8_192,
    maxOutputTokens: 8_192,
    profiles: [],
    inputPrice: 0.0002,
    outputPrice: 0.0006,
  },
  {
    // Both ways: on demand by its base id in the Region, and through the US, EU and APAC profiles.
    modelId: 'amazon.nova-lite-v1:0',
    modelName: 'Nova Lite',
    providerName: 'Amazon',
    inputModalities: ['TEXT', 'IMAGE', 'VIDEO'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: ['FINE_TUNING', 'DISTILLATION'],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: ACTIVE,
    contextWindow: 300_000,
    maxOutputTokens: 10_000,
    profiles: ['us', 'eu', 'apac'],
    inputPrice: 0.00006,
    outputPrice: 0.00024,
    converse: CLAUDE_TOOLS,
    documents: true,
    caching: { minTokens: 1_000, ttls: ['5m'], fields: ['system', 'messages'] },
  },
  {
    modelId: 'meta.llama4-maverick-17b-instruct-v1:0',
    documents: true,
    modelName: 'Llama 4 Maverick 17B Instruct',
    providerName: 'Meta',
    inputModalities: ['TEXT', 'IMAGE'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: [],
    inferenceTypesSupported: PROFILE_ONLY,
    lifecycle: ACTIVE,
    contextWindow: 1_000_000,
    maxOutputTokens: 8_192,
    profiles: ['us'],
    inputPrice: 0.00024,
    outputPrice: 0.00097,
    converse: { tools: true, streamTools: false, toolChoice: ['auto'] },
  },
  {
    modelId: 'openai.gpt-oss-120b-1:0',
    modelName: 'gpt-oss-120b',
    providerName: 'OpenAI',
    inputModalities: ['TEXT'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: [],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: ACTIVE,
    contextWindow: 128_000,
    maxOutputTokens: 128_000,
    profiles: [],
    inputPrice: 0.00015,
    outputPrice: 0.0006,
    serviceTiers: ['default', 'flex', 'priority'],
    reasoning: 'effort',
  },
  {
    modelId: 'meta.llama3-8b-instruct-v1:0',
    documents: true,
    modelName: 'Llama 3 8B Instruct',
    providerName: 'Meta',
    inputModalities: ['TEXT'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: [],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: LEGACY,
    contextWindow: 8_192,
    maxOutputTokens: 2_048,
    profiles: [],
    inputPrice: 0.0003,
    outputPrice: 0.0006,
  },
  {
    modelId: 'mistral.mistral-7b-instruct-v0:2',
    documents: true,
    modelName: 'Mistral 7B Instruct',
    providerName: 'Mistral AI',
    inputModalities: ['TEXT'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: [],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: ACTIVE,
    contextWindow: 32_000,
    maxOutputTokens: 8_192,
    profiles: [],
    inputPrice: 0.00015,
    outputPrice: 0.0002,
  },
  {
    modelId: 'cohere.command-r-v1:0',
    documents: true,
    modelName: 'Command R',
    providerName: 'Cohere',
    inputModalities: ['TEXT'],
    outputModalities: ['TEXT'],
    responseStreamingSupported: true,
    customizationsSupported: [],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: ACTIVE,
    contextWindow: 128_000,
    maxOutputTokens: 4_096,
    profiles: [],
    inputPrice: 0.0005,
    outputPrice: 0.0015,
    // Command R calls tools, but not while streaming, and takes no toolChoice beyond auto.
    converse: { tools: true, streamTools: false, toolChoice: ['auto'] },
  },
  {
    modelId: 'amazon.titan-embed-text-v2:0',
    modelName: 'Titan Text Embeddings V2',
    providerName: 'Amazon',
    inputModalities: ['TEXT'],
    outputModalities: ['EMBEDDING'],
    responseStreamingSupported: false,
    customizationsSupported: [],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: ACTIVE,
    contextWindow: 8_192,
    maxOutputTokens: 0,
    profiles: [],
    inputPrice: 0.00002,
    outputPrice: 0,
    embedding: { body: 'titan-v2', dimensions: [1024, 512, 256] },
  },
  {
    // Embed v4: text and images, 128k tokens a call, four vector sizes; on demand and through profiles.
    modelId: 'cohere.embed-v4:0',
    modelName: 'Embed v4',
    providerName: 'Cohere',
    inputModalities: ['TEXT', 'IMAGE'],
    outputModalities: ['EMBEDDING'],
    responseStreamingSupported: false,
    customizationsSupported: [],
    inferenceTypesSupported: ON_DEMAND,
    lifecycle: ACTIVE,
    contextWindow: 128_000,
    maxOutputTokens: 0,
    profiles: ['us', 'eu', 'apac'],
    inputPrice: 0.00012,
    outputPrice: 0,
    embedding: { body: 'cohere-v4', dimensions: [1536, 1024, 512, 256] },
  },
  cohereEmbed('cohere.embed-english-v3', 'Embed English'),
  cohereEmbed('cohere.embed-multilingual-v3', 'Embed Multilingual'),
];

// ---------------------------------------------------------------- SageMaker instances and prices

export interface InstanceType {
  instanceType: string;
  vCpu: number;
  memoryGiB: number;
  gpu: number;
  /** USD per hour, on-demand real-time hosting. */
  hourly: number;
}

export const SAGEMAKER_INSTANCES: InstanceType[] = [
  { instanceType: 'ml.t2.medium', vCpu: 2, memoryGiB: 4, gpu: 0, hourly: 0.056 },
  { instanceType: 'ml.m5.xlarge', vCpu: 4, memoryGiB: 16, gpu: 0, hourly: 0.23 },
  { instanceType: 'ml.g5.xlarge', vCpu: 4, memoryGiB: 16, gpu: 1, hourly: 1.408 },
  { instanceType: 'ml.g5.2xlarge', vCpu: 8, memoryGiB: 32, gpu: 1, hourly: 1.515 },
  { instanceType: 'ml.g5.4xlarge', vCpu: 16, memoryGiB: 64, gpu: 1, hourly: 2.03 },
  { instanceType: 'ml.g5.12xlarge', vCpu: 48, memoryGiB: 192, gpu: 4, hourly: 7.09 },
  { instanceType: 'ml.g5.48xlarge', vCpu: 192, memoryGiB: 768, gpu: 8, hourly: 20.36 },
  { instanceType: 'ml.p4d.24xlarge', vCpu: 96, memoryGiB: 1152, gpu: 8, hourly: 37.688 },
];

export const REGION_NAMES: Record<string, string> = {
  'us-east-1': 'US East (N. Virginia)',
  'us-east-2': 'US East (Ohio)',
  'us-west-2': 'US West (Oregon)',
  'eu-west-1': 'EU (Ireland)',
  'eu-central-1': 'EU (Frankfurt)',
  'ap-northeast-1': 'Asia Pacific (Tokyo)',
};

// ---------------------------------------------------------------- SageMaker public hub (JumpStart)

export const PUBLIC_HUB = 'SageMakerPublicHub';

export interface HubModel {
  name: string;
  version: string;
  displayName: string;
  description: string;
  keywords: string[];
  createdAt: number;
  /** Builds the HubContentDocument object for a region (images and buckets are regional). */
  document: (region: string) => Record<string, unknown>;
}

const DLC_ACCOUNT = '763104351884';
const tgiImage = (region: string) =>
  `${DLC_ACCOUNT}.dkr.ecr.${region}.amazonaws.com/huggingface-pytorch-tgi-inference:2.1.1-tgi2.0.0-gpu-py310-cu121-ubuntu22.04`;
const lmiImage = (region: string) => `${DLC_ACCOUNT}.dkr.ecr.${region}.amazonaws.com/djl-inference:0.28.0-lmi10.0.0-cu124`;
/** Hugging Face's Text Embeddings Inference container for SageMaker (its own ECR account). */
const teiImage = (region: string) => `683313688378.dkr.ecr.${region}.amazonaws.com/tei:2.0.1-tei1.4.0-gpu-py310-cu122-ubuntu22.04`;
const jumpstartBucket = (region: string) => `s3://jumpstart-cache-prod-${region}`;

interface HubDocInput {
  name: string;
  image: (region: string) => string;
  artifactPath: string;
  defaultInstance: string;
  instances: string[];
  license: string;
  gated?: boolean;
  minMemoryMb: number;
  accelerators: number;
  env: Record<string, string>;
  task?: string;
}

function hubDocument(d: HubDocInput) {
  return (region: string): Record<string, unknown> => ({
    Url: `https://huggingface.co/${d.artifactPath}`,
    MinSdkVersion: '2.225.0',
    TrainingSupported: false,
    IncrementalTrainingSupported: false,
    HostingEcrUri: d.image(region),
    HostingArtifactUri: `${jumpstartBucket(region)}/${d.gated ? 'gated/' : ''}${d.name.split('-').slice(0, 2).join('-')}/${d.name}/artifacts/inference-prepack/v1.0.0/`,
    HostingArtifactS3DataType: 'S3Prefix',
    HostingArtifactCompressionType: 'None',
    ...(d.gated ? { HostingEulaUri: `${jumpstartBucket(region)}/fmhMetadata/eula/${d.name}-eula.txt`, GatedBucket: true } : {}),
    InferenceEnvironmentVariables: Object.entries(d.env).map(([Name, Default]) => ({
      Name,
      Type: 'text',
      Default,
      Scope: 'container',
      RequiredForModelClass: true,
    })),
    DefaultInferenceInstanceType: d.defaultInstance,
    SupportedInferenceInstanceTypes: d.instances,
    HostingResourceRequirements: { MinMemoryMb: d.minMemoryMb, NumAccelerators: d.accelerators },
    InferenceEnableNetworkIsolation: true,
    ModelDataDownloadTimeout: 1200,
    ContainerStartupHealthCheckTimeout: 1200,
    Task: d.task ?? 'text-generation',
    Framework: 'huggingface',
    Datatype: 'llm',
    License: d.license,
  });
}

const tgiEnv = (maxInput: number, maxTotal: number, gpus: number) => ({
  SM_NUM_GPUS: String(gpus),
  MAX_INPUT_LENGTH: String(maxInput),
  MAX_TOTAL_TOKENS: String(maxTotal),
  MAX_BATCH_PREFILL_TOKENS: '8191',
  HF_MODEL_ID: '/opt/ml/model',
  SAGEMAKER_PROGRAM: 'inference.py',
  SAGEMAKER_CONTAINER_LOG_LEVEL: '20',
  ENDPOINT_SERVER_TIMEOUT: '3600',
  SAGEMAKER_MODEL_SERVER_WORKERS: '1',
  SAGEMAKER_ENV: '1',
  MODEL_CACHE_ROOT: '/opt/ml/model',
});

export const HUB_MODELS: HubModel[] = [
  {
    name: 'huggingface-llm-mistral-7b-instruct',
    version: '3.1.0',
    displayName: 'Mistral 7B Instruct',
    description: 'Mistral 7B Instruct is an instruction fine-tuned version of Mistral 7B for chat.',
    keywords: ['@task:text-generation', '@framework:huggingface', '@capability:inference'],
    createdAt: day('2024-06-11'),
    document: hubDocument({
      name: 'huggingface-llm-mistral-7b-instruct',
      image: tgiImage,
      artifactPath: 'mistralai/Mistral-7B-Instruct-v0.1',
      defaultInstance: 'ml.g5.2xlarge',
      instances: ['ml.g5.2xlarge', 'ml.g5.4xlarge', 'ml.g5.12xlarge', 'ml.p4d.24xlarge'],
      license: 'Apache 2.0',
      minMemoryMb: 16384,
      accelerators: 1,
      env: tgiEnv(4095, 4096, 1),
    }),
  },
  {
    name: 'meta-textgeneration-llama-3-8b-instruct',
    version: '2.6.0',
    displayName: 'Meta Llama 3 8B Instruct',
    description: 'Llama 3 8B instruction-tuned model optimised for dialogue use cases.',
    keywords: ['@task:text-generation', '@framework:djl', '@capability:inference', '@gated'],
    createdAt: day('2024-04-18'),
    document: hubDocument({
      name: 'meta-textgeneration-llama-3-8b-instruct',
      image: lmiImage,
      artifactPath: 'meta-llama/Meta-Llama-3-8B-Instruct',
      defaultInstance: 'ml.g5.2xlarge',
      instances: ['ml.g5.2xlarge', 'ml.g5.4xlarge', 'ml.g5.12xlarge', 'ml.p4d.24xlarge'],
      license: 'Llama 3 Community License',
      gated: true,
      minMemoryMb: 16384,
      accelerators: 1,
      env: { SAGEMAKER_PROGRAM: 'inference.py', OPTION_MAX_ROLLING_BATCH_SIZE: '64', OPTION_TENSOR_PARALLEL_DEGREE: '1' },
    }),
  },
  {
    name: 'meta-textgeneration-llama-3-70b-instruct',
    version: '2.6.0',
    displayName: 'Meta Llama 3 70B Instruct',
    description: 'Llama 3 70B instruction-tuned model optimised for dialogue use cases.',
    keywords: ['@task:text-generation', '@framework:djl', '@capability:inference', '@gated'],
    createdAt: day('2024-04-18'),
    document: hubDocument({
      name: 'meta-textgeneration-llama-3-70b-instruct',
      image: lmiImage,
      artifactPath: 'meta-llama/Meta-Llama-3-70B-Instruct',
      defaultInstance: 'ml.p4d.24xlarge',
      instances: ['ml.g5.48xlarge', 'ml.p4d.24xlarge'],
      license: 'Llama 3 Community License',
      gated: true,
      minMemoryMb: 393216,
      accelerators: 8,
      env: { SAGEMAKER_PROGRAM: 'inference.py', OPTION_MAX_ROLLING_BATCH_SIZE: '64', OPTION_TENSOR_PARALLEL_DEGREE: '8' },
    }),
  },
  {
    name: 'huggingface-llm-falcon-7b-instruct-bf16',
    version: '2.4.0',
    displayName: 'Falcon 7B Instruct BF16',
    description: 'Falcon-7B-Instruct is a 7B parameter causal decoder fine-tuned on chat and instruct datasets.',
    keywords: ['@task:text-generation', '@framework:huggingface', '@capability:inference'],
    createdAt: day('2023-06-08'),
    document: hubDocument({
      name: 'huggingface-llm-falcon-7b-instruct-bf16',
      image: tgiImage,
      artifactPath: 'tiiuae/falcon-7b-instruct',
      defaultInstance: 'ml.g5.2xlarge',
      instances: ['ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.g5.4xlarge', 'ml.g5.12xlarge'],
      license: 'Apache 2.0',
      minMemoryMb: 16384,
      accelerators: 1,
      env: tgiEnv(2047, 2048, 1),
    }),
  },
  {
    name: 'huggingface-llm-gemma-2b-instruct',
    version: '1.3.0',
    displayName: 'Gemma 2B Instruct',
    description: 'Gemma 2B Instruct is a lightweight instruction-tuned open model from Google.',
    keywords: ['@task:text-generation', '@framework:huggingface', '@capability:inference', '@gated'],
    createdAt: day('2024-02-21'),
    document: hubDocument({
      name: 'huggingface-llm-gemma-2b-instruct',
      image: tgiImage,
      artifactPath: 'google/gemma-2b-it',
      defaultInstance: 'ml.g5.xlarge',
      instances: ['ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.g5.4xlarge', 'ml.g5.12xlarge'],
      license: 'Gemma Terms of Use',
      gated: true,
      minMemoryMb: 8192,
      accelerators: 1,
      env: tgiEnv(8191, 8192, 1),
    }),
  },
  {
    name: 'huggingface-llm-phi-3-mini-4k-instruct',
    version: '1.2.0',
    displayName: 'Phi-3 Mini 4K Instruct',
    description: 'Phi-3 Mini is a 3.8B parameter lightweight open model from Microsoft with a 4K context.',
    keywords: ['@task:text-generation', '@framework:huggingface', '@capability:inference'],
    createdAt: day('2024-05-02'),
    document: hubDocument({
      name: 'huggingface-llm-phi-3-mini-4k-instruct',
      image: tgiImage,
      artifactPath: 'microsoft/Phi-3-mini-4k-instruct',
      defaultInstance: 'ml.g5.xlarge',
      instances: ['ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.g5.12xlarge'],
      license: 'MIT',
      minMemoryMb: 8192,
      accelerators: 1,
      env: tgiEnv(4095, 4096, 1),
    }),
  },
  {
    name: 'meta-vlm-llama-3-2-11b-vision-instruct',
    version: '1.1.0',
    displayName: 'Meta Llama 3.2 11B Vision Instruct',
    description: 'Llama 3.2 11B Vision: an instruction-tuned model that reads images as well as text.',
    keywords: ['@task:text-generation', '@framework:djl', '@capability:inference', '@gated'],
    createdAt: day('2024-09-25'),
    document: hubDocument({
      name: 'meta-vlm-llama-3-2-11b-vision-instruct',
      image: lmiImage,
      artifactPath: 'meta-llama/Llama-3.2-11B-Vision-Instruct',
      defaultInstance: 'ml.g5.12xlarge',
      instances: ['ml.g5.12xlarge', 'ml.g5.48xlarge', 'ml.p4d.24xlarge'],
      license: 'Llama 3.2 Community License',
      gated: true,
      minMemoryMb: 98304,
      accelerators: 4,
      env: { SAGEMAKER_PROGRAM: 'inference.py', OPTION_MAX_ROLLING_BATCH_SIZE: '16', OPTION_TENSOR_PARALLEL_DEGREE: '4' },
    }),
  },
  {
    name: 'huggingface-sentencesimilarity-bge-large-en-v1-5',
    version: '2.0.0',
    displayName: 'BGE Large EN v1.5',
    description: 'BAAI general embedding (large, English): text to 1024-dimensional vectors for retrieval, served by Text Embeddings Inference.',
    keywords: ['@task:sentence-similarity', '@framework:huggingface', '@capability:inference'],
    createdAt: day('2024-03-12'),
    document: hubDocument({
      name: 'huggingface-sentencesimilarity-bge-large-en-v1-5',
      image: teiImage,
      artifactPath: 'BAAI/bge-large-en-v1.5',
      defaultInstance: 'ml.g5.xlarge',
      instances: ['ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.m5.xlarge'],
      license: 'MIT',
      minMemoryMb: 4096,
      accelerators: 1,
      env: { HF_MODEL_ID: '/opt/ml/model', MAX_CLIENT_BATCH_SIZE: '32' },
      task: 'sentence-similarity',
    }),
  },
];

// ---------------------------------------------------------------- Account model packages

export interface ModelPackage {
  /** Versioned packages belong to a group; the one unversioned package exists because
   * ListModelPackages lists only unversioned packages unless asked otherwise. */
  group?: string;
  version?: number;
  name: string;
  description: string;
  approval?: 'Approved' | 'PendingManualApproval' | 'Rejected';
  createdAt: number;
  container: (region: string, account: string) => Record<string, unknown>;
  contentTypes: string[];
  responseTypes: string[];
  realtimeInstances: string[];
  transformInstances: string[];
}

const artifactBucket = (account: string) => `s3://model-ops-artifacts-${account}`;

export const MODEL_PACKAGES: ModelPackage[] = [
  {
    group: 'llm-support-bot',
    version: 1,
    name: 'llm-support-bot',
    description: 'Support assistant fine-tuned from Mistral 7B Instruct on the help-centre corpus.',
    approval: 'Approved',
    createdAt: day('2024-07-02'),
    container: (region, account) => ({
      Image: tgiImage(region),
      ModelDataUrl: `${artifactBucket(account)}/llm-support-bot/v1/model.tar.gz`,
      Framework: 'PYTORCH',
      FrameworkVersion: '2.1.1',
      Environment: { HF_MODEL_ID: '/opt/ml/model', SM_NUM_GPUS: '1', MAX_INPUT_LENGTH: '4095', MAX_TOTAL_TOKENS: '4096' },
    }),
    contentTypes: ['application/json'],
    responseTypes: ['application/json'],
    realtimeInstances: ['ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.g5.12xlarge'],
    transformInstances: ['ml.g5.2xlarge'],
  },
  {
    group: 'llm-support-bot',
    version: 2,
    name: 'llm-support-bot',
    description: 'Support assistant v2: retrained with the Q3 tickets; awaiting evaluation sign-off.',
    approval: 'PendingManualApproval',
    createdAt: day('2024-09-15'),
    container: (region, account) => ({
      Image: tgiImage(region),
      ModelDataUrl: `${artifactBucket(account)}/llm-support-bot/v2/model.tar.gz`,
      Framework: 'PYTORCH',
      FrameworkVersion: '2.1.1',
      Environment: { HF_MODEL_ID: '/opt/ml/model', SM_NUM_GPUS: '1', MAX_INPUT_LENGTH: '4095', MAX_TOTAL_TOKENS: '4096' },
    }),
    contentTypes: ['application/json'],
    responseTypes: ['application/json'],
    realtimeInstances: ['ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.g5.12xlarge', 'ml.p4d.24xlarge'],
    transformInstances: ['ml.g5.2xlarge'],
  },
  {
    group: 'fraud-detector-xgboost',
    version: 3,
    name: 'fraud-detector-xgboost',
    description: 'Card-fraud classifier (XGBoost) scoring CSV feature rows.',
    approval: 'Approved',
    createdAt: day('2024-03-20'),
    container: (region, account) => ({
      Image: `683313688378.dkr.ecr.${region}.amazonaws.com/sagemaker-xgboost:1.7-1`,
      ModelDataUrl: `${artifactBucket(account)}/fraud-detector-xgboost/v3/model.tar.gz`,
      Framework: 'XGBOOST',
      FrameworkVersion: '1.7-1',
    }),
    contentTypes: ['text/csv'],
    responseTypes: ['text/csv'],
    realtimeInstances: ['ml.m5.xlarge', 'ml.t2.medium'],
    transformInstances: ['ml.m5.xlarge'],
  },
  {
    name: 'legacy-sentiment-classifier',
    description: 'Unversioned sentiment classifier registered before model groups were adopted.',
    createdAt: day('2023-01-10'),
    container: (region, account) => ({
      Image: `${DLC_ACCOUNT}.dkr.ecr.${region}.amazonaws.com/huggingface-pytorch-inference:2.1.0-transformers4.37.0-cpu-py310-ubuntu22.04`,
      ModelDataUrl: `${artifactBucket(account)}/legacy-sentiment-classifier/model.tar.gz`,
      Framework: 'PYTORCH',
      FrameworkVersion: '2.1.0',
    }),
    contentTypes: ['application/json'],
    responseTypes: ['application/json'],
    realtimeInstances: ['ml.m5.xlarge', 'ml.t2.medium'],
    transformInstances: ['ml.m5.xlarge'],
  },
];

// ---------------------------------------------------------------- Hosted (OpenAI-compatible) models

export interface HostedModel {
  id: string;
  ownedBy: string;
  /** Reads images (OpenAI `image_url` parts). */
  vision?: boolean;
  /** An embedding model (POST /v1/embeddings) of this many dimensions, instead of a chat model. */
  embeddingDimensions?: number;
}

export const HOSTED_MODELS: HostedModel[] = [
  { id: 'meta/llama-3.1-8b-instruct', ownedBy: 'meta' },
  { id: 'meta/llama-3.1-70b-instruct', ownedBy: 'meta' },
  { id: 'mistralai/mixtral-8x7b-instruct-v0.1', ownedBy: 'mistralai' },
  { id: 'google/gemma-2-9b-it', ownedBy: 'google' },
  { id: 'nvidia/nemotron-4-340b-instruct', ownedBy: 'nvidia' },
  { id: 'microsoft/phi-3-mini-128k-instruct', ownedBy: 'microsoft' },
  { id: 'meta/llama-3.2-11b-vision-instruct', ownedBy: 'meta', vision: true },
  { id: 'baai/bge-m3', ownedBy: 'baai', embeddingDimensions: 1024 },
];

/** The NVIDIA API reports one fixed `created` for every catalogue model. */
export const HOSTED_MODEL_CREATED = 735790403;
