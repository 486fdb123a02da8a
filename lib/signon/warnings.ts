/**
 * What sign-on tells the people who run it (issue 33, item 12). A provider that sends no groups claim
 * while role or team groups are configured turns every admin into a plain user and takes everyone
 * out of their groups' teams, and nothing in the login itself looks wrong: the default scopes lack
 * `groups`, which Okta and oidc-provider need before they send it. So each such login is audited and
 * logged as a warning naming the two settings that fix it, and admins see it on GET /api/auth/config
 * until a login carries the claim again.
 */
import { config, type OidcConfig } from '../../core/config';
import { logger } from '../../core/observability';
import { clearSignOnWarning, listSignOnWarnings, noteSignOnWarning, type SignOnWarning } from '../../tables/signon';
import type { User } from '../../tables/users';
import { recordUserAction } from '../audit/user-action';
import { authSettings } from '../auth/settings';
import type { Identity } from '../auth/oidc';

const GROUPS_MISSING = 'groups_claim_missing';

/** The group settings in force, by name (empty when sign-on maps no groups). */
function groupSettings(oidc: OidcConfig): string[] {
  return [
    ...(oidc.superAdminGroups.length ? ['OIDC_SUPER_ADMIN_GROUPS'] : []),
    ...(oidc.adminGroups.length ? ['OIDC_ADMIN_GROUPS'] : []),
    ...(oidc.teamGroupsPrefix ? ['OIDC_TEAM_GROUPS_PREFIX'] : []),
  ];
}

function groupsMissingMessage(oidc: OidcConfig, settings: string[]): string {
  return (
    `${settings.slice(0, -1).join(', ')}${settings.length > 1 ? ' and ' : ''}${settings.at(-1)} ${settings.length > 1 ? 'are' : 'is'} set, but the identity provider sent no "${oidc.groupsClaim}" claim ` +
    `in the ID token or the userinfo, so sign-on gives every user the plain user role and no team. ` +
    `Ask for the provider's groups scope in OIDC_SCOPES (now "${oidc.scopes.join(' ')}"), ` +
    `or set OIDC_GROUPS_CLAIM (now "${oidc.groupsClaim}") to the claim the provider uses.`
  );
}

/**
 * After a sign-in: when groups are mapped and the claim was missing, an audit entry (the user as the
 * actor), a warning in the log and the warning kept for admins; when the claim is there, a warning
 * kept from before is cleared.
 */
export async function checkGroupsClaim(user: Pick<User, 'id' | 'username' | 'role'>, identity: Identity, now: Date): Promise<void> {
  const oidc = config.auth.oidc;
  const settings = oidc ? groupSettings(oidc) : [];
  if (!oidc || settings.length === 0) return;
  if (identity.groupsClaimed) {
    await clearSignOnWarning(GROUPS_MISSING);
    return;
  }
  const message = groupsMissingMessage(oidc, settings);
  logger.warn({ message: 'sign-on: no groups claim', detail: message, subject: identity.subject, scopes: oidc.scopes.join(' ') });
  await Promise.all([
    recordUserAction(
      user,
      { action: 'sso.groups_missing', target: identity.subject, outcome: 'failure', status: 200, detail: `Signed in as ${user.role}. ${message}` },
      now,
    ),
    noteSignOnWarning({ code: GROUPS_MISSING, message, last_seen_at: now.toISOString() }),
  ]);
}

/**
 * GET /api/auth/config: how one may log in, for anyone; for an admin, also what sign-on noticed
 * about its configuration (`sso.warnings`).
 */
export async function loginSettings(viewer: Pick<User, 'role'> | undefined) {
  const settings = authSettings();
  if (!settings.sso.enabled || (viewer?.role !== 'admin' && viewer?.role !== 'super_admin')) return settings;
  const warnings: SignOnWarning[] = await listSignOnWarnings();
  return { ...settings, sso: { ...settings.sso, warnings } };
}
