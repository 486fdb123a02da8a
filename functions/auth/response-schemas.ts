// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/auth/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, Ref } from '../../lib/http/contract';
import { User } from '../system/response-schemas';

export const AuthConfig = Named(
  'AuthConfig',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      password_login: Type.Boolean({ description: 'False when POST /api/auth/login is turned off (`PASSWORD_LOGIN=false`).' }),
      sso: Type.Object(
        {
          enabled: Type.Boolean({ description: 'Single sign-on with the configured OpenID Connect provider.' }),
          login_url: Type.Unsafe<string | null>({
            description: 'Where the "Log in with SSO" button goes; null when single sign-on is off.',
            type: ['string', 'null'],
          }),
          warnings: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  code: Type.Unsafe<'groups_claim_missing'>({ type: 'string', enum: ['groups_claim_missing'] }),
                  message: Type.String(),
                  last_seen_at: Type.String({ format: 'date-time' }),
                },
                { additionalProperties: false },
              ),
              {
                description: `Admins only (with an admin's token, when single sign-on is on): what sign-on noticed
about its own configuration. \`groups_claim_missing\`: group settings are set, but at
the last sign-in (\`last_seen_at\`) the provider sent the groups claim
(\`OIDC_GROUPS_CLAIM\`) neither in the ID token nor in the userinfo, so everyone signs
in as a plain user and in no team; the message names \`OIDC_SCOPES\` and
\`OIDC_GROUPS_CLAIM\`. It goes once a sign-in carries the claim. Each such sign-in is
also in the audit log (\`sso.groups_missing\`) and logged as a warning.
`,
              },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
);

export const MessageResponse = Named(
  'MessageResponse',
  Type.Object({ success: Type.Unsafe<true>({ const: true }), message: Type.String() }, { additionalProperties: false }),
);

export const LoginResponse = Named(
  'LoginResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      message: Type.String(),
      token: Type.String({ description: 'JWT: userId, username, role, iat, exp (exp = iat + 86400).' }),
      user: Ref(User),
    },
    { additionalProperties: false },
  ),
);

export const ValidateResponse = Named(
  'ValidateResponse',
  Type.Object({ success: Type.Unsafe<true>({ const: true }), message: Type.String(), user: Ref(User) }, { additionalProperties: false }),
);

export const CloudCredentials = Named(
  'CloudCredentials',
  Type.Object(
    {
      region: Type.String(),
      accessKeyId: Type.Unsafe<string | null>({
        description: 'Masked; null when no access key is configured (the service then uses its IAM role).',
        type: ['string', 'null'],
      }),
      secretAccessKey: Type.Unsafe<string | null>({
        description: 'Masked to its last four characters; null when not configured.',
        type: ['string', 'null'],
      }),
      configured: Type.Boolean(),
      note: Type.String(),
      endpoint: Type.String(),
      runtimeEndpoint: Type.String(),
      authMethod: Type.String({ description: 'The request-signing scheme.' }),
      curlExample: Type.String(),
      nodeExample: Type.String(),
      pythonExample: Type.String(),
    },
    { additionalProperties: false },
  ),
);

export const HostedCredentials = Named(
  'HostedCredentials',
  Type.Object(
    {
      apiKey: Type.Unsafe<string | null>({ description: 'Masked to its last four characters; null when not configured.', type: ['string', 'null'] }),
      configured: Type.Boolean(),
      note: Type.String(),
      baseUrl: Type.String(),
      endpoint: Type.String(),
      curlExample: Type.String(),
      nodeExample: Type.String(),
      pythonExample: Type.String(),
    },
    { additionalProperties: false },
  ),
);
