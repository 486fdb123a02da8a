// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/orphans/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { Orphan } from './response-schemas';
import { NextCursor, Resource, Timestamp, Uuid } from '../system/response-schemas';
import { OneOf, Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { AdoptOrphanBody, DeleteOrphanQuery, ListOrphansQuery, OrphanPath } from './schemas';

export const operations: Operations = {
  /** GET /api/admin/orphans */
  listOrphans: {
    tags: ['orphans'],
    summary: "Endpoints with this service's tags that no resource tracks",
    description: `Roles: admin, super_admin. What the reconciler found on the dedicated platform: endpoints
tagged with this service and stage (for example from a deploy whose record was lost) that no
tracked resource holds. They bill like any endpoint: \`hourly_cost_usd\` says how much. Adopt
or delete each. In endpoint-name order; \`lastReconciledAt\` is when the reconciler last ran.
`,
    parameters: new Parameters({ query: ListOrphansQuery }, [{ $ref: '#/components/parameters/Limit' }, { $ref: '#/components/parameters/Cursor' }]),
    responses: {
      '200': {
        description: 'One page of orphans.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                orphans: Type.Array(Ref(Orphan)),
                count: Type.Integer({ minimum: 0 }),
                nextCursor: Ref(NextCursor),
                lastReconciledAt: OneOf([Ref(Timestamp), Type.Null()], {
                  description: 'When the last reconciliation pass ran; null before the first.',
                }),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },

  /** POST /api/admin/orphans/{endpointName}/adopt */
  adoptOrphan: {
    tags: ['orphans'],
    summary: 'Track an orphan endpoint as a resource',
    description: `Roles: admin, super_admin. The endpoint becomes a tracked dedicated resource under its own
name (with the resource id its tags name, when that id is free), billed and idle-watched
from now, with the guardrails given; its tags are brought up to date. The platform is asked
again first: 404 when there is no such orphan or its endpoint is gone, 409 when it no longer
carries this service's tags or is tracked by now. Recorded in the audit log (\`orphan.adopt\`).
`,
    parameters: new Parameters({ path: OrphanPath }, [{ $ref: '#/components/parameters/OrphanEndpointName' }]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(AdoptOrphanBody, 'AdoptOrphanRequest', {
            '/properties/idleTimeoutMinutes': {
              description:
                'Stop the endpoint after this many minutes without invocations (CloudWatch AWS/SageMaker Invocations, which counts every caller, and chat turns through this service); 1 to 10080 (a week).',
            },
            '/properties/monthlyBudgetUsd': {
              description:
                "Stop the endpoint when the month's accrued cost (billable instance-hours x the hourly price) reaches this many USD; from 0.000000001 (the smallest amount the table holds exactly) to 1e9.",
            },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The new tracked resource.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), message: Type.String(), id: Ref(Uuid), resource: Ref(Resource) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 502, 503, 504),
    },
  },

  /** DELETE /api/admin/orphans/{endpointName} */
  deleteOrphan: {
    tags: ['orphans'],
    summary: 'Delete an orphan endpoint on the platform',
    description: `Roles: admin, super_admin. Deletes the endpoint, then its configuration and model, on the
dedicated platform, and the orphan record. \`confirm=true\` is required (400 without). The
platform is asked again first: 404 when there is no such orphan or its endpoint is gone, 409
when it no longer carries this service's tags, is tracked by now, or is Creating or
Updating. Recorded in the audit log (\`orphan.delete\`).
`,
    parameters: new Parameters({ query: DeleteOrphanQuery, path: OrphanPath }, [
      { $ref: '#/components/parameters/OrphanEndpointName' },
      { name: 'confirm', in: 'query', description: 'Must be true.' },
    ]),
    responses: {
      '200': {
        description: 'The deletion has started.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                message: Type.String(),
                endpointName: Type.String(),
                status: Type.Unsafe<'deleting'>({ const: 'deleting' }),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 502, 503, 504),
    },
  },
};
