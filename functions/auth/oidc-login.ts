import { beginSignOn } from '../../lib/signon/start';
import { redirect } from '../../lib/http/endpoint';
import { publicEndpoint } from '../../lib/http/public-endpoint';
import { OidcLoginQuery } from '../../generated/checks/auth';

/** GET /api/auth/oidc/login (public): to the identity provider, with the flow's cookie (the console's "Log in with SSO"). */
export const handler = publicEndpoint({ query: OidcLoginQuery }, async ({ query }) => {
  const { location, cookie } = await beginSignOn(query);
  return redirect(location, cookie);
});
