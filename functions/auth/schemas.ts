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

/** Where the console goes after a sign-on: a path of its own (never another site). */
export const OidcLoginQuery = Type.Object(
  {
    nonce: Type.String({
      minLength: 22,
      maxLength: 128,
      pattern: '^[A-Za-z0-9_-]+$',
      description:
        "the console's random nonce for this sign-in (base64url, at least 128 bits), echoed back with the hand-off; the console accepts only the one it stored",
    }),
    next: Type.Optional(
      Type.String({
        maxLength: 512,
        pattern: '^/(?![/\\\\])[^\\s#]*$',
        description: "a path of the console's own, such as /keys, to open once signed in",
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * The provider's answer (OpenID Connect Core 1.0, 3.1.2.5 and 3.1.2.6; RFC 9207's `iss`). Providers
 * add parameters of their own (`session_state`, `scope`, `authuser`, ...), so others are accepted and
 * ignored; what is read is checked by lib/auth/oidc.ts.
 */
export const OidcCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);
