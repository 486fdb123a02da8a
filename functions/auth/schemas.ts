import { Type, type Static } from '@sinclair/typebox';

// Both fields optional in the schema so that "missing" gets the spec's own message (functions/auth/login.ts).
export const LoginBody = Type.Object(
  {
    username: Type.Optional(Type.String({ maxLength: 254, description: 'a username or an e-mail address' })),
    password: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;
