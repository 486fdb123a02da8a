import { Type, type Static } from '@sinclair/typebox';
import { IdleTimeoutMinutes, MonthlyBudgetUsd, Region, WithDefault } from '../../lib/http/schemas';

// Names are checked against each platform's naming rule in lib/deploy/names.ts, which says exactly
// what is wrong; the schema only bounds them.
const EndpointName = Type.String({ minLength: 1, maxLength: 256, description: '1 to 63 letters, digits and hyphens' });
const ModelId = Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$', description: 'a model id' });
const DryRun = Type.Boolean({ description: 'true returns the plan only' });

export const DeployManagedBody = Type.Object(
  {
    modelId: ModelId,
    endpointName: EndpointName,
    region: Type.Optional(Region),
    dryRun: WithDefault(DryRun, true),
  },
  { additionalProperties: false },
);
export type DeployManagedBody = Static<typeof DeployManagedBody>;

export const DeployDedicatedBody = Type.Object(
  {
    endpointName: EndpointName,
    instanceType: Type.String({ minLength: 1, maxLength: 64, description: 'a SageMaker instance type such as ml.g5.xlarge' }),
    instanceCount: WithDefault(Type.Integer({ minimum: 1, maximum: 10, description: '1 to 10 instances; default 1' }), 1),
    modelPackageArn: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: '^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:([0-9]{12}|aws):(model-package|hub-content)/.+$',
        description: 'a model package ARN or a public-hub model ARN, as GET /api/models/dedicated lists them',
      }),
    ),
    inferenceImage: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'an inference container image URI' })),
    modelDataUrl: Type.Optional(Type.String({ maxLength: 1024, pattern: '^(s3|https)://.+$', description: 'an s3:// URL of the model artifacts' })),
    executionRoleArn: Type.Optional(
      Type.String({ maxLength: 2048, pattern: '^arn:aws[a-z-]*:iam::[0-9]{12}:role/.+$', description: 'an IAM role ARN' }),
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
  { additionalProperties: false },
);
export type DeployDedicatedBody = Static<typeof DeployDedicatedBody>;

export const DeployHostedBody = Type.Object(
  {
    modelId: ModelId,
    /** Not in the spec: the tracked name, unique among hosted resources; derived from modelId when absent. */
    endpointName: Type.Optional(EndpointName),
    dryRun: WithDefault(DryRun, false),
  },
  { additionalProperties: false },
);
export type DeployHostedBody = Static<typeof DeployHostedBody>;
