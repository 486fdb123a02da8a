// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/keys/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { ApiKey, ApiKeyResponse } from './response-schemas';
import { NextCursor } from '../system/response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { CreateKeyBody, KeyPath, ListKeysQuery, UpdateKeyBody } from './schemas';

export const operations: Operations = {
  /** GET /api/keys */
  listKeys: {
    tags: ['keys'],
    summary: "The caller's API keys (admins: every key)",
    description: `Roles: user, admin, super_admin. Newest first, revoked keys included (with \`revoked_at\`),
each with \`spent_usd\` for the current calendar month (UTC). Never a secret or a hash.
\`scope=all\` lists every user's keys (admin and super_admin only: 403 for a user);
\`team_id\` lists one team's keys, whoever created them (the team's owners and admins; a
plain member: 403; anyone else: 404), and cannot be combined with \`scope\` (400).
`,
    parameters: new Parameters({ query: ListKeysQuery }, [
      { name: 'scope', in: 'query', description: "`user` (the caller's keys, default) or `all` (admins)." },
      {
        name: 'team_id',
        in: 'query',
        description: "One team's keys (its owners and admins).",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
      { $ref: '#/components/parameters/Limit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of keys.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), keys: Type.Array(Ref(ApiKey)), nextCursor: Ref(NextCursor) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** POST /api/keys */
  createKey: {
    tags: ['keys'],
    summary: 'Create an API key of the caller',
    description: `Roles: user, admin, super_admin. The secret (\`key\`: \`mo_\` and 43 characters) is in this
answer only: the service keeps only its SHA-256. \`prefix\` (its first 11 characters) is
what lists show. Without \`monthly_budget_usd\` the key has no budget of its own (the owner's
budget, if an admin set one, still applies); without \`expires_at\` it never expires; without
\`resource_ids\` it may call every deployed resource. \`team_id\` makes it a team key: the
caller must be a member of the team (400 otherwise), the key spends for the team, and the
team's owners and admins list, change and revoke it too. \`rpm_limit\` and \`tpm_limit\` are
the key's own requests and tokens per minute, enforced on its /v1 calls beside its teams'
(see POST /v1/chat/completions). Recorded in the audit log.
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(CreateKeyBody, 'CreateKeyRequest', {
            '/properties/monthly_budget_usd': { description: 'USD per calendar month (UTC), 0 or from 0.000000001 to 1000000.' },
            '/properties/expires_at': { description: 'An ISO 8601 date-time with its zone, in the future.' },
            '/properties/resource_ids/items': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/team_id': {
              description: 'A team the caller is a member of; the key then spends for the team (and its owners manage it too).',
              format: 'uuid',
            },
            '/properties/rpm_limit': { description: 'Requests per minute, 1 to 1000000.' },
            '/properties/tpm_limit': { description: 'Tokens (prompt and completion) per minute, 1 to 1000000000.' },
            '/properties/alert_thresholds/anyOf/0': { description: '1 to 5 distinct fractions of the budget, each above 0 and at most 1' },
            '/properties/allowed_service_tiers': {
              description: "the processing tiers the key's calls may use: default (Standard), flex, priority (all when absent)",
            },
          }),
        },
      },
    },
    responses: {
      '201': {
        description: 'The key, with its secret (shown once).',
        content: {
          'application/json': {
            schema: Type.Intersect([
              Ref(ApiKey),
              Type.Object({
                success: Type.Unsafe<true>({ const: true }),
                key: Type.String({ pattern: '^mo_[A-Za-z0-9_-]{43}$', description: 'The secret. Send it as `Authorization: Bearer <key>` to /v1.' }),
              }),
            ]),
          },
        },
      },
      ...errors('api', 400, 401, 409, 413, 415, 500, 503),
    },
  },

  /** DELETE /api/keys/{keyId} */
  revokeKey: {
    tags: ['keys'],
    summary: 'Revoke a key at once',
    description: `Roles: user, admin, super_admin. The owner revokes their own key, a team's owners its team
keys; admins may revoke any key (anyone else: 404). The next call with the key is refused (401 "This API key has been
revoked"). The key stays in the list with \`revoked_at\`. Revoking a revoked key changes
nothing. Recorded in the audit log.
`,
    parameters: new Parameters({ path: KeyPath }, [
      {
        name: 'keyId',
        in: 'path',
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    responses: {
      '200': { description: 'The revoked key.', content: { 'application/json': { schema: Ref(ApiKeyResponse) } } },
      ...errors('api', 400, 401, 404, 413, 415, 500, 503),
    },
  },

  /** PATCH /api/keys/{keyId} */
  updateKey: {
    tags: ['keys'],
    summary: 'Rename a key, or change its budget, expiry or resources',
    description: `Roles: user, admin, super_admin. The key's owner may change it; a team key also the team's
owners and admins (anyone else: 404). A team key's bounds (\`monthly_budget_usd\`,
\`rpm_limit\`, \`tpm_limit\`, \`resource_ids\`, \`expires_at\`) are the team's: only its owners and
admins change them; the member who holds the key may rename it (403 otherwise). \`null\`
removes a budget, an expiry, a resource limit or a rate limit. A budget change applies to the
current month at once. A revoked key cannot be changed (409). Recorded in the audit log.
`,
    parameters: new Parameters({ path: KeyPath }, [
      {
        name: 'keyId',
        in: 'path',
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
    ]),
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(UpdateKeyBody, 'UpdateKeyRequest', {
            '/properties/resource_ids/anyOf/0/items': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/rpm_limit/anyOf/0': { description: 'Requests per minute, 1 to 1000000.' },
            '/properties/tpm_limit/anyOf/0': { description: 'Tokens (prompt and completion) per minute, 1 to 1000000000.' },
            '/properties/allowed_service_tiers': { description: "the processing tiers the key's calls may use; null removes the limit" },
            '/properties/alert_thresholds/anyOf/0': { description: '1 to 5 distinct fractions of the budget, each above 0 and at most 1' },
          }),
        },
      },
    },
    responses: {
      '200': { description: 'The key after the change.', content: { 'application/json': { schema: Ref(ApiKeyResponse) } } },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 500, 503),
    },
  },
};
