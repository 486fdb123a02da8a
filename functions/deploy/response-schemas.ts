// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/deploy/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { ResourceStatus, Uuid } from '../system/response-schemas';

/** The Bedrock inference profile a managed resource's calls go through: a system-defined */
export const InferenceProfile = Named(
  'InferenceProfile',
  Type.Object(
    {
      id: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      arn: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      type: Type.Unsafe<'SYSTEM_DEFINED' | 'APPLICATION'>({ enum: ['SYSTEM_DEFINED', 'APPLICATION'] }),
      regions: Type.Array(Type.String()),
      copyFrom: Type.Optional(Type.String()),
      tags: Type.Optional(Type.Unsafe({ type: 'object', additionalProperties: { type: 'string' } })),
    },
    {
      description: `The Bedrock inference profile a managed resource's calls go through: a system-defined
(cross-Region) profile, called by its id, or an application profile, called by its ARN.
\`regions\` are its destination Regions. In a plan, an application profile that does not exist
yet has \`id\` and \`arn\` null, and shows what it will copy (\`copyFrom\`) and its tags.
`,
      additionalProperties: false,
    },
  ),
);

/** Cost estimate of a pay-per-token model, with a reference workload. */
export const TokenEstimate = Named(
  'TokenEstimate',
  Type.Object(
    {
      pricing_model: Type.Unsafe<'token'>({ const: 'token' }),
      per_1k_input_tokens_usd: Type.Number({ minimum: 0 }),
      per_1k_output_tokens_usd: Type.Number({ minimum: 0 }),
      hourly_usd: Type.Unsafe<0>({ const: 0 }),
      monthly_usd: Type.Unsafe<0>({ const: 0 }),
      price_source: Type.String(),
      is_estimate: Type.Boolean(),
      example: Type.Object(
        {
          requests: Type.Integer(),
          input_tokens_per_request: Type.Integer(),
          output_tokens_per_request: Type.Integer(),
          cost_usd: Type.Number({ minimum: 0 }),
        },
        { additionalProperties: false },
      ),
      note: Type.String(),
    },
    { description: 'Cost estimate of a pay-per-token model, with a reference workload.', additionalProperties: false },
  ),
);

/** Cost estimate of a dedicated endpoint, billed per instance-hour until deleted. */
export const HourlyEstimate = Named(
  'HourlyEstimate',
  Type.Object(
    {
      pricing_model: Type.Unsafe<'hourly'>({ const: 'hourly' }),
      instance_type: Type.String(),
      instance_count: Type.Integer({ minimum: 1 }),
      hourly_usd_per_instance: Type.Number({ minimum: 0 }),
      hourly_usd: Type.Number({ minimum: 0 }),
      daily_usd: Type.Number({ minimum: 0 }),
      monthly_usd: Type.Number({ minimum: 0 }),
      note: Type.String(),
    },
    { description: 'Cost estimate of a dedicated endpoint, billed per instance-hour until deleted.', additionalProperties: false },
  ),
);

export const DeployManagedPlanResponse = Named(
  'DeployManagedPlanResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      dryRun: Type.Unsafe<true>({ const: true }),
      plan: Type.Object(
        {
          modelId: Type.String(),
          endpointName: Type.String(),
          region: Type.String(),
          modelDetails: Type.Object(
            {
              modelName: Type.String(),
              providerName: Type.String(),
              inputModalities: Type.Array(Type.String()),
              outputModalities: Type.Array(Type.String()),
              inferenceTypesSupported: Type.Array(Type.String()),
            },
            { additionalProperties: false },
          ),
          invokeEndpoint: Type.String({ format: 'uri' }),
          inferenceProfile: Type.Optional(
            OneOf([Ref(InferenceProfile), Type.Null()], {
              description:
                'The profile calls will go through (null: on demand by the base id); `pricing` is the price through it (global and geographic prices differ).',
            }),
          ),
          pricing: Type.Object(
            {
              note: Type.String(),
              billingModel: Type.String(),
              per_1k_input_tokens_usd: Type.Number({ minimum: 0 }),
              per_1k_output_tokens_usd: Type.Number({ minimum: 0 }),
            },
            { additionalProperties: false },
          ),
          estimatedCost: Ref(TokenEstimate),
          provisioning: Type.String(),
          warnings: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
      message: Type.String(),
    },
    { additionalProperties: false },
  ),
);

export const DeployManagedResponse = Named(
  'DeployManagedResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      message: Type.String(),
      endpoint: Type.String({ format: 'uri' }),
      modelId: Type.String(),
      inferenceProfile: Type.Optional(
        OneOf([Ref(InferenceProfile), Type.Null()], {
          description: 'The profile every call to the resource goes through (null: on demand by the base id).',
        }),
      ),
      region: Type.String(),
      id: Ref(Uuid, { description: "The tracked resource's id." }),
      endpointName: Type.String(),
      status: Type.Unsafe<'InService'>({ const: 'InService' }),
    },
    { additionalProperties: false },
  ),
);

export const DeployDedicatedPlanResponse = Named(
  'DeployDedicatedPlanResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      dryRun: Type.Unsafe<true>({ const: true }),
      plan: Type.Object(
        {
          endpointName: Type.String(),
          instanceType: Type.String(),
          instanceCount: Type.Integer({ minimum: 1 }),
          region: Type.String(),
          roleArn: Type.String(),
          vpc: Type.Object({ subnets: Type.Array(Type.String()), securityGroups: Type.Array(Type.String()) }, { additionalProperties: false }),
          model: Type.Object(
            {
              modelPackageArn: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
              inferenceImage: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
              modelDataUrl: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
            },
            { additionalProperties: false },
          ),
          modelPackage: OneOf(
            [
              Type.Null(),
              Type.Object(
                {
                  displayName: Type.String(),
                  modelApprovalStatus: Type.String(),
                  supportedRealtimeInferenceInstanceTypes: Type.Array(Type.String()),
                  supportedContentTypes: Type.Array(Type.String()),
                },
                { additionalProperties: false },
              ),
            ],
            { description: "The model package's catalogue facts; null for an image deploy." },
          ),
          endpoint: Type.String({ format: 'uri' }),
          steps: Type.Array(Type.String()),
          estimatedCost: Ref(HourlyEstimate),
          guardrails: Type.Object(
            {
              idleTimeoutMinutes: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
              monthlyBudgetUsd: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
              hourly_usd: Type.Number({ description: 'All instances together, USD an hour.', minimum: 0 }),
              budget_hours: Type.Unsafe<number | null>({
                description: 'Hours a month the budget buys at that price (one decimal); null without a budget.',
                type: ['number', 'null'],
                minimum: 0,
              }),
              effects: Type.Array(Type.String(), { description: 'What the guardrails will do, in words (or that there are none).' }),
            },
            {
              description: 'What the idle timeout and the budget will do, with the hourly price and how many hours the budget buys.',
              additionalProperties: false,
            },
          ),
          warnings: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
      message: Type.String(),
    },
    { additionalProperties: false },
  ),
);

export const DeployDedicatedResponse = Named(
  'DeployDedicatedResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      message: Type.String({ description: 'Endpoint creation started; poll the status endpoint until InService.' }),
      endpointName: Type.String(),
      endpoint: Type.String({ format: 'uri' }),
      id: Ref(Uuid, { description: "The tracked resource's id." }),
      status: Ref(ResourceStatus, { description: "Creating for a new deploy; the resource's current status for a repeat or a taken-over endpoint." }),
      instanceType: Type.String(),
      instanceCount: Type.Integer({ minimum: 1 }),
      region: Type.String(),
      guardrails: Type.Object(
        {
          idle_timeout_minutes: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
          monthly_budget_usd: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
        },
        { additionalProperties: false },
      ),
      repeated: Type.Optional(
        Type.Unsafe<true>({
          description:
            "true when this was the same deploy sent again (same clientToken); the answer is the first one's resource and nothing new was created.",
          const: true,
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const DeployHostedPlanResponse = Named(
  'DeployHostedPlanResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      provider: Type.Unsafe<'hosted'>({ const: 'hosted' }),
      modelId: Type.String(),
      endpoint: Type.String({ format: 'uri' }),
      dryRun: Type.Unsafe<true>({ const: true }),
      plan: Type.Object(
        {
          modelId: Type.String(),
          modelName: Type.String(),
          endpointName: Type.String(),
          endpoint: Type.String({ format: 'uri' }),
          task: Type.String(),
          pricing: Type.Object({ note: Type.String(), billingModel: Type.String() }, { additionalProperties: false }),
          estimatedCost: Ref(TokenEstimate),
          warnings: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
      message: Type.String(),
    },
    { additionalProperties: false },
  ),
);

export const DeployHostedResponse = Named(
  'DeployHostedResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      provider: Type.Unsafe<'hosted'>({ const: 'hosted' }),
      modelId: Type.String(),
      endpoint: Type.String({ format: 'uri' }),
      message: Type.String(),
      id: Ref(Uuid, { description: "The tracked resource's id." }),
      endpointName: Type.String(),
      status: Type.Unsafe<'InService'>({ const: 'InService' }),
      repeated: Type.Optional(
        Type.Unsafe<true>({
          description: 'true when this model was already registered under this name; the answer is that registration and nothing new was registered.',
          const: true,
        }),
      ),
    },
    { additionalProperties: false },
  ),
);
