import { completeSignOn } from '../../lib/signon/callback';
import { redirect } from '../../lib/http/endpoint';
import { publicEndpoint } from '../../lib/http/public-endpoint';
import { OidcCallbackQuery } from '../../generated/checks/auth';

/** GET /api/auth/oidc/callback (public): the provider's answer; to the console with the service's token, or with the reason. */
export const handler = publicEndpoint({ query: OidcCallbackQuery }, async ({ query, event }) => {
  const { location, cookie } = await completeSignOn(query, event.cookies, event.headers?.cookie);
  return redirect(location, cookie);
});
