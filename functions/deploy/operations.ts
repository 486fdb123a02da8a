// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/deploy/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */

import {
  DeployDedicatedPlanResponse,
  DeployDedicatedResponse,
  DeployHostedPlanResponse,
  DeployHostedResponse,
  DeployManagedPlanResponse,
  DeployManagedResponse,
} from './response-schemas';
import { OneOf, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { DeployDedicatedBody, DeployHostedBody, DeployManagedBody } from './schemas';

export const operations: Operations = {
  /** POST /api/deploy/managed */
  deployManaged: {
    tags: ['deploy'],
    summary: 'Configure access to a managed model (nothing is provisioned)',
    description: `Roles: admin, super_admin. A dry run (the default) returns the plan only. A real call
registers a tracked resource (status InService) usable for chat at once. Endpoint names are
unique per platform (409).
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(DeployManagedBody, 'DeployManagedRequest', {
            '/properties/modelId': { description: 'A managed model id such as anthropic.claude-3-haiku-20240307-v1:0.' },
            '/properties/endpointName': {
              description: 'The name of a managed or hosted resource: 1 to 63 letters, digits and hyphens; unique per platform (case-insensitive).',
            },
            '/properties/region': { description: 'An AWS region such as us-east-1.' },
            '/properties/dryRun': { description: 'true (the default) returns the plan only.' },
            '/properties/inferenceProfile': {
              description: `How calls reach the model on Bedrock. \`auto\` (the default): by its base id where the model
is offered on demand, else through the geographic profile of the service's Region (the
global one where it has no geographic one). \`none\`: on demand only (400 for a model offered
only through profiles). A system-defined profile id of the model, such as
\`us.<modelId>\` or \`global.<modelId>\` (400 for one that does not serve the model here).
\`application\`: an application inference profile created for the resource
(CreateInferenceProfile, copying the geographic profile, or the foundation model where it is
offered on demand), tagged \`managed-by\`, \`model-ops:stage\`, \`model-ops:endpoint\`,
\`model-ops:resource-id\`, the owning team (\`model-ops:team\`, \`model-ops:team-id\`; see
\`team_id\`) and the caller's \`tags\`; deleting the resource deletes it.
`,
            },
            '/properties/tags': {
              description:
                'Cost allocation tags of the application inference profile (with `inferenceProfile` `application` only; 400 otherwise): up to 40, keys of 1-128 letters, digits, spaces and `_.:/=+@-`, string values up to 256 characters.',
            },
            '/properties/team_id': {
              description: `With \`inferenceProfile\` \`application\` only (400 otherwise): the team whose Bedrock spend the
profile is, tagged \`model-ops:team\` (its name) and \`model-ops:team-id\`. It must be a team the
caller belongs to (400 otherwise, admins included). Left out: the caller's team when they are
in exactly one, no team tag when they are in none, and a 400 listing their teams when they
are in several.
`,
            },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The plan (dry run) or the configured access.',
        content: { 'application/json': { schema: OneOf([Ref(DeployManagedPlanResponse), Ref(DeployManagedResponse)]) } },
      },
      ...errors('api', 400, 401, 403, 409, 413, 415, 500, 502, 503, 504),
    },
  },

  /** POST /api/deploy/dedicated */
  deployDedicated: {
    tags: ['deploy'],
    summary: 'Provision a dedicated endpoint',
    description: `Roles: admin, super_admin. A dry run (the default) returns the plan only. A real deploy
starts endpoint creation and returns at once; the resource is Creating for as long as the
platform takes (SageMaker: 5-10 minutes; the answer's message says how long): poll GET
/api/resources/{resourceId}/status until InService. Either \`modelPackageArn\` or
\`inferenceImage\` is required. 400 when the network configuration (subnets, security groups)
is not set; 500 when the platform refuses the deployment.

Guardrails: \`idleTimeoutMinutes\` stops the endpoint (OutOfService: the platform endpoint is
deleted so it costs nothing, its model and configuration are kept, action start brings it
back) after that many minutes without an invocation; \`monthlyBudgetUsd\` does the same when
the month's accrued cost reaches it. The plan states both and what they buy. Change them
later with PATCH /api/resources/{resourceId}.

Crash-safe: the same deploy sent again with the same \`clientToken\` (same caller, name, model
and capacity; its first answer lost) answers with the first one's resource (\`repeated:
true\`) and creates nothing; without a token a taken name stays a 409, and never a second
endpoint.
An endpoint of that name that this service created but no longer tracks (an earlier attempt
whose record was lost) is taken over instead of a second one being created. Every endpoint
created is tagged with the service, the stage and the resource id.
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(DeployDedicatedBody, 'DeployDedicatedRequest', {
            '': { description: 'Either `modelPackageArn` or `inferenceImage` is required (both may be given).' },
            '/properties/endpointName': {
              description:
                "The name of a dedicated endpoint, SageMaker's naming rule: 1 to 63 letters, digits and hyphens, starting and ending with a letter or digit; unique per platform (case-insensitive).",
            },
            '/properties/instanceType': { description: 'A priced instance type such as ml.g5.xlarge, supported by the model package.' },
            '/properties/instanceCount': { description: '1 to 10 instances; default 1.' },
            '/properties/modelPackageArn': { description: 'A model package ARN or a public-hub model ARN, as GET /api/models/dedicated lists them.' },
            '/properties/inferenceImage': { description: 'An inference container image URI (instead of a model package), no white space.' },
            '/properties/modelDataUrl': { description: 'An s3:// (or https://) URL of the model artifacts.' },
            '/properties/executionRoleArn': { description: 'Defaults to the configured DEDICATED_EXECUTION_ROLE_ARN.' },
            '/properties/acceptEula': { description: "true accepts a gated public model's licence." },
            '/properties/idleTimeoutMinutes': {
              description:
                'Stop the endpoint after this many minutes without invocations (CloudWatch AWS/SageMaker Invocations, which counts every caller, and chat turns through this service); 1 to 10080 (a week).',
            },
            '/properties/monthlyBudgetUsd': {
              description:
                "Stop the endpoint when the month's accrued cost (billable instance-hours x the hourly price) reaches this many USD; from 0.000000001 (the smallest amount the table holds exactly) to 1e9.",
            },
            '/properties/clientToken': {
              description:
                "The client's id for this deploy (an idempotency token, as AWS's ClientToken). The same deploy sent again with the same token, by the same caller, answers with the first one's resource (`repeated: true`) instead of 409.",
            },
            '/properties/dryRun': { description: 'true (the default) returns the plan only.' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The plan (dry run) or the started deployment.',
        content: { 'application/json': { schema: OneOf([Ref(DeployDedicatedPlanResponse), Ref(DeployDedicatedResponse)]) } },
      },
      ...errors('api', 400, 401, 403, 409, 413, 415, 500, 502, 503, 504),
    },
  },

  /** POST /api/deploy/hosted */
  deployHosted: {
    tags: ['deploy'],
    summary: 'Check connectivity to a hosted model and register it',
    description: `Roles: admin, super_admin. A connectivity check against the hosted API; nothing is created
there. Unless \`dryRun\` is true (default false) the model is registered as a tracked resource.
Registering is idempotent: the same model again under the same name (given, or derived from
\`modelId\`) answers 200 with the existing registration and \`repeated: true\`, and registers
nothing new. 409 only when the name is already registered for another hosted model (choose
another \`endpointName\`). 400 when the hosted API key is not configured; 502 when the upstream
check fails (the message carries the upstream status).
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(DeployHostedBody, 'DeployHostedRequest', {
            '/properties/modelId': {
              description: 'A hosted model id such as meta/llama-3.1-8b-instruct (a namespace, a slash, a name; at most two slashes).',
            },
            '/properties/endpointName': { description: 'The tracked name, unique among hosted resources; derived from modelId when absent.' },
            '/properties/dryRun': { description: 'true checks connectivity without registering; default false.' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The check passed; the plan (dry run) or the registered resource.',
        content: { 'application/json': { schema: OneOf([Ref(DeployHostedPlanResponse), Ref(DeployHostedResponse)]) } },
      },
      ...errors('api', 400, 401, 403, 409, 413, 415, 500, 502, 503),
    },
  },
};
