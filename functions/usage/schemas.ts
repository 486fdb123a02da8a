import { Type } from '@sinclair/typebox';
import { Uuid } from '../../lib/http/schemas';

export const UsageQuery = Type.Object(
  {
    conversationId: Type.Optional(Uuid),
    keyId: Type.Optional(Uuid),
    teamId: Type.Optional(Uuid),
    scope: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('all')], { description: "'user' (the caller, default) or 'all' (admins)" })),
    session: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'a client session id (X-Claude-Code-Session-Id)' })),
  },
  { additionalProperties: false },
);

const Day = (what: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: `${what}, a UTC calendar day (yyyy-mm-dd)`, examples: ['2026-11-01'] });

export const BreakdownQuery = Type.Object(
  {
    from: Type.Optional(Day('The first day')),
    to: Type.Optional(Day('The last day, included')),
    groupBy: Type.Optional(
      Type.Union(
        ['team', 'user', 'key', 'model', 'resource', 'route'].map((k) => Type.Literal(k as 'team' | 'user' | 'key' | 'model' | 'resource' | 'route')),
        { description: 'What the rows are: team, user, key, model (default), resource or route' },
      ),
    ),
    teamId: Type.Optional(Uuid),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: "'json' (default) or 'csv'" })),
  },
  { additionalProperties: false },
);
