// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/teams/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { NextCursor } from '../system/response-schemas';
import { Team, TeamInvitation, TeamInvitationResponse, TeamMember, TeamMemberResponse, TeamResponse } from './response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import {
  AddMemberBody,
  CreateTeamBody,
  InvitationPath,
  ListInvitationsQuery,
  ListMembersQuery,
  ListTeamsQuery,
  MemberPath,
  TeamPath,
  UpdateMemberBody,
  UpdateTeamBody,
} from './schemas';

export const operations: Operations = {
  /** GET /api/teams */
  listTeams: {
    tags: ['teams'],
    summary: 'Teams: every team for admins, their own for everyone else',
    description: `Roles: user, admin, super_admin. Admins get every team (oldest first) unless they ask for
their own (\`scope=user\`); anyone else gets the teams they are a member of (\`scope=all\` is a
403 for them). Each team has this month's \`spent_usd\` and the caller's own role in it
(\`my_role\`, null when not a member).
`,
    parameters: new Parameters({ query: ListTeamsQuery }, [
      { name: 'scope', in: 'query', description: "`user` (the caller's teams) or `all` (admins; their default)." },
      { $ref: '#/components/parameters/Limit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of teams.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), teams: Type.Array(Ref(Team)), nextCursor: Ref(NextCursor) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },

  /** POST /api/teams */
  createTeam: {
    tags: ['teams'],
    summary: 'Create a team',
    description: `Roles: admin, super_admin. A team has a unique name (in any case), an optional monthly
budget and optional rate limits (requests and tokens per minute), enforced on every call
that counts in the team (see POST /v1/chat/completions). It starts with no
members: an admin adds them with POST /api/teams/{teamId}/members, an owner invites them
(POST /api/teams/{teamId}/invitations), or single sign-on adds them from groups. Recorded in the audit log (\`team.create\`).
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(CreateTeamBody, 'CreateTeamRequest', {
            '/properties/name': {
              description:
                '1 to 64 letters, digits, spaces, dots, dashes or underscores, starting and ending with a letter or digit; unique in any case. Sign-on groups name teams by it (`OIDC_TEAM_GROUPS_PREFIX` + name).',
            },
            '/properties/monthly_budget_usd': { description: 'USD per calendar month (UTC), 0 or from 0.000000001 to 1000000000.' },
            '/properties/rpm_limit': { description: 'Requests per minute, 1 to 1000000.' },
            '/properties/tpm_limit': { description: 'Tokens (prompt and completion) per minute, 1 to 1000000000.' },
            '/properties/allowed_service_tiers': { description: "The team's processing tiers (see Team); all when absent." },
          }),
        },
      },
    },
    responses: {
      '201': { description: 'The team.', content: { 'application/json': { schema: Ref(TeamResponse) } } },
      ...errors('api', 400, 401, 403, 409, 413, 415, 500, 503),
    },
  },

  /** GET /api/teams/invitations */
  listMyInvitations: {
    tags: ['teams'],
    summary: 'Your pending team invitations',
    description: `Roles: user, admin, super_admin. The caller's own pending invitations, newest first, each
with the team's name, the role and budget they would have, and who invited them. Accepted,
declined, revoked and expired invitations are not listed. An invitation just made may take
a moment to show (it is read from an index).
`,
    parameters: new Parameters({ query: ListInvitationsQuery }, [
      { $ref: '#/components/parameters/Limit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of invitations.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), invitations: Type.Array(Ref(TeamInvitation)), nextCursor: Ref(NextCursor) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** GET /api/teams/{teamId} */
  getTeam: {
    tags: ['teams'],
    summary: 'A team',
    description: 'Roles: user, admin, super_admin. Its members and admins see it; for anyone else it does not exist (404).',
    parameters: new Parameters({ path: TeamPath }, [{ $ref: '#/components/parameters/TeamId' }]),
    responses: {
      '200': { description: 'The team.', content: { 'application/json': { schema: Ref(TeamResponse) } } },
      ...errors('api', 400, 401, 404, 413, 415, 500, 503),
    },
  },

  /** DELETE /api/teams/{teamId} */
  deleteTeam: {
    tags: ['teams'],
    summary: 'Delete a team',
    description: `Roles: admin, super_admin. Refused (409) while the team has active (unrevoked) API keys:
they would go on spending in its name. Revoke them first (\`GET /api/keys?team_id=...\`).
Its memberships go with it; the month's spend records stay. Recorded in the audit log
(\`team.delete\`).
`,
    parameters: new Parameters({ path: TeamPath }, [{ $ref: '#/components/parameters/TeamId' }]),
    responses: {
      '200': { description: 'The team as it was.', content: { 'application/json': { schema: Ref(TeamResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },

  /** PATCH /api/teams/{teamId} */
  updateTeam: {
    tags: ['teams'],
    summary: 'Rename a team, or change its budget or limits',
    description: `Roles: admin, super_admin. \`null\` removes the budget or a limit. A budget change applies to
the current month at once. Recorded in the audit log (\`team.update\`).
`,
    parameters: new Parameters({ path: TeamPath }, [{ $ref: '#/components/parameters/TeamId' }]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(UpdateTeamBody, 'UpdateTeamRequest', {
            '': { description: 'At least one field; null removes the budget or a limit.' },
            '/properties/name': {
              description:
                '1 to 64 letters, digits, spaces, dots, dashes or underscores, starting and ending with a letter or digit; unique in any case. Sign-on groups name teams by it (`OIDC_TEAM_GROUPS_PREFIX` + name).',
            },
            '/properties/rpm_limit/anyOf/0': { description: 'Requests per minute, 1 to 1000000.' },
            '/properties/tpm_limit/anyOf/0': { description: 'Tokens (prompt and completion) per minute, 1 to 1000000000.' },
            '/properties/allowed_service_tiers': { description: "The team's processing tiers (see Team); null removes the limit." },
            '/properties/allowed_service_tiers/anyOf/0': {
              description: "Bedrock's processing tiers as OpenAI's service_tier names them, each at most once.",
            },
            '/properties/alert_thresholds/anyOf/0': { description: '1 to 5 distinct fractions of the budget, each above 0 and at most 1' },
          }),
        },
      },
    },
    responses: {
      '200': { description: 'The team after the change.', content: { 'application/json': { schema: Ref(TeamResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },

  /** GET /api/teams/{teamId}/members */
  listTeamMembers: {
    tags: ['teams'],
    summary: "A team's members",
    description: `Roles: user, admin, super_admin. The team's members and admins see the roster (anyone
else: 404), each member with their role, budget and this month's spend within the team.
`,
    parameters: new Parameters({ query: ListMembersQuery, path: TeamPath }, [
      { $ref: '#/components/parameters/TeamId' },
      { $ref: '#/components/parameters/Limit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of members.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), members: Type.Array(Ref(TeamMember)), nextCursor: Ref(NextCursor) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 404, 413, 415, 500, 503),
    },
  },

  /** POST /api/teams/{teamId}/members */
  addTeamMember: {
    tags: ['teams'],
    summary: 'Add a member to a team (admins)',
    description: `Roles: user, admin, super_admin; admins only. Nobody joins a team without their consent:
the team's owners invite instead (POST /api/teams/{teamId}/invitations), and an owner or
member who is not an admin gets a 403 that says so (anyone else: 404). The user is named by \`user_id\` or by \`username\` (a username or an
e-mail address). \`role\` is \`owner\` (manages the team's members and keys) or \`member\`;
\`monthly_budget_usd\` is the member's own budget within the team. A user who is already a
member is a 409 (change them with PATCH). Recorded in the audit log (\`team.member.add\`,
naming the user the name resolved to).
`,
    parameters: new Parameters({ path: TeamPath }, [{ $ref: '#/components/parameters/TeamId' }]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(AddMemberBody, 'AddTeamMemberRequest', {
            '': { description: 'The user by id (`user_id`) or by username or e-mail (`username`); one of the two (both is a 400).' },
            '/properties/user_id': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/username': { description: 'A username or an e-mail address.' },
            '/properties/role': { description: "`owner` (manages the team's members and keys) or `member`." },
            '/properties/monthly_budget_usd': { description: 'USD per calendar month (UTC), 0 or from 0.000000001 to 1000000000.' },
          }),
        },
      },
    },
    responses: {
      '201': { description: 'The membership.', content: { 'application/json': { schema: Ref(TeamMemberResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },

  /** DELETE /api/teams/{teamId}/members/{userId} */
  removeTeamMember: {
    tags: ['teams'],
    summary: 'Remove a member from a team (or leave it)',
    description: `Roles: user, admin, super_admin. Admins and the team's owners remove any member; a member
may remove themselves (leave). The member's API keys of this team are revoked at once
(\`revoked_keys\` says how many): someone who is no longer a member does not spend the team's
money. Recorded in the audit log (\`team.member.remove\`).
`,
    parameters: new Parameters({ path: MemberPath }, [
      { $ref: '#/components/parameters/TeamId' },
      {
        name: 'userId',
        in: 'path',
        description: "The member's user id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': {
        description: "The membership as it was, and how many of the member's keys were revoked.",
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), member: Ref(TeamMember), revoked_keys: Type.Integer({ minimum: 0 }) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** PATCH /api/teams/{teamId}/members/{userId} */
  updateTeamMember: {
    tags: ['teams'],
    summary: "Change a member's role or budget",
    description: `Roles: user, admin, super_admin; admins and the team's owners only (a plain member: 403;
anyone else: 404). \`null\` removes the member's budget; a budget change applies to the
current month at once. A membership that single sign-on gave becomes one given by hand
(sign-on no longer removes it). Recorded in the audit log (\`team.member.update\`).
`,
    parameters: new Parameters({ path: MemberPath }, [
      { $ref: '#/components/parameters/TeamId' },
      {
        name: 'userId',
        in: 'path',
        description: "The member's user id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(UpdateMemberBody, 'UpdateTeamMemberRequest', {
            '': { description: "At least one field; null removes the member's budget." },
            '/properties/role': { description: "`owner` (manages the team's members and keys) or `member`." },
            '/properties/alert_thresholds/anyOf/0': { description: '1 to 5 distinct fractions of the budget, each above 0 and at most 1' },
          }),
        },
      },
    },
    responses: {
      '200': { description: 'The membership after the change.', content: { 'application/json': { schema: Ref(TeamMemberResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },

  /** GET /api/teams/{teamId}/invitations */
  listTeamInvitations: {
    tags: ['teams'],
    summary: "A team's pending invitations",
    description: `Roles: user, admin, super_admin; admins and the team's owners only (a plain member: 403;
anyone else: 404). The invitations nobody has accepted, declined or revoked yet and that
have not expired.
`,
    parameters: new Parameters({ query: ListInvitationsQuery, path: TeamPath }, [
      { $ref: '#/components/parameters/TeamId' },
      { $ref: '#/components/parameters/Limit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of pending invitations.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), invitations: Type.Array(Ref(TeamInvitation)), nextCursor: Ref(NextCursor) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** POST /api/teams/{teamId}/invitations */
  inviteToTeam: {
    tags: ['teams'],
    summary: 'Invite a user to a team',
    description: `Roles: user, admin, super_admin; admins and the team's owners only (a plain member: 403;
anyone else: 404). The user is named by \`user_id\` or by \`username\` (a username or an
e-mail address), with the \`role\` and \`monthly_budget_usd\` they will have in the team. They
become a member only when they accept (POST .../accept); until then the team's budgets
and limits do not apply to them. The invitation expires after 7 days.

The answer is the same whether an account answers to the name, is deactivated, or does
not exist: \`user_id\` is the id the inviter gave (null when they named a username or
e-mail), unless the caller is an admin. A name with a pending invitation to the team, or
of a member, is a 409. Recorded in the audit log (\`team.invitation.create\`, naming the
user the name resolved to).
`,
    parameters: new Parameters({ path: TeamPath }, [{ $ref: '#/components/parameters/TeamId' }]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(AddMemberBody, 'InviteToTeamRequest', {
            '': {
              description:
                'The user by id (`user_id`) or by username or e-mail (`username`); one of the two (both is a 400); with the role and budget they will have if they accept.',
            },
            '/properties/user_id': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/username': { description: 'A username or an e-mail address.' },
            '/properties/role': { description: "`owner` (manages the team's members and keys) or `member`." },
            '/properties/monthly_budget_usd': { description: 'USD per calendar month (UTC), 0 or from 0.000000001 to 1000000000.' },
          }),
        },
      },
    },
    responses: {
      '201': { description: 'The invitation, pending.', content: { 'application/json': { schema: Ref(TeamInvitationResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },

  /** DELETE /api/teams/{teamId}/invitations/{invitationId} */
  revokeTeamInvitation: {
    tags: ['teams'],
    summary: 'Withdraw an invitation',
    description: `Roles: user, admin, super_admin; admins and the team's owners only (a plain member: 403;
anyone else: 404). A pending invitation is withdrawn (status \`revoked\`); one already
accepted, declined or expired is a 404. Recorded in the audit log (\`team.invitation.revoke\`).
`,
    parameters: new Parameters({ path: InvitationPath }, [
      { $ref: '#/components/parameters/TeamId' },
      {
        name: 'invitationId',
        in: 'path',
        description: "The invitation's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': { description: 'The invitation as it was, revoked.', content: { 'application/json': { schema: Ref(TeamInvitationResponse) } } },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** POST /api/teams/{teamId}/invitations/{invitationId}/accept */
  acceptTeamInvitation: {
    tags: ['teams'],
    summary: 'Accept an invitation and join the team',
    description: `Roles: user, admin, super_admin; the invited user only (anyone else, or an invitation
expired, withdrawn or already answered: 404). The caller becomes a member with the role and
budget the invitation names (\`source: invitation\`); from then on their calls count in the
team. A caller who is a member already is a 409. Recorded in the audit log
(\`team.invitation.accept\`).
`,
    parameters: new Parameters({ path: InvitationPath }, [
      { $ref: '#/components/parameters/TeamId' },
      {
        name: 'invitationId',
        in: 'path',
        description: "The invitation's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': {
        description: 'The membership, and the invitation (accepted).',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), member: Ref(TeamMember), invitation: Ref(TeamInvitation) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 404, 409, 413, 415, 500, 503),
    },
  },

  /** POST /api/teams/{teamId}/invitations/{invitationId}/decline */
  declineTeamInvitation: {
    tags: ['teams'],
    summary: 'Decline an invitation',
    description: `Roles: user, admin, super_admin; the invited user only (anyone else, or an invitation
expired, withdrawn or already answered: 404). The invitation is gone (status \`declined\`).
Recorded in the audit log (\`team.invitation.decline\`).
`,
    parameters: new Parameters({ path: InvitationPath }, [
      { $ref: '#/components/parameters/TeamId' },
      {
        name: 'invitationId',
        in: 'path',
        description: "The invitation's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': { description: 'The invitation as it was, declined.', content: { 'application/json': { schema: Ref(TeamInvitationResponse) } } },
      ...errors('api', 400, 401, 404, 413, 415, 500, 503),
    },
  },
};
