import { Type } from '@sinclair/typebox';
import {
  AlertThresholds,
  NullableRpmLimit,
  NullableTpmLimit,
  NullableUsd,
  Pagination,
  RpmLimit,
  ServiceTierList,
  TpmLimit,
  Usd,
  Uuid,
} from '../../lib/http/schemas';

/**
 * A team's name: what people and sign-on groups call it (OIDC_TEAM_GROUPS_PREFIX + name), unique
 * whatever its case.
 */
export const TeamName = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9]([A-Za-z0-9 ._-]*[A-Za-z0-9])?$',
  description: '1 to 64 letters, digits, spaces, dots, dashes or underscores, starting and ending with a letter or digit; unique in any case',
});
const Budget = 'USD per calendar month, UTC';
const TeamTiers = ServiceTierList(
  "the processing tiers the team's calls may use: default (Standard), flex, priority (all when absent); every call counted in the team is held to it, whatever its key allows",
);
const TeamRole = Type.Union([Type.Literal('owner'), Type.Literal('member')], { description: 'owner (manages the members and keys) or member' });

export const CreateTeamBody = Type.Object(
  {
    name: TeamName,
    monthly_budget_usd: Type.Optional(Usd(1_000_000_000, Budget)),
    rpm_limit: Type.Optional(RpmLimit),
    tpm_limit: Type.Optional(TpmLimit),
    allowed_service_tiers: Type.Optional(TeamTiers),
  },
  { additionalProperties: false },
);

/** null removes a budget or a limit. */
export const UpdateTeamBody = Type.Object(
  {
    name: Type.Optional(TeamName),
    monthly_budget_usd: Type.Optional(NullableUsd(1_000_000_000, Budget)),
    rpm_limit: Type.Optional(NullableRpmLimit),
    tpm_limit: Type.Optional(NullableTpmLimit),
    allowed_service_tiers: Type.Optional(Type.Union([TeamTiers, Type.Null()])),
    alert_thresholds: Type.Optional(AlertThresholds),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ListTeamsQuery = Type.Object(
  {
    scope: Type.Optional(
      Type.Union([Type.Literal('user'), Type.Literal('all')], {
        description: "'user' (the caller's teams) or 'all' (admins); admins get all unless they ask for theirs",
      }),
    ),
    ...Pagination,
  },
  { additionalProperties: false },
);

export const TeamPath = Type.Object({ teamId: Uuid }, { additionalProperties: false });
export const MemberPath = Type.Object({ teamId: Uuid, userId: Uuid }, { additionalProperties: false });
export const ListMembersQuery = Type.Object(Pagination, { additionalProperties: false });

/**
 * Who joins (an admin's add) or is invited (an owner's invitation, with the role and budget they will
 * have if they accept): by id, or by username or e-mail; one of the two.
 */
export const AddMemberBody = Type.Object(
  {
    user_id: Type.Optional(Uuid),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'a username or an e-mail address' })),
    role: TeamRole,
    monthly_budget_usd: Type.Optional(Usd(1_000_000_000, Budget)),
  },
  {
    additionalProperties: false,
    // A schema-level rule TypeBox does not evaluate itself (tests/unit/checks.test.ts applies it).
    anyOf: [{ required: ['user_id'] }, { required: ['username'] }],
  },
);

export const UpdateMemberBody = Type.Object(
  {
    role: Type.Optional(TeamRole),
    monthly_budget_usd: Type.Optional(NullableUsd(1_000_000_000, Budget)),
    alert_thresholds: Type.Optional(AlertThresholds),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const InvitationPath = Type.Object({ teamId: Uuid, invitationId: Uuid }, { additionalProperties: false });
export const ListInvitationsQuery = Type.Object(Pagination, { additionalProperties: false });
