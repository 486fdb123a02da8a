import { Type, type Static } from '@sinclair/typebox';
import { AlertThresholds, IdleTimeoutMinutes, MonthlyBudgetUsd, Pagination, Uuid, WithDefault } from '../../lib/http/schemas';
import { SPEC_STATUSES } from '../../lib/resources/lifecycle';

export const ResourcePath = Type.Object({ resourceId: Uuid }, { additionalProperties: false });

export const ControlBody = Type.Object(
  {
    action: Type.Union([Type.Literal('start'), Type.Literal('stop'), Type.Literal('restart'), Type.Literal('delete')], {
      description: 'start, stop, restart or delete',
    }),
    confirm: Type.Optional(Type.Boolean({ description: 'must be true for delete' })),
  },
  { additionalProperties: false },
);
export type ControlBody = Static<typeof ControlBody>;

export const ListResourcesQuery = Type.Object(
  {
    ...Pagination,
    type: Type.Optional(
      Type.Union([Type.Literal('managed'), Type.Literal('dedicated'), Type.Literal('hosted')], { description: 'managed, dedicated or hosted' }),
    ),
    // The resource states, from the one list of them.
    status: Type.Optional(
      Type.Union(
        SPEC_STATUSES.map((s) => Type.Literal(s)),
        { description: `${SPEC_STATUSES.slice(0, -1).join(', ')} or ${SPEC_STATUSES.at(-1)}` },
      ),
    ),
  },
  { additionalProperties: false },
);

/**
 * PATCH /api/resources/{resourceId}: a number sets a guardrail, null clears it, absent leaves it.
 * `alert_thresholds` is spelt as on every other budget's PATCH, so one name sets them everywhere.
 */
export const UpdateResourceBody = Type.Object(
  {
    idleTimeoutMinutes: Type.Optional(Type.Union([IdleTimeoutMinutes, Type.Null()], { description: 'minutes (1 to 10080), or null to clear' })),
    monthlyBudgetUsd: Type.Optional(Type.Union([MonthlyBudgetUsd, Type.Null()], { description: 'USD (more than 0), or null to clear' })),
    alert_thresholds: Type.Optional(AlertThresholds),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateResourceBody = Static<typeof UpdateResourceBody>;

const AccessIds = (what: string) =>
  WithDefault(
    Type.Array(Uuid, { maxItems: 100, uniqueItems: true, description: `the ${what} who may use the resource (up to 100, no repeats)` }),
    [],
  );

/** PUT /api/resources/{resourceId}/access: who besides admins may call the resource's model (replaces what was set). */
export const ResourceAccessBody = Type.Object(
  {
    everyone: Type.Boolean({ description: 'true: every user may use it; false: only admins and the users and teams listed' }),
    user_ids: AccessIds('users'),
    team_ids: AccessIds("teams' members"),
  },
  { additionalProperties: false },
);
export type ResourceAccessBody = Static<typeof ResourceAccessBody>;
