import { Type, type Static } from '@sinclair/typebox';
import { IdleTimeoutMinutes, MonthlyBudgetUsd, Region, Uuid, WithDefault } from '../../lib/http/schemas';
import { HOSTED_MODEL_ID, MANAGED_MODEL_ID } from '../../lib/catalogue/model-id';
import { traitsOf } from '../../lib/platforms/registry';
import { INSTANCE_TYPE } from '../../core/vocabulary';

// Each platform's naming rule (PlatformTraits.names), so a client generated from the document refuses
// what the service refuses.
const nameOf = (platform: 'managed' | 'dedicated' | 'hosted') => {
  const { pattern, rule } = traitsOf(platform).names;
  return Type.String({ minLength: 1, maxLength: 63, pattern: pattern.source, description: rule });
};
const EndpointName = nameOf('managed');
const HostedEndpointName = nameOf('hosted');
const DedicatedEndpointName = nameOf('dedicated');
const ManagedModelId = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: MANAGED_MODEL_ID.source,
  description: 'a managed model id such as anthropic.claude-3-haiku-20240307-v1:0',
});
const HostedModelId = Type.String({
  minLength: 1,
  maxLength: 302,
  pattern: HOSTED_MODEL_ID.source,
  description: 'a hosted model id such as meta/llama-3.1-8b-instruct',
});
const DryRun = Type.Boolean({ description: 'true returns the plan only' });

const InferenceProfile = Type.String({
  minLength: 1,
  maxLength: 250,
  pattern: '^(auto|none|application|[a-z-]+\\.[a-z0-9][a-z0-9.:-]*)$',
  description:
    'how calls reach the model: "auto" (on demand where offered, else the geographic profile of the service\'s Region), "none" (on demand only), a system profile id such as global.<modelId> or us.<modelId>, or "application" (an application inference profile created for the resource, with tags)',
});
// Bedrock's tag rules: up to 200 tags, keys 1-128 characters, values up to 256; the service adds its own.
const ProfileTags = Type.Record(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9 _.:/=+@-]+$' }), Type.String({ maxLength: 256 }), {
  maxProperties: 40,
  description: 'cost allocation tags of the application inference profile (inferenceProfile "application" only)',
});

export const DeployManagedBody = Type.Object(
  {
    modelId: ManagedModelId,
    endpointName: EndpointName,
    region: Type.Optional(Region),
    dryRun: WithDefault(DryRun, true),
    inferenceProfile: WithDefault(InferenceProfile, 'auto'),
    tags: Type.Optional(ProfileTags),
    team_id: Type.Optional({
      ...Uuid,
      description:
        "the team an application inference profile bills (its model-ops:team cost allocation tag): one the caller belongs to; by default the caller's team when they are in exactly one",
    }),
  },
  { additionalProperties: false },
);
export type DeployManagedBody = Static<typeof DeployManagedBody>;

export const DeployDedicatedBody = Type.Object(
  {
    endpointName: DedicatedEndpointName,
    instanceType: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: INSTANCE_TYPE.source,
      description: 'a SageMaker instance type such as ml.g5.xlarge',
    }),
    instanceCount: WithDefault(Type.Integer({ minimum: 1, maximum: 10, description: '1 to 10 instances; default 1' }), 1),
    modelPackageArn: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: '^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:([0-9]{12}|aws):(model-package|hub-content)/\\S+$',
        description: 'a model package ARN or a public-hub model ARN, as GET /api/models/dedicated lists them',
      }),
    ),
    // SageMaker's own patterns (CreateModel's Image, ModelDataUrl and ExecutionRoleArn), so that no
    // value the schema lets through is refused by the platform as malformed.
    inferenceImage: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, pattern: '^\\S+$', description: 'an inference container image URI, no white space' }),
    ),
    modelDataUrl: Type.Optional(
      Type.String({ maxLength: 1024, pattern: '^(s3|https)://[^/\\s]+/?\\S*$', description: 'an s3:// (or https://) URL of the model artifacts' }),
    ),
    executionRoleArn: Type.Optional(
      Type.String({ maxLength: 2048, pattern: '^arn:aws[a-z-]*:iam::[0-9]{12}:role/[A-Za-z0-9_+=,.@/-]+$', description: 'an IAM role ARN' }),
    ),
    /** Not in the spec: gated public-hub models need their licence accepted explicitly. */
    acceptEula: Type.Optional(Type.Boolean({ description: "true accepts a gated public model's licence" })),
    idleTimeoutMinutes: Type.Optional(IdleTimeoutMinutes),
    monthlyBudgetUsd: Type.Optional(MonthlyBudgetUsd),
    /** Not in the spec: an idempotency token, as AWS APIs take a ClientToken. */
    clientToken: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9_-]+$',
        description: "the client's id for this deploy: sent again after a timeout, the same answer",
      }),
    ),
    dryRun: WithDefault(DryRun, true),
  },
  {
    additionalProperties: false,
    // A schema-level rule TypeBox does not evaluate itself (tests/unit/checks.test.ts applies it).
    anyOf: [{ required: ['modelPackageArn'] }, { required: ['inferenceImage'] }],
  },
);
export type DeployDedicatedBody = Static<typeof DeployDedicatedBody>;

export const DeployHostedBody = Type.Object(
  {
    modelId: HostedModelId,
    /** Not in the spec: the tracked name, unique among hosted resources; derived from modelId when absent. */
    endpointName: Type.Optional(HostedEndpointName),
    dryRun: WithDefault(DryRun, false),
  },
  { additionalProperties: false },
);
export type DeployHostedBody = Static<typeof DeployHostedBody>;
