import { memberBudgetOwner } from '../../tables/budgets';
import type { ApiKey } from '../../tables/keys';
import type { Membership } from '../../tables/teams';
import type { User } from '../../tables/users';
import type { NamedLimit } from '../budgets/rate-limits';
import type { Budget } from '../budgets/reservations';

/**
 * The levels a call counts against, from what the caller's one round of reads gave (the key's
 * lookup, and the user's partition: profile and memberships with copies of their teams' budgets and
 * limits). Nothing here reads the table.
 *
 *   - the key (when the call came with one): its spend always (GET /api/keys shows it), its budget and
 *     its rpm/tpm limits when set;
 *   - the user: their budget when they have one (it saves every other call a write; a budget set later
 *     starts from their usage, lib/users/service.ts);
 *   - each team the call counts in, and the user within it (the member's level): their spend always
 *     (the team's page shows both), their budgets and the team's limits when set. A team key's call
 *     counts in its own team; every other call of a member (a personal key, a session chat turn) in
 *     each of their teams, so a team's budget caps everything its members spend.
 *
 * A membership here is one the organisation or the user decided: an admin's add, a sign-on group (the
 * identity provider's), or an invitation the user accepted. A pending invitation is not one (it is
 * not in the user's partition at all, tables/invitations.ts), so a team that merely invited someone
 * holds none of their calls to its budgets or rate limits.
 */

/**
 * Who pays for a call: the caller with their team memberships, and the API key it came with (none for
 * the session chat).
 */
export interface Payer {
  user: User;
  memberships: Membership[];
  key?: ApiKey;
}

/** The teams a payer's call counts in: a team key's own team, or every team the caller has joined. */
export function teamsOf(payer: Payer): Membership[] {
  const teamId = payer.key?.team_id;
  return teamId ? payer.memberships.filter((m) => m.team_id === teamId) : payer.memberships;
}

/** The usage scopes of the teams a call counts in (GET /api/usage/current?teamId=). */
export const teamScopesOf = (payer: Payer) => teamsOf(payer).map((m) => ({ kind: 'team' as const, id: m.team_id }));

export function budgetsOf(payer: Payer): Budget[] {
  const budgets: Budget[] = payer.key ? [{ owner: { kind: 'key', id: payer.key.id }, budgetUsd: payer.key.monthly_budget_usd }] : [];
  if (payer.user.monthly_budget_usd !== null) budgets.push({ owner: { kind: 'user', id: payer.user.id }, budgetUsd: payer.user.monthly_budget_usd });
  for (const m of teamsOf(payer)) {
    budgets.push({ owner: memberBudgetOwner(m.team_id, payer.user.id), budgetUsd: m.monthly_budget_usd, teamName: m.team.name });
    budgets.push({ owner: { kind: 'team', id: m.team_id }, budgetUsd: m.team.monthly_budget_usd, teamName: m.team.name });
  }
  return budgets;
}

export function rateLimitsOf(payer: Payer): NamedLimit[] {
  const limits: NamedLimit[] = [];
  const key = payer.key;
  if (key && (key.rpm_limit !== null || key.tpm_limit !== null)) {
    limits.push({ level: { kind: 'key', id: key.id }, rpm: key.rpm_limit, tpm: key.tpm_limit, label: 'this API key' });
  }
  for (const m of teamsOf(payer)) {
    if (m.team.rpm_limit === null && m.team.tpm_limit === null) continue;
    limits.push({ level: { kind: 'team', id: m.team_id }, rpm: m.team.rpm_limit, tpm: m.team.tpm_limit, label: `team '${m.team.name}'` });
  }
  return limits;
}

/** How a refusal names the level that refused: the key, your user budget, your budget in a team, the team. */
export const refusalOf = (payer: Payer) => (budget: Budget) => {
  const what = payer.key ? 'this request' : 'this message';
  switch (budget.owner.kind) {
    case 'key':
      return `The monthly budget of this API key cannot cover ${what}`;
    case 'user':
      return `Your monthly user budget cannot cover ${what}`;
    case 'member':
      return `Your monthly budget in team '${budget.teamName}' cannot cover ${what}`;
    case 'team':
      return `The monthly budget of team '${budget.teamName}' cannot cover ${what}`;
  }
};
