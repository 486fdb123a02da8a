import { Type, type Static } from '@sinclair/typebox';
import { IdleTimeoutMinutes, MonthlyBudgetUsd, Pagination } from '../../lib/http/schemas';

// Endpoint names are checked against SageMaker's rule in lib/deploy/names.ts, which says what is wrong.
export const OrphanPath = Type.Object(
  { endpointName: Type.String({ minLength: 1, maxLength: 63, description: 'the orphan endpoint name' }) },
  { additionalProperties: false },
);

export const ListOrphansQuery = Type.Object(Pagination, { additionalProperties: false });

export const AdoptOrphanBody = Type.Object(
  {
    idleTimeoutMinutes: Type.Optional(IdleTimeoutMinutes),
    monthlyBudgetUsd: Type.Optional(MonthlyBudgetUsd),
  },
  { additionalProperties: false },
);
export type AdoptOrphanBody = Static<typeof AdoptOrphanBody>;

export const DeleteOrphanQuery = Type.Object(
  { confirm: Type.Optional(Type.Boolean({ description: 'must be true: the endpoint is deleted on the platform' })) },
  { additionalProperties: false },
);
