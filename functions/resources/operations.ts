// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/resources/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { ControlResponse, Guardrails, ResourceAccess, ResourceStatusResponse } from './response-schemas';
import { NextCursor, Resource, Uuid } from '../system/response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { ControlBody, ListResourcesQuery, ResourceAccessBody, ResourcePath, UpdateResourceBody } from './schemas';

export const operations: Operations = {
  /** GET /api/resources */
  listResources: {
    tags: ['resources'],
    summary: 'Tracked resources, newest first',
    description:
      'Roles: user, admin, super_admin. The stored view (each status read refreshes one resource from its platform). Admins also see who may use each resource (`access`).',
    parameters: new Parameters({ query: ListResourcesQuery }, [
      { $ref: '#/components/parameters/Limit' },
      { $ref: '#/components/parameters/Cursor' },
      { name: 'type', in: 'query', description: 'Only resources of this platform.' },
      {
        name: 'status',
        in: 'query',
        description: 'Only resources in this status.',
        schema: {
          description:
            'Spec section 3: InService (operational), Creating, Updating, Deleting, Failed (operation failed), OutOfService (not operational).',
        },
      },
    ]),
    responses: {
      '200': {
        description: 'One page of resources.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                resources: Type.Array(Ref(Resource)),
                count: Type.Integer({ minimum: 0 }),
                nextCursor: Ref(NextCursor),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** PATCH /api/resources/{resourceId} */
  updateResource: {
    tags: ['resources'],
    summary: 'Change the guardrails of a dedicated resource',
    description: `Roles: admin, super_admin. Sets (a number) or clears (null) the idle timeout and the monthly
budget of a dedicated resource, and the budget's \`alert_thresholds\` (null: the default [0.8, 1]);
a field left out stays as it is. The reconciler applies them on its next pass (a budget already
spent stops the endpoint then; \`warnings\` says so), and each threshold the month to date has
reached alerts then, once per endpoint and month (scope kind \`endpoint\`). 400
for managed and hosted resources (they bill per token and cost nothing while idle) and for
an empty body; 404 when the resource is not tracked; 409 while it is being deleted. Recorded in the audit log (\`resource.guardrails\`).
`,
    parameters: new Parameters({ path: ResourcePath }, [{ $ref: '#/components/parameters/ResourceId' }]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(UpdateResourceBody, 'UpdateResourceRequest', {
            '': { description: 'A number sets a guardrail, null clears it, a field left out stays as it is; at least one field.' },
            '/properties/idleTimeoutMinutes/anyOf/0': {
              description:
                'Stop the endpoint after this many minutes without invocations (CloudWatch AWS/SageMaker Invocations, which counts every caller, and chat turns through this service); 1 to 10080 (a week).',
            },
            '/properties/monthlyBudgetUsd/anyOf/0': {
              description:
                "Stop the endpoint when the month's accrued cost (billable instance-hours x the hourly price) reaches this many USD; from 0.000000001 (the smallest amount the table holds exactly) to 1e9.",
            },
            '/properties/alert_thresholds/anyOf/0': { description: '1 to 5 distinct fractions of the budget, each above 0 and at most 1' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The guardrails as they are now.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                message: Type.String(),
                resourceId: Ref(Uuid),
                guardrails: Ref(Guardrails),
                warnings: Type.Optional(Type.Array(Type.String())),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },

  /** GET /api/resources/{resourceId}/status */
  resourceStatus: {
    tags: ['resources'],
    summary: 'Status, health, metrics and costs of a resource',
    description: `Roles: user, admin, super_admin. A dedicated resource is read from its platform first. 404
when the resource is not tracked or its deletion has completed. A dedicated resource that a
guardrail stopped answers 200 with status OutOfService and \`guardrails.stopped\` saying why;
one whose endpoint was deleted outside the service answers 200 with status OutOfService, the
reason in \`failure_reason\` and what to do in \`warnings\` (start creates it again, delete
removes it). Their hourly figures are 0 meanwhile. \`costs.month_to_date_usd\` is what it has cost this
month (billable instance-hours x the hourly price of one instance). Admins also see who may
use the resource (\`access\`, with the users' and teams' names).
`,
    parameters: new Parameters({ path: ResourcePath }, [{ $ref: '#/components/parameters/ResourceId' }]),
    responses: {
      '200': { description: 'The resource.', content: { 'application/json': { schema: Ref(ResourceStatusResponse) } } },
      ...errors('api', 400, 401, 404, 413, 415, 500, 502, 503, 504),
    },
  },

  /** PUT /api/resources/{resourceId}/access */
  setResourceAccess: {
    tags: ['resources'],
    summary: 'Set who may use a resource',
    description: `Roles: admin, super_admin. Replaces who besides admins may call the resource's model (session
chat and /v1): every user (\`everyone: true\`), or only the users listed and the members of the
teams listed. Admins and super_admins may always use every resource. A resource whose access
no admin has set follows its platform: managed and hosted are open to everyone (each call is
priced and charged to its caller), dedicated endpoints are for admins only (their calls cost
the caller nothing while the endpoint bills by the hour), and so is a new dedicated deploy
until this grants more. Takes effect on the next call (on /v1 within about a second: the gateway
reads the model's resource eventually consistent). 400 for a malformed or repeated id;
404 when the resource, or a user or team named, does not exist. Recorded in the audit log
(\`resource.access\`, with the ids).
`,
    parameters: new Parameters({ path: ResourcePath }, [{ $ref: '#/components/parameters/ResourceId' }]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(ResourceAccessBody, 'ResourceAccessRequest', {
            '': { description: 'Who besides admins may use the resource; replaces what was set.' },
            '/properties/everyone': { description: 'true: every user may use it; false: only admins and the users and teams listed' },
            '/properties/user_ids': { description: 'the users who may use the resource (up to 100, no repeats)' },
            '/properties/user_ids/items': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/team_ids': { description: "the teams' members who may use the resource (up to 100, no repeats)" },
            '/properties/team_ids/items': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The access as it is now.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), message: Type.String(), resourceId: Ref(Uuid), access: Ref(ResourceAccess) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** POST /api/resources/{resourceId}/control */
  resourceControl: {
    tags: ['resources'],
    summary: 'Start, stop, restart or delete a resource',
    description: `Roles: admin, super_admin. Returns at once; follow the operation by polling the status
endpoint. Managed and hosted resources support delete only (removed from tracking at once, status
\`deleting\`); dedicated resources support start, restart (status \`updating\`) and delete
(status \`deleting\`). 400 when delete lacks \`confirm: true\`, for start/stop/restart on managed
or hosted, and for stop on dedicated; 404 when the resource is not tracked (or its deletion
has completed); 409 while another operation is under way (an automatic stop by the reconciler
included: of a control call and the reconciler, exactly one wins).

A dedicated resource a guardrail stopped, or whose endpoint was deleted outside the service
(OutOfService, no endpoint, its configuration kept): start creates the endpoint again from
the kept configuration (status \`creating\`). Right after an automatic stop, while the stop's
deletion still runs on the platform, start is accepted all the same: the resource reads
Creating at once and the endpoint is created as soon as the deletion has finished (by the
next status read or reconciler pass). 409 while the monthly budget is spent, and when the
configuration is gone too (delete and deploy again). Delete removes it from tracking at once
with its kept configuration and model; restart is 409.
`,
    parameters: new Parameters({ path: ResourcePath }, [{ $ref: '#/components/parameters/ResourceId' }]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(ControlBody, 'ControlRequest', { '/properties/confirm': { description: 'Must be true for delete.' } }),
        },
      },
    },
    responses: {
      '200': { description: 'The operation was initiated.', content: { 'application/json': { schema: Ref(ControlResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 502, 503, 504),
    },
  },
};
