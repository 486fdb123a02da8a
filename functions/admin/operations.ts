// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/admin/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { AuditEntry, UserResponse } from './response-schemas';
import { NextCursor, User } from '../system/response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { CreateUserBody, ListAuditQuery, ListUsersQuery, UpdateUserBody, UserPath } from './schemas';

export const operations: Operations = {
  /** GET /api/admin/users */
  listUsers: {
    tags: ['admin'],
    summary: 'List users, oldest first',
    description: 'Roles: super_admin. Paginated with an opaque cursor.',
    parameters: new Parameters({ query: ListUsersQuery }, [{ $ref: '#/components/parameters/Limit' }, { $ref: '#/components/parameters/Cursor' }]),
    responses: {
      '200': {
        description: 'One page of users.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                users: Type.Array(Ref(User)),
                count: Type.Integer({ minimum: 0 }),
                nextCursor: Ref(NextCursor),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },

  /** POST /api/admin/users */
  createUser: {
    tags: ['admin'],
    summary: 'Create a user',
    description: 'Roles: super_admin. Usernames and e-mails are unique (case-insensitive). Recorded in the audit log.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(CreateUserBody, 'CreateUserRequest', {
            '/properties/username': { description: '3 to 64 letters, digits, dots, dashes or underscores.' },
            '/properties/cloud_region': { description: 'An AWS region such as us-east-1.' },
            '/properties/password': {
              description: `8 to 72 characters and at most 72 bytes in UTF-8, because bcrypt reads no more: 72 ASCII
characters, fewer when some take several bytes (24 characters of 3 bytes each, such as €).
JSON Schema counts characters, so the byte limit is checked by the service (400 "Password
must be at most 72 bytes").
`,
            },
          }),
        },
      },
    },
    responses: {
      '201': { description: 'Created.', content: { 'application/json': { schema: Ref(UserResponse) } } },
      ...errors('api', 400, 401, 403, 409, 413, 415, 500, 503),
    },
  },

  /** GET /api/admin/users/{userId} */
  getUser: {
    tags: ['admin'],
    summary: 'Read a user',
    description: 'Roles: super_admin.',
    parameters: new Parameters({ path: UserPath }, [
      {
        name: 'userId',
        in: 'path',
        description: "The user's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': { description: 'The user.', content: { 'application/json': { schema: Ref(UserResponse) } } },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** PATCH /api/admin/users/{userId} */
  updateUser: {
    tags: ['admin'],
    summary: "Change a user's role, activation, profile or password",
    description: `Roles: super_admin. \`is_active: false\` deactivates the account at once (its tokens are
refused from the next request). A new \`password\` revokes every login token the user held
(a stolen token does not outlive the reset; see POST /api/auth/logout-all). The last active
super_admin cannot be demoted or deactivated (409). Recorded in the audit log.
`,
    parameters: new Parameters({ path: UserPath }, [
      {
        name: 'userId',
        in: 'path',
        description: "The user's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(UpdateUserBody, 'UpdateUserRequest', {
            '': { description: 'At least one field.' },
            '/properties/cloud_region': { description: 'An AWS region such as us-east-1.' },
            '/properties/password': {
              description: `8 to 72 characters and at most 72 bytes in UTF-8, because bcrypt reads no more: 72 ASCII
characters, fewer when some take several bytes (24 characters of 3 bytes each, such as €).
JSON Schema counts characters, so the byte limit is checked by the service (400 "Password
must be at most 72 bytes").
`,
            },
            '/properties/monthly_budget_usd': {
              description:
                "USD per calendar month (UTC) for the user's chat and /v1 calls together; null removes the budget. The current month changes at once.",
            },
            '/properties/alert_thresholds/anyOf/0': { description: '1 to 5 distinct fractions of the budget, each above 0 and at most 1' },
          }),
        },
      },
    },
    responses: {
      '200': { description: 'The user after the change.', content: { 'application/json': { schema: Ref(UserResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },

  /** DELETE /api/admin/users/{userId}/login-failures */
  clearLoginFailures: {
    tags: ['admin'],
    summary: "Clear an account's failed logins",
    description: `Roles: super_admin. Forgets the account's failed password logins and every source address's
wait on it (README, Security: login throttling), so the next attempt from anywhere goes
ahead at once. The addresses' own counts stay. Recorded in the audit log
(\`user.login_failures.clear\`).
`,
    parameters: new Parameters({ path: UserPath }, [
      {
        name: 'userId',
        in: 'path',
        description: "The user's id.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': {
        description: 'The failures are forgotten.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ type: 'boolean', enum: [true] }),
                failures_cleared: Type.Integer({
                  minimum: 0,
                  description: 'The failed attempts counted against the account until now (0 when none were).',
                }),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** GET /api/admin/audit */
  listAudit: {
    tags: ['admin'],
    summary: 'The audit log of admin actions, newest first',
    description:
      'Roles: super_admin. Admin actions (user changes, credential reads, model sync) with their outcome, refusals included. Default page size 50.',
    parameters: new Parameters({ query: ListAuditQuery }, [
      { name: 'limit', in: 'query', description: 'Page size, 1 to 100; default 50.' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of audit entries.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                entries: Type.Array(Ref(AuditEntry)),
                count: Type.Integer({ minimum: 0 }),
                nextCursor: Ref(NextCursor),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },
};
