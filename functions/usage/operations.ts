// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/usage/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { BreakdownRow, UsageFigures, UsageHour } from './response-schemas';
import { Parameters, Ref, errors, type Operations } from '../../lib/http/contract';
import { BreakdownQuery, UsageQuery } from './schemas';

export const operations: Operations = {
  /** GET /api/usage/current */
  currentUsage: {
    tags: ['usage'],
    summary: 'Month-to-date and last-24-hours usage',
    description: `Roles: user, admin, super_admin. Of a conversation (\`conversationId\`, its owner), of the
caller (no parameter), of an API key's /v1 calls (\`keyId\`: the caller's own key; admins any
key; anyone else's is 404), of one of the caller's client sessions (\`session\`: the
\`X-Claude-Code-Session-Id\` their /v1 calls sent), of a team (\`teamId\`: its members and admins; for anyone else the
team does not exist, 404), or of the whole service (\`scope=all\`, admin and super_admin
only: 403 for a user). The caller's figures include their /v1 calls. A team's figures count
its team keys' calls and its members' other calls (personal keys, session chat): its
members' chat turns at once, /v1 calls once settled from the table's stream (about a
second), except the caller's own, which are counted at once.
`,
    parameters: new Parameters({ query: UsageQuery }, [
      {
        name: 'conversationId',
        in: 'query',
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
      {
        name: 'keyId',
        in: 'query',
        description: "An API key's id (GET /api/keys); alone, without conversationId or scope.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
      {
        name: 'teamId',
        in: 'query',
        description: "A team's id (GET /api/teams); alone, without keyId, conversationId or scope.",
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
      {
        name: 'scope',
        in: 'query',
        description: '`user` (the caller, default) or `all` (the whole service; admins). Not together with conversationId.',
      },
      {
        name: 'session',
        in: 'query',
        description:
          "One of the caller's client sessions: the `X-Claude-Code-Session-Id` its /v1 calls sent (Claude Code sends one per session). Alone, without the other parameters.",
      },
    ]),
    responses: {
      '200': {
        description: 'The figures.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                scope: Type.Unsafe<'conversation' | 'user' | 'key' | 'team' | 'session' | 'all'>({
                  type: 'string',
                  enum: ['conversation', 'user', 'key', 'team', 'session', 'all'],
                }),
                session: Type.Optional(Type.String({ description: 'The session asked for (scope `session`).' })),
                mtd: Ref(UsageFigures),
                last24h: Ref(UsageFigures),
                hourly: Type.Array(Ref(UsageHour), {
                  description: `The last 24 hours by clock hour (UTC): the 25 hours they touch, oldest first, every
one present (zeros included). \`hour\` is the hour's start; the first hour counts
from 24 hours ago (to the five minutes), so the entries add up to \`last24h\`.
An addition to the spec's response, read from the same items in the same request.
`,
                  minItems: 25,
                  maxItems: 25,
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
  /** GET /api/usage/breakdown */
  usageBreakdown: {
    tags: ['usage'],
    summary: 'Spend broken down by team, user, key, model, resource or route',
    description: `Roles: user, admin, super_admin. The range's spend, one row per group, most expensive
first, from aggregates the table's stream keeps per day and group (about a second behind the
calls): one Query and one BatchGet of the groups' names, whatever the number of calls. Session
chat turns and /v1 calls both count; key and route rows only have /v1 calls.

Whose calls: admins every call; with \`teamId\`, the calls that team counts (its owners and
admins; a member is 403, anyone else 404); anyone else their own calls, and with
\`groupBy=team\` each team they own whole (their other teams: their own calls in them).
\`format=csv\` answers \`text/csv\` with a header row
\`group_id,group_name,cost_usd,tokens_in,tokens_out,cached_tokens,requests\` (RFC 4180; a cell that
starts with = + - or @ is prefixed with ' so a spreadsheet shows it as text). See docs/usage.md.
`,
    parameters: new Parameters({ query: BreakdownQuery }, [
      { name: 'from', in: 'query', description: 'The first day (UTC, yyyy-mm-dd). Default: the first of the month of `to`, or of this month.' },
      {
        name: 'to',
        in: 'query',
        description:
          'The last day, included (UTC, yyyy-mm-dd); not before `from`, at most 366 days after it. Default: today, or the last day of the month of `from`.',
      },
      { name: 'groupBy', in: 'query', description: 'team, user, key, model (default), resource or route.' },
      { name: 'teamId', in: 'query', description: "A team's id: that team's calls (its owners and admins)." },
      { name: 'format', in: 'query', description: '`json` (default) or `csv`.' },
    ]),
    responses: {
      '200': {
        description: 'The breakdown.',
        headers: {
          'Content-Disposition': {
            description: 'With format=csv: `attachment; filename="usage-by-<groupBy>-<from>-to-<to>.csv"`.',
            schema: Type.String(),
          },
        },
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                from: Type.String({ format: 'date' }),
                to: Type.String({ format: 'date' }),
                groupBy: Type.Unsafe<string>({ type: 'string', enum: ['team', 'user', 'key', 'model', 'resource', 'route'] }),
                teamId: Type.Optional(Type.String({ format: 'uuid' })),
                rows: Type.Array(Ref(BreakdownRow)),
              },
              { additionalProperties: false },
            ),
          },
          'text/csv': { schema: Type.String({ description: 'A header row, then one row per group (CRLF line ends).' }) },
        },
      },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },
};
