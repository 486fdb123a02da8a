// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/models/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { Timestamp } from '../system/response-schemas';

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
      modelLifecycle: Type.Object({ status: Type.String({ description: 'e.g. ACTIVE.' }) }, { additionalProperties: false }),
      pricing: Type.Object(
        { inputTokens: Type.String({ description: 'Human-readable, e.g. "$0.00025 per 1K input tokens".' }), outputTokens: Type.String() },
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
