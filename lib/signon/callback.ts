/**
 * Single sign-on (issue 25): an OpenID Connect identity (lib/auth/oidc.ts) becomes this service's
 * user and its own 24-hour token, exactly as a password login would give it.
 *
 * - First login: only with an e-mail address the provider vouches for (`email_verified`): the user
 *   is provisioned (username from `preferred_username`, else the e-mail's local part, made unique;
 *   e-mail and name from the claims; no password), or an existing account with the same e-mail is
 *   linked instead (looked up by e-mail only). Otherwise anyone able to register that address at the
 *   provider would take the account over, or squat it before its owner arrives.
 * - Every login: the role follows the groups claim when role groups are configured
 *   (OIDC_SUPER_ADMIN_GROUPS, then OIDC_ADMIN_GROUPS, else user; neither set: roles are managed here
 *   by hand and sign-on leaves them alone). The last active super_admin is never demoted (the rule
 *   every role change keeps): the login goes on with the role kept, and the audit log says why.
 * - Every login, with OIDC_TEAM_GROUPS_PREFIX: a group `<prefix><name>` makes the user a member of the
 *   team `<name>` (which an admin must have created: a group never conjures a team, whose budget and
 *   limits are an admin's decision); memberships that came from sign-on and whose group is gone are
 *   removed (with the member's keys of that team, as any removal). Memberships an owner or admin gave
 *   by hand are never touched.
 *
 * - Every login, with groups mapped: a missing groups claim is audited and logged, and shown to admins
 *   (lib/signon/warnings.ts).
 *
 * Each of these is in the audit log with the user as the actor (`sso.user_provisioned`,
 * `sso.user_linked`, `sso.role_change`, `sso.team_join`, `sso.team_leave`, `sso.groups_missing`, `sso.login`).
 *
 * How the token reaches the console: a redirect to the console with the token in the URL fragment
 * (`/login#sso_token=...&sso_nonce=...`). A fragment is never sent to any server (so no access log,
 * proxy or CloudFront log holds it) nor in a Referer; the console reads it at once, keeps it as it
 * keeps a password login's token (sessionStorage), and removes it from the address bar and history.
 * A failure goes back the same way as words (`#sso_error=...&sso_nonce=...`), and issues no token.
 * `sso_nonce` is the console's own, from the flow cookie (lib/signon/start.ts, handOff): the console
 * takes a hand-off only with the nonce it stored when it sent the browser off, so a link carrying
 * someone else's token (login CSRF) or an error of their wording is ignored.
 */
import { createHash } from 'node:crypto';
import { config, type OidcConfig } from '../../core/config';
import { MetricUnit, metrics } from '../../core/observability';
import { getTeamByName, listMemberships, type Team } from '../../tables/teams';
import { getUserByEmail, getUserById, getUserIdByIdentity, linkIdentity, recordLogin, type Role, type StoredUser } from '../../tables/users';
import { isDataError } from '../../tables/errors';
import { recordUserAction } from '../audit/user-action';
import { NotFound, isDomainError } from '../errors';
import { addMember, removeMember } from '../teams/service';
import { provisionUser, updateUser } from '../users/service';
import { SsoError, cookieHeader, finishFlow, flowCookieOf, oidcConfig, openFlow, type CallbackQuery, type Flow, type Identity } from '../auth/oidc';
import { describeFailure, handOff, type Redirect } from './start';
import { issueToken } from '../auth/tokens';
import { checkGroupsClaim } from './warnings';

/**
 * GET /api/auth/oidc/callback: the provider's answer. Always a redirect to the console, with the
 * token or with the reason it was refused, and the flow's cookie cleared either way.
 */
export async function completeSignOn(
  query: CallbackQuery,
  cookies: string[] | undefined,
  cookieHeaderValue: string | undefined,
  now = new Date(),
): Promise<Redirect> {
  if (!config.auth.oidc) throw new NotFound('Single sign-on is not configured');
  const cleared = cookieHeader('', 0);
  let flow: Flow | undefined;
  try {
    flow = await openFlow(flowCookieOf(cookies, cookieHeaderValue), now.getTime());
    const identity = await finishFlow(query, flow, now.getTime());
    const token = await signIn(identity, now);
    metrics.addMetric('SignOnLogins', MetricUnit.Count, 1);
    return { location: handOff({ token }, flow.consoleNonce, identity.next), cookie: cleared };
  } catch (err) {
    return { location: handOff({ error: describeFailure(err, 'callback') }, flow?.consoleNonce), cookie: cleared };
  }
}

/** The role the groups give, or undefined when no role groups are configured (roles are then managed by hand). */
export function roleFromGroups(groups: string[], oidc: Pick<OidcConfig, 'adminGroups' | 'superAdminGroups'> = oidcConfig()): Role | undefined {
  const { adminGroups, superAdminGroups } = oidc;
  if (adminGroups.length === 0 && superAdminGroups.length === 0) return undefined;
  if (groups.some((g) => superAdminGroups.includes(g))) return 'super_admin';
  if (groups.some((g) => adminGroups.includes(g))) return 'admin';
  return 'user';
}

/** The user, provisioned or updated from the identity, and the service's own token for them. */
async function signIn(identity: Identity, now: Date): Promise<string> {
  const role = roleFromGroups(identity.groups);
  const userId = await getUserIdByIdentity(identity);
  let user = userId ? await getUserById(userId) : await provision(identity, role ?? 'user', now);
  if (!user) throw new SsoError('The account this sign-on identity belonged to no longer exists; ask an administrator', 'user_gone');
  if (!user.is_active) {
    await recordUserAction(user, { action: 'sso.login', outcome: 'failure', status: 401, detail: 'Account is deactivated' }, now);
    throw new SsoError('Your account has been deactivated. Ask an administrator.', 'deactivated');
  }
  if (role && role !== user.role) user = await applyRole(user, role, identity.groups, now);
  const skipped = config.auth.oidc?.teamGroupsPrefix ? await syncTeams(user, identity.groups, config.auth.oidc.teamGroupsPrefix, now) : [];
  const [token] = await Promise.all([
    issueToken(user, now.getTime()),
    recordLogin(user.id, now.toISOString()),
    checkGroupsClaim(user, identity, now),
  ]);
  await recordUserAction(
    user,
    { action: 'sso.login', target: identity.subject, detail: skipped.length ? `Groups naming no team: ${skipped.join(', ')}` : undefined },
    now,
  );
  return token;
}

async function applyRole(user: StoredUser, role: Role, groups: string[], now: Date): Promise<StoredUser> {
  const detail = `${user.role} to ${role} (groups: ${groups.join(', ') || 'none'})`;
  try {
    await updateUser(user.id, { role }, now);
  } catch (err) {
    if (!isDataError(err, 'RuleViolation')) throw err;
    await recordUserAction(
      user,
      { action: 'sso.role_change', target: user.username, outcome: 'failure', detail: `${detail}: ${err.message}; the role is kept` },
      now,
    );
    return user;
  }
  const changed = { ...user, role };
  await recordUserAction(changed, { action: 'sso.role_change', target: user.username, detail }, now);
  return changed;
}

/**
 * A username from the claims: the preferred username, else the e-mail's local part, in the characters
 * usernames allow; on the second attempt (the first was taken), or when too short, with a suffix of
 * the identity's own (stable: the same person gets the same name every time it is needed).
 */
export function usernameFrom(identity: Pick<Identity, 'preferredUsername' | 'email' | 'issuer' | 'subject'>, attempt: 0 | 1): string {
  const source = identity.preferredUsername?.split('@')[0] || identity.email?.split('@')[0] || '';
  const clean = source
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 57);
  if (clean.length >= 3 && attempt === 0) return clean;
  return `${clean || 'user'}-${createHash('sha256').update(`${identity.issuer}#${identity.subject}`).digest('hex').slice(0, 6)}`;
}

/** An e-mail address, as far as it matters here: something before and after one `@`, no spaces. */
const ADDRESS = /^[^\s@]+@[^\s@]+$/;

/**
 * First login: link an existing account with the same e-mail, or create a new user. Either only
 * for an address the provider vouches for (`email_verified`): linking an unverified one would give the
 * account to whoever registered that address at the provider, and storing one would let them squat it
 * (the real owner, verified later, would be linked into their account). The claim is looked up as an
 * e-mail only: a claim `admin` must never find the user named admin.
 */
async function provision(identity: Identity, role: Role, now: Date): Promise<StoredUser | undefined> {
  const email = identity.email;
  if (!email || !ADDRESS.test(email)) {
    throw new SsoError('The identity provider did not share your e-mail address; it is needed to create your account', 'no_email');
  }
  if (!identity.emailVerified) {
    throw new SsoError(
      'The identity provider has not verified your e-mail address (email_verified), so no account can be created or linked with it; verify it there, or ask an administrator',
      'unverified_email',
    );
  }
  const existing = await getUserByEmail(email);
  if (existing) {
    await linkIdentity(identity, existing.id);
    await recordUserAction(
      existing,
      { action: 'sso.user_linked', target: existing.username, detail: `Linked to ${identity.issuer} subject ${identity.subject}` },
      now,
    );
    return existing;
  }
  for (const attempt of [0, 1] as const) {
    const username = usernameFrom(identity, attempt);
    try {
      const user = await provisionUser({ username, email, name: identity.name ?? username, role }, identity, now);
      await recordUserAction(user, { action: 'sso.user_provisioned', target: username, detail: `Role ${role}, from ${identity.issuer}` }, now);
      return getUserById(user.id);
    } catch (err) {
      if (!isDataError(err, 'NameTaken')) throw err;
      // Another login of the same identity won the race: that user is the one.
      const raced = await getUserIdByIdentity(identity);
      if (raced) return getUserById(raced);
      if (err.message !== 'Username is already taken') throw new SsoError('The sign-in could not be completed; please try again', 'provision_race');
    }
  }
  throw new SsoError('No username could be found for your account; ask an administrator to create it', 'username');
}

/**
 * Team memberships from groups: joins what the groups name, leaves what sign-on gave and the groups
 * no longer name. Returns the team names of groups that name no team.
 */
async function syncTeams(user: StoredUser, groups: string[], prefix: string, now: Date): Promise<string[]> {
  const names = [...new Set(groups.filter((g) => g.startsWith(prefix) && g.length > prefix.length).map((g) => g.slice(prefix.length)))];
  const found = await Promise.all(names.map(async (name) => [name, await getTeamByName(name)] as const));
  const teams = found.flatMap(([, t]) => (t && !t.deleting_since ? [t] : []));
  const skipped = found.flatMap(([name, t]) => (t ? [] : [name]));
  const memberships = [];
  let cursor: string | undefined;
  do {
    const page = await listMemberships(user.id, 100, cursor);
    memberships.push(...page.memberships);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const current = new Set(memberships.map((m) => m.team_id));
  const wanted = new Set(teams.map((t) => t.id));
  for (const team of teams.filter((t: Team) => !current.has(t.id))) {
    try {
      await addMember(team.id, { user_id: user.id, role: 'member', source: 'sso' }, now);
      await recordUserAction(user, { action: 'sso.team_join', target: team.name, detail: `From group ${prefix}${team.name}` }, now);
    } catch (err) {
      // A concurrent login of the same user joined first.
      if (!isDataError(err, 'NameTaken')) throw err;
    }
  }
  for (const left of memberships.filter((m) => m.source === 'sso' && !wanted.has(m.team_id))) {
    try {
      const { revoked_keys } = await removeMember(left.team_id, user.id, now);
      await recordUserAction(
        user,
        { action: 'sso.team_leave', target: left.team.name, detail: `No group ${prefix}${left.team.name}; ${revoked_keys} key(s) revoked` },
        now,
      );
    } catch (err) {
      if (!isDomainError(err, 'not_found')) throw err;
    }
  }
  return skipped;
}
