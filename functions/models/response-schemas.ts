// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/models/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { Billing, Lifecycle, Platform, Timestamp } from '../system/response-schemas';

/** Bedrock's modelLifecycle. `LEGACY`: the model still answers, but plan a move to an active one */
export const ModelLifecycle = Named(
  'ModelLifecycle',
  Type.Object(
    {
      status: Type.Unsafe<'ACTIVE' | 'LEGACY'>({ type: 'string', enum: ['ACTIVE', 'LEGACY'] }),
      legacyTime: Type.Optional(Type.String({ format: 'date-time' })),
      publicExtendedAccessTime: Type.Optional(Type.String({ format: 'date-time' })),
      endOfLifeTime: Type.Optional(Type.String({ format: 'date-time' })),
    },
    {
      description: `Bedrock's modelLifecycle. \`LEGACY\`: the model still answers, but plan a move to an active one
before \`endOfLifeTime\`; from \`publicExtendedAccessTime\` its provider may charge more. The times
are shown only where Bedrock gives them.
`,
      additionalProperties: false,
    },
  ),
);

export const ManagedModelEntry = Named(
  'ManagedModelEntry',
  Type.Object(
    {
      modelId: Type.String(),
      providerName: Type.String(),
      modelArn: Type.String(),
      inputModalities: Type.Array(Type.String(), { description: 'e.g. TEXT, IMAGE.' }),
      outputModalities: Type.Array(Type.String()),
      inferenceTypesSupported: Type.Array(Type.String(), { description: 'e.g. ON_DEMAND.' }),
      customization: Type.Array(Type.String(), { description: 'e.g. FINE_TUNING; may be empty.' }),
      modelLifecycle: Ref(ModelLifecycle),
      invocation: Type.Object(
        {
          onDemand: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
          profiles: Type.Array(
            Type.Object(
              {
                id: Type.String({ description: 'e.g. us.anthropic.claude-sonnet-4-5-20250929-v1:0.' }),
                arn: Type.String(),
                scope: Type.Unsafe<'geographic' | 'global'>({ type: 'string', enum: ['geographic', 'global'] }),
                regions: Type.Array(Type.String(), { description: 'Destination Regions, where Bedrock may run a call made through the profile.' }),
              },
              { additionalProperties: false },
            ),
          ),
          applicationProfile: Type.Boolean(),
        },
        {
          description: `How the model can be invoked in the service's Region, from ListFoundationModels and
ListInferenceProfiles: on demand by its base id (\`onDemand\`, null for a profile-only model,
whose base id Bedrock refuses), through each system-defined profile that serves it
(geographic \`us.\`/\`eu.\`/\`apac.\`… first, then \`global.\`, each with its destination Regions),
and whether an application inference profile can be made for it (it copies the on-demand
model or a system profile). These are the values \`inferenceProfile\` takes on
\`POST /api/deploy/managed\`.
`,
          additionalProperties: false,
        },
      ),
    },
    { additionalProperties: false },
  ),
);

export const DedicatedModelEntry = Named(
  'DedicatedModelEntry',
  Type.Object(
    {
      modelPackageArn: Type.String(),
      displayName: Type.String(),
      creationTime: Ref(Timestamp),
      modelApprovalStatus: Type.String(),
      inferenceContainers: Type.Array(
        Type.Object(
          { image: Type.String(), modelDataUrl: Type.String(), framework: Type.String(), frameworkVersion: Type.String() },
          { additionalProperties: false },
        ),
      ),
      supportedContentTypes: Type.Array(Type.String()),
      supportedResponseMIMETypes: Type.Array(Type.String()),
      supportedRealtimeInferenceInstanceTypes: Type.Array(Type.String()),
      supportedTransformInstanceTypes: Type.Array(Type.String()),
    },
    { additionalProperties: false },
  ),
);

export const HostedModelEntry = Named(
  'HostedModelEntry',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      provider: Type.Unsafe<'hosted'>({ const: 'hosted' }),
      tags: Type.Array(Type.String()),
      task: Type.String(),
    },
    { additionalProperties: false },
  ),
);

/** Model detail, the same shape for managed and hosted (spec 2.6). */
/** A processing tier's price lines in a model's detail. */
const TierPriceLines = Type.Object(
  {
    inputTokens: Type.String(),
    outputTokens: Type.String(),
    source: Type.Unsafe<'admin' | 'default'>({ type: 'string', enum: ['admin', 'default'] }),
  },
  { additionalProperties: false },
);

export const ModelInfo = Named(
  'ModelInfo',
  Type.Object(
    {
      modelId: Type.String(),
      modelName: Type.String(),
      providerName: Type.String(),
      modelArn: Type.String(),
      inputModalities: Type.Array(Type.String()),
      outputModalities: Type.Array(Type.String()),
      responseStreamingSupported: Type.Boolean(),
      customizationsSupported: Type.Array(Type.String(), { description: 'FINE_TUNING for managed, SYSTEM_PROMPT for hosted.' }),
      inferenceTypesSupported: Type.Array(Type.String()),
      modelLifecycle: Ref(ModelLifecycle),
      pricing: Type.Object(
        {
          inputTokens: Type.String({ description: 'Human-readable, e.g. "$0.00025 per 1K input tokens".' }),
          outputTokens: Type.String(),
          serviceTiers: Type.Optional(
            Type.Object(
              { flex: Type.Optional(TierPriceLines), priority: Type.Optional(TierPriceLines) },
              {
                description:
                  'A managed model’s Flex and Priority price lines (the tiers it offers, and any an admin priced); source admin is a price set with POST /api/pricing, default the working figure.',
                additionalProperties: false,
              },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    },
    { description: 'Model detail, the same shape for managed and hosted (spec 2.6).', additionalProperties: false },
  ),
);

/** This service's use of the model. */
export const ModelUsage = Named(
  'ModelUsage',
  Type.Object(
    {
      totalInvocations: Type.Integer({ minimum: 0 }),
      totalInputTokens: Type.Integer({ minimum: 0 }),
      totalOutputTokens: Type.Integer({ minimum: 0 }),
      estimatedCost: Type.Number({ description: 'USD.', minimum: 0 }),
    },
    { description: "This service's use of the model.", additionalProperties: false },
  ),
);

export const ModelDetailResponse = Named(
  'ModelDetailResponse',
  Type.Object(
    { success: Type.Unsafe<true>({ const: true }), modelInfo: Ref(ModelInfo), systemPrompt: Type.String(), usage: Ref(ModelUsage) },
    { additionalProperties: false },
  ),
);

export const PlatformSyncReport = Named(
  'PlatformSyncReport',
  OneOf([
    Type.Object(
      {
        status: Type.Unsafe<'refreshed'>({ const: 'refreshed' }),
        total: Type.Integer({ minimum: 0 }),
        added: Type.Integer({ minimum: 0 }),
        removed: Type.Integer({ minimum: 0 }),
        changed: Type.Integer({ minimum: 0 }),
        unchanged: Type.Integer({ minimum: 0 }),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { status: Type.Unsafe<'failed'>({ const: 'failed' }), error: Type.String(), details: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
  ]),
);

/** A platform as GET /api/platforms describes it (lib/platforms/registry.ts describePlatform). */
export const PlatformDescription = Named(
  'PlatformDescription',
  Type.Object(
    {
      id: Ref(Platform),
      label: Type.String({ description: 'Its name for people, such as Managed.', examples: ['Managed'] }),
      description: Type.String({ description: 'One sentence on what a resource there is and how it is paid for.' }),
      billing: Billing(`per_token: each call is priced from the price table's per-model token prices (price entries with modelId);
per_hour: the instances bill by the hour until deleted, priced per instance type (price entries with instanceType).
`),
      lifecycle: Lifecycle(
        "endpoint: the service runs infrastructure there, with a status of its own (a resource's lifecycle); access: the platform runs the model and a resource is access to it.",
      ),
      service_tiers: Type.Boolean({
        description: 'Whether its models have processing tiers priced apart (Flex, Priority): its price entries then take service_tiers.',
      }),
    },
    { additionalProperties: false },
  ),
);
