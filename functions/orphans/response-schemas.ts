// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/orphans/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { Timestamp, Uuid } from '../system/response-schemas';

export const Orphan = Named(
  'Orphan',
  Type.Object(
    {
      kind: Type.Unsafe<'endpoint' | 'inference_profile'>({
        description:
          'What was left behind: a dedicated endpoint, or a Bedrock application inference profile (its name is `endpoint_name`, its ARN `endpoint_arn`). A profile costs nothing itself; it can be deleted, not adopted.',
        type: 'string',
        enum: ['endpoint', 'inference_profile'],
      }),
      endpoint_name: Type.String(),
      endpoint_arn: Type.String(),
      status: Type.String({ description: "The platform's endpoint (or profile) status when the reconciler last looked." }),
      platform_created_at: Ref(Timestamp),
      found_at: Ref(Timestamp),
      resource_id: OneOf([Ref(Uuid), Type.Null()], { description: 'The resource its tags name (the deploy that created it), if any.' }),
      instance_type: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      instance_count: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
      hourly_cost_usd: Type.Unsafe<number | null>({
        description: 'What it bills an hour while it exists; null when its instance type has no price.',
        type: ['number', 'null'],
        minimum: 0,
      }),
      tags: Type.Optional(
        Type.Record(Type.String(), Type.String(), { description: "An inference profile's tags (the service's own, the team's and the deployer's)." }),
      ),
    },
    { additionalProperties: false },
  ),
);
