// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/teams/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { BudgetAlertThresholds, Timestamp, Uuid } from '../system/response-schemas';

/** `owner` (manages the team's members and keys) or `member`. */
export const TeamRole = Named(
  'TeamRole',
  Type.Unsafe<'owner' | 'member'>({
    description: "`owner` (manages the team's members and keys) or `member`.",
    type: 'string',
    enum: ['owner', 'member'],
  }),
);

/** Bedrock's processing tiers as OpenAI's service_tier names them, each at most once. */
export const ServiceTierList = Named(
  'ServiceTierList',
  Type.Array(Type.Unsafe<'default' | 'flex' | 'priority'>({ type: 'string', enum: ['default', 'flex', 'priority'] }), {
    description: "Bedrock's processing tiers as OpenAI's service_tier names them, each at most once.",
    minItems: 1,
    maxItems: 3,
  }),
);

/** A team as every answer shows it. */
export const Team = Named(
  'Team',
  Type.Object(
    {
      id: Ref(Uuid),
      name: Type.String(),
      monthly_budget_usd: Type.Unsafe<number | null>({
        description: "The team's budget per calendar month (UTC); null means none.",
        type: ['number', 'null'],
      }),
      spent_usd: Type.Number({ description: "What the team's calls cost this calendar month (UTC)." }),
      rpm_limit: Type.Unsafe<number | null>({
        description: "Requests per minute for the team's calls together; null means no limit.",
        type: ['integer', 'null'],
      }),
      tpm_limit: Type.Unsafe<number | null>({
        description: "Tokens per minute for the team's calls together; null means no limit.",
        type: ['integer', 'null'],
      }),
      allowed_service_tiers: Type.Union([Ref(ServiceTierList), Type.Null()], {
        description:
          "The processing tiers the team's calls may use: default (Standard), flex, priority. Every call counted in the team (a team key's, or any key or session of a member) is held to them as well as to its key's own `allowed_service_tiers`: a tier outside them is a 403 (`service_tier_not_allowed`, naming the team), and a call that names no tier runs on the first allowed tier the model offers. null: every tier.",
      }),
      active_keys: Type.Integer({ description: "The team's unrevoked API keys (a team with any cannot be deleted).", minimum: 0 }),
      created_at: Ref(Timestamp),
      updated_at: Ref(Timestamp),
      my_role: OneOf([Ref(TeamRole), Type.Null()], {
        description: "The caller's role in the team; null when the caller is not a member (an admin).",
      }),
      alert_thresholds: Ref(BudgetAlertThresholds),
    },
    { description: 'A team as every answer shows it.', additionalProperties: false },
  ),
);

export const TeamResponse = Named(
  'TeamResponse',
  Type.Object({ success: Type.Unsafe<true>({ const: true }), team: Ref(Team) }, { additionalProperties: false }),
);

/** A membership as the team sees it. */
export const TeamMember = Named(
  'TeamMember',
  Type.Object(
    {
      team_id: Ref(Uuid),
      user_id: Ref(Uuid),
      username: Type.String(),
      email: Type.String(),
      role: Ref(TeamRole),
      monthly_budget_usd: Type.Unsafe<number | null>({
        description: "The member's own budget within the team per calendar month (UTC); null means none.",
        type: ['number', 'null'],
      }),
      spent_usd: Type.Number({ description: "What the member's calls for the team cost this calendar month (UTC)." }),
      alert_thresholds: Ref(BudgetAlertThresholds),
      source: Type.Unsafe<'manual' | 'invitation' | 'sso'>({
        description:
          '`manual` (added by an admin; before invitations, by an owner too), `invitation` (joined by accepting an invitation) or `sso` (from a sign-on group, and removed by sign-on when the group is gone).',
        type: 'string',
        enum: ['manual', 'invitation', 'sso'],
      }),
      joined_at: Ref(Timestamp),
    },
    { description: 'A membership as the team sees it.', additionalProperties: false },
  ),
);

export const TeamMemberResponse = Named(
  'TeamMemberResponse',
  Type.Object({ success: Type.Unsafe<true>({ const: true }), member: Ref(TeamMember) }, { additionalProperties: false }),
);

/** An invitation to a team, as its viewer may see it. */
export const TeamInvitation = Named(
  'TeamInvitation',
  Type.Object(
    {
      id: Ref(Uuid),
      team_id: Ref(Uuid),
      team_name: Type.String(),
      invitee: Type.String({ description: 'Who was invited, as the inviter named them (a user id, or a lower-cased username or e-mail address).' }),
      user_id: OneOf([Ref(Uuid), Type.Null()], {
        description:
          "The invited user's id, for admins and the invitee; for an owner, the id they gave, or null when they named a username or e-mail (whether an account answers to it is not told).",
      }),
      role: Ref(TeamRole),
      monthly_budget_usd: Type.Unsafe<number | null>({
        description: "The member's budget within the team once they accept, per calendar month (UTC); null means none.",
        type: ['number', 'null'],
      }),
      status: Type.Unsafe<'pending' | 'accepted' | 'declined' | 'revoked'>({
        description: '`pending` in lists; the answer to accept, decline or revoke says what became of it.',
        type: 'string',
        enum: ['pending', 'accepted', 'declined', 'revoked'],
      }),
      invited_by: Type.Object({ id: Ref(Uuid), username: Type.String() }, { additionalProperties: false }),
      created_at: Ref(Timestamp),
      expires_at: Ref(Timestamp, { description: 'After this, the invitation can no longer be accepted (7 days after it was made).' }),
    },
    { description: 'An invitation to a team, as its viewer may see it.', additionalProperties: false },
  ),
);

export const TeamInvitationResponse = Named(
  'TeamInvitationResponse',
  Type.Object({ success: Type.Unsafe<true>({ const: true }), invitation: Ref(TeamInvitation) }, { additionalProperties: false }),
);
