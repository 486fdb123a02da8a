// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/auth/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { AuthConfig, CloudCredentials, HostedCredentials, LoginResponse, MessageResponse, ValidateResponse } from './response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { LoginBody, OidcCallbackQuery, OidcLoginQuery } from './schemas';

export const operations: Operations = {
  /** POST /api/auth/login */
  login: {
    tags: ['auth'],
    summary: 'Log in with a username or e-mail and a password',
    description: `Public (no token needed). Returns a bearer token valid for 24 hours and the user.
Errors use the \`message\` shape. Repeated failed logins are slowed down (429 with
Retry-After): per account (its username and e-mail share one count; a name that is no
account is counted alike), after LOGIN_MAX_FAILURES failures each further attempt waits
1 s, doubling per failure up to LOGIN_MAX_DELAY_SECONDS, the right password included; per
source address, LOGIN_ADDRESS_MAX_FAILURES failures across names within
LOGIN_FAILURE_WINDOW_SECONDS hold that address back until its window ends.
With \`PASSWORD_LOGIN=false\` (single sign-on only) every login is a
403 (GET /api/auth/config says so beforehand). A user created by single sign-on has no
password until an admin sets one.
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(LoginBody, 'LoginRequest', {
            '': { description: 'Both fields are required; a missing one is a 400 "Username and password are required".' },
            '/properties/username': { description: 'A username or an e-mail address.' },
          }),
        },
      },
    },
    responses: {
      '200': { description: 'Logged in.', content: { 'application/json': { schema: Ref(LoginResponse) } } },
      ...errors('message', 400, 401, 403, 413, 415, 429, 500, 503),
    },
  },

  /** GET /api/auth/validate */
  validate: {
    tags: ['auth'],
    summary: 'Validate the bearer token and read the caller',
    description: 'Roles: user, admin, super_admin. Errors use the `message` shape ("No token provided", "Invalid or expired token").',
    responses: {
      '200': { description: 'The token is valid; the caller as stored now.', content: { 'application/json': { schema: Ref(ValidateResponse) } } },
      ...errors('message', 400, 401, 413, 415, 500, 503),
    },
  },

  /** POST /api/auth/logout */
  logout: {
    tags: ['auth'],
    summary: 'Log out (client side)',
    description:
      'Roles: user, admin, super_admin. No body. The server keeps no session: the client deletes its stored token (spec 4.1, 5.6). To revoke every token of the user on the server, use POST /api/auth/logout-all.',
    responses: {
      '200': { description: 'Acknowledged.', content: { 'application/json': { schema: Ref(MessageResponse) } } },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** POST /api/auth/logout-all */
  logoutAll: {
    tags: ['auth'],
    summary: 'Sign out everywhere (revokes every token of the caller)',
    description:
      "Roles: user, admin, super_admin. No body. Every login token of the caller issued until now, on any device and this one included, is refused from the next request on (401, details: the token was revoked). Logging in again works at once: a token issued within the same second as the revocation would be indistinguishable from one issued before it (`iat` counts whole seconds), so login waits for the next second (at most one) before issuing. A password change (PATCH /api/admin/users/{userId} with `password`, or the CLI's reset-password) revokes the same way. API keys are separate credentials and stay valid: revoke them with DELETE /api/keys/{keyId}.",
    responses: {
      '200': { description: 'Every token issued until now is revoked.', content: { 'application/json': { schema: Ref(MessageResponse) } } },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** GET /api/auth/aws-credentials */
  awsCredentials: {
    tags: ['auth'],
    summary: 'Masked credentials of the managed and dedicated platforms, with example calls',
    description:
      'Roles: admin, super_admin. Secrets are masked to their last four characters; the example calls read real keys from the environment. Recorded in the audit log.',
    responses: {
      '200': {
        description: 'The masked credentials.',
        content: {
          'application/json': {
            schema: Type.Object({ success: Type.Unsafe<true>({ const: true }), credentials: Ref(CloudCredentials) }, { additionalProperties: false }),
          },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },

  /** GET /api/auth/nvidia-credentials */
  nvidiaCredentials: {
    tags: ['auth'],
    summary: 'The masked hosted-platform API key, with example calls',
    description: 'Roles: admin, super_admin. Recorded in the audit log.',
    responses: {
      '200': {
        description: 'The masked key.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), credentials: Ref(HostedCredentials) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },

  /** GET /api/auth/config */
  authConfig: {
    tags: ['auth'],
    summary: 'How one may log in (password, single sign-on)',
    description: `Public (no token needed). What the console asks before it draws its login page:
\`password_login\` is false when the service runs with \`PASSWORD_LOGIN=false\` (POST
/api/auth/login then answers 403), and \`sso.enabled\` is true when single sign-on with an
OpenID Connect provider is configured (\`OIDC_ISSUER\`); \`sso.login_url\` is where its button
goes. With an admin's token (optional; any other token, valid or not, gets the public
answer), \`sso.warnings\` adds what sign-on noticed about its configuration, such as a
provider that sends no groups claim while \`OIDC_ADMIN_GROUPS\` or \`OIDC_TEAM_GROUPS_PREFIX\`
is set.
`,
    responses: {
      '200': { description: 'The ways in.', content: { 'application/json': { schema: Ref(AuthConfig) } } },
      ...errors('api', 400, 413, 415, 500, 503),
    },
  },

  /** GET /api/auth/oidc/login */
  oidcLogin: {
    tags: ['auth'],
    summary: 'Start a single sign-on (the console\'s "Log in with SSO")',
    description: `Public (no token needed); a browser navigates here. Redirects (302) to the identity
provider's authorization endpoint, found by OpenID Connect discovery from \`OIDC_ISSUER\`,
for the authorization code flow with PKCE (S256), a fresh \`state\` and \`nonce\`, and the
scopes of \`OIDC_SCOPES\`. The flow's secrets are kept in a cookie (\`mo_sso\`: encrypted and
authenticated, HttpOnly, SameSite=Lax, Secure on https, Path=/api/auth/oidc, 10 minutes),
which binds the sign-in to this browser. The console's \`nonce\` goes into that cookie too,
and comes back with the hand-off (\`&sso_nonce=\`), so the console can tell the answer to its
own sign-in from a link someone else made (login CSRF). When the provider cannot be reached
the redirect goes back to the console's login page with the reason
(\`/login#sso_error=...&sso_nonce=...\`). 400 without a \`nonce\`; 404 when single sign-on is
not configured.
`,
    parameters: new Parameters({ query: OidcLoginQuery }, [
      {
        name: 'nonce',
        in: 'query',
        description: `The console's random nonce for this sign-in (base64url, at least 128 bits: 22 characters;
the console sends 32 random bytes), kept in its tab's sessionStorage. Echoed back in the
hand-off's fragment (\`sso_nonce\`); the console accepts a hand-off only with the nonce it
stored. Never sent to the provider.
`,
      },
      { name: 'next', in: 'query', description: "A path of the console's own (such as `/keys`) to open once signed in." },
    ]),
    responses: {
      '302': {
        description: 'To the identity provider (or back to the console with the reason it cannot be reached).',
        headers: {
          Location: {
            description:
              "The provider's authorization endpoint with the flow's parameters, or `<console>/login#sso_error=<reason>&sso_nonce=<nonce>`.",
            schema: Type.String(),
          },
          'Set-Cookie': {
            description: "The flow's cookie: `mo_sso=<JWE>; Path=/api/auth/oidc; Max-Age=600; HttpOnly; SameSite=Lax` (and Secure on https).",
            schema: Type.String(),
          },
        },
      },
      ...errors('api', 400, 404, 413, 415, 500, 503),
    },
  },

  /** GET /api/auth/oidc/callback */
  oidcCallback: {
    tags: ['auth'],
    summary: "Finish a single sign-on (the provider's redirect back)",
    description: `Public (no token needed); the identity provider sends the browser here (\`OIDC_REDIRECT_URL\`).
The answer checks the \`state\` against the flow cookie this browser got from
/api/auth/oidc/login, redeems the code at the token endpoint with the PKCE verifier (the
client authenticated with its secret), verifies the ID token against the provider's JWKS
(asymmetric signature, \`iss\`, \`aud\`, \`azp\`, \`exp\`, \`iat\`, \`nonce\`), completes the claims
from the userinfo endpoint, then provisions the user on their first login (or links the
account with the same, verified, e-mail), re-applies the role from the groups claim
(\`OIDC_GROUPS_CLAIM\`, \`OIDC_SUPER_ADMIN_GROUPS\`, \`OIDC_ADMIN_GROUPS\`) and the team
memberships from groups named \`OIDC_TEAM_GROUPS_PREFIX\` + a team's name, and issues the
service's own 24-hour token, as a password login does. Every one of these steps is in the
audit log with the user as the actor (\`sso.*\`).

A first sign-in needs an e-mail address (\`email\` with an \`@\`) that the provider vouches for
(\`email_verified\`): only then is an account created with it, or an existing account with
that e-mail (looked up as an e-mail only) linked; otherwise the sign-in is refused and
nothing is stored. With group settings and no groups claim, the sign-in goes on (as a plain
user, in no team), and the audit log (\`sso.groups_missing\`), the log and GET
/api/auth/config (for admins) say so.

The answer is always a redirect (302) to the console's login page, with the flow cookie
cleared: \`/login#sso_token=<token>&sso_nonce=<nonce>\` on success (the token in the
fragment, which browsers never send to a server or in a Referer; the console removes it
from the address bar), or \`/login#sso_error=<reason>&sso_nonce=<nonce>\` when anything is
wrong (no or expired flow cookie, a \`state\` that does not match, a provider error, a code
refused or replayed, an ID token that fails any check, an e-mail missing or not verified, a
deactivated account); then no token is issued. \`sso_nonce\` is the console's nonce from the
flow cookie; without a readable flow cookie there is none, and the console ignores the
hand-off. Parameters other than those
listed are ignored. 404 when single sign-on is not configured.
`,
    parameters: new Parameters({ query: OidcCallbackQuery }, [
      { name: 'code', in: 'query', description: 'The authorization code.' },
      { name: 'state', in: 'query', description: 'The state sent to the provider, returned.' },
      { name: 'error', in: 'query', description: "The provider's error code (such as access_denied), instead of a code." },
      { name: 'error_description', in: 'query' },
      { name: 'iss', in: 'query', description: 'The issuer, when the provider names itself (RFC 9207); it must be `OIDC_ISSUER`.' },
    ]),
    responses: {
      '302': {
        description: 'To the console, with the token or with the reason.',
        headers: {
          Location: {
            description:
              '`<console>/login[?next=<path>]#sso_token=<token>&sso_nonce=<nonce>` or `<console>/login#sso_error=<reason>[&sso_nonce=<nonce>]`.',
            schema: Type.String(),
          },
          'Set-Cookie': { description: 'The flow cookie, cleared (`mo_sso=; Max-Age=0`).', schema: Type.String() },
        },
      },
      ...errors('api', 400, 404, 413, 415, 500, 503),
    },
  },
};
