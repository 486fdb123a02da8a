import { endpoint } from '../../lib/http/endpoint';
import { signOutEverywhere } from '../../lib/users/service';

/**
 * POST /api/auth/logout-all: signs the caller out on every device. Every login token of theirs issued
 * until now (this one included) is refused from the next request on; logging in again works at once.
 * POST /api/auth/logout stays as the spec has it (4.1, 5.6): the client drops its own token.
 */
export const handler = endpoint({ auth: 'user' }, async ({ user }) => {
  await signOutEverywhere(user.id);
  return { message: 'Signed out everywhere: every token issued until now is refused. Sign in again to continue.' };
});
