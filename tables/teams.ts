import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db, decodeCursor, deleteItems, encodeCursor, getItems, queryIndexPage, queryPartition, type ItemKey } from './client';
import { USER_PROFILE_SK, teamPartition, userPartition } from './partitions';
import { DataError } from './errors';
import { cancellationReasons, transactWrite, type TransactItems } from './transactions';
import { userFromItem, type StoredUser } from './users';

/**
 * Teams and their members.
 *
 *   PK TEAM#<id>          SK META              the team: name, budget, limits, `version` (GSI1 TEAMS /
 *                                              <created_at>#<id>: every team, for admins), `active_keys`
 *   PK TEAMNAME#<lower>   SK UNIQUE            guards the name (case-insensitive), like usernames
 *   PK TEAM#<teamId>      SK MEMBER#<userId>   a membership as the team sees it (its members list):
 *                                              role, the member's budget, username and e-mail
 *   PK USER#<userId>      SK TEAM#<teamId>     the same membership as the user sees it, beside their
 *                                              profile, with copies of the team's name, budget and
 *                                              limits (`team_*`, as of `team_version`)
 *
 * Why two items per membership, and copies. A model call must know, in one round of reads, every
 * budget and limit it counts against: the user (who may be deactivated any moment, so read every
 * time), their memberships and their teams'. A Query of the user's partition returns the profile and
 * every membership with the team's figures in one request, strongly consistent, for the price of the
 * GetItem it replaces (one read unit up to 4 KB: a profile and a dozen memberships). The team's side
 * lists a team's members with a Query of its own partition, which also holds the team item. Both
 * sides are written in one transaction, so they never disagree; no index is involved, so neither side
 * lags behind a write (a GSI would, for a moment).
 *
 * The copies follow the team item: a change of the team's name, budget or limits bumps its `version`
 * and is then written to every member's copy (`propagateTeam`), each write conditional on the copy
 * being older, so repeated or overlapping propagations leave the newest. A member added while a
 * change is under way cannot keep old figures: the add is conditional on the version it copied.
 * Propagation follows the team's write before the PATCH answers; if that request dies midway, the
 * copies it did not reach stay behind until the next change (or a repeat of the PATCH) writes them:
 * the team item stays the source of truth, and `team_version` says how old a copy is.
 *
 * `active_keys` counts the team's unrevoked API keys (tables/keys.ts changes it in the key's own
 * transactions), so that deleting a team can refuse, in one condition, while keys still spend on it.
 * Deleting marks the team `deleting` first (no member or key may join it after), removes the
 * memberships, then the team: a deletion cut short is finished by the next DELETE.
 */

export type TeamRole = 'owner' | 'member';
/** Bedrock's processing tiers as the service names them (lib/calls/tiers.ts): Standard, Flex, Priority. */
export type ServiceTierName = 'default' | 'flex' | 'priority';
/**
 * How a membership came about: added by an admin (`manual`; before invitations, by an owner too), by a
 * sign-on group (`sso`), or by the user accepting an owner's invitation (`invitation`).
 */
export type MembershipSource = 'manual' | 'sso' | 'invitation';

export interface Team {
  id: string;
  name: string;
  monthly_budget_usd: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
  /** The processing tiers the team's calls may use; null: every tier. */
  allowed_service_tiers: ServiceTierName[] | null;
  created_at: string;
  updated_at: string;
  active_keys: number;
  version: number;
  /** Set while a deletion is under way. */
  deleting_since: string | null;
}

export type TeamPatch = Partial<Pick<Team, 'name' | 'monthly_budget_usd' | 'rpm_limit' | 'tpm_limit' | 'allowed_service_tiers'>>;

/** A membership as the team sees it. */
export interface Member {
  team_id: string;
  user_id: string;
  username: string;
  email: string;
  role: TeamRole;
  monthly_budget_usd: number | null;
  source: MembershipSource;
  joined_at: string;
  updated_at: string;
}

export type MemberPatch = Partial<Pick<Member, 'role' | 'monthly_budget_usd' | 'source'>>;

/** A membership as the user sees it: their role and budget, and the team's figures as copied. */
export interface Membership {
  team_id: string;
  role: TeamRole;
  monthly_budget_usd: number | null;
  source: MembershipSource;
  joined_at: string;
  team: {
    name: string;
    monthly_budget_usd: number | null;
    rpm_limit: number | null;
    tpm_limit: number | null;
    allowed_service_tiers: ServiceTierName[] | null;
    version: number;
  };
}

const teamKey = (id: string) => ({ PK: teamPartition(id), SK: 'META' });
const nameKey = (name: string) => ({ PK: `TEAMNAME#${name.toLowerCase()}`, SK: 'UNIQUE' });
const MEMBER_PREFIX = 'MEMBER#';
const memberKey = (teamId: string, userId: string) => ({ PK: teamPartition(teamId), SK: `${MEMBER_PREFIX}${userId}` });
const MEMBERSHIP_PREFIX = 'TEAM#';
const membershipKey = (userId: string, teamId: string) => ({ PK: userPartition(userId), SK: `${MEMBERSHIP_PREFIX}${teamId}` });
const TEAMS_PARTITION = 'TEAMS';

const num = (v: unknown) => (v === undefined || v === null ? null : Number(v));
const tiers = (v: unknown) => (Array.isArray(v) && v.length > 0 ? (v as ServiceTierName[]) : null);

function teamFromItem(item: Record<string, unknown>): Team {
  return {
    id: item.id as string,
    name: item.name as string,
    monthly_budget_usd: num(item.monthly_budget_usd),
    rpm_limit: num(item.rpm_limit),
    tpm_limit: num(item.tpm_limit),
    allowed_service_tiers: tiers(item.allowed_service_tiers),
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
    active_keys: Number(item.active_keys ?? 0),
    version: Number(item.version ?? 1),
    deleting_since: (item.deleting_since as string | undefined) ?? null,
  };
}

function memberFromItem(item: Record<string, unknown>): Member {
  return {
    team_id: item.team_id as string,
    user_id: item.user_id as string,
    username: item.username as string,
    email: item.email as string,
    role: item.role as TeamRole,
    monthly_budget_usd: num(item.monthly_budget_usd),
    source: (item.source as MembershipSource | undefined) ?? 'manual',
    joined_at: item.joined_at as string,
    updated_at: (item.updated_at as string | undefined) ?? (item.joined_at as string),
  };
}

function membershipFromItem(item: Record<string, unknown>): Membership {
  return {
    team_id: item.team_id as string,
    role: item.role as TeamRole,
    monthly_budget_usd: num(item.monthly_budget_usd),
    source: (item.source as MembershipSource | undefined) ?? 'manual',
    joined_at: item.joined_at as string,
    team: {
      name: item.team_name as string,
      monthly_budget_usd: num(item.team_budget_usd),
      rpm_limit: num(item.team_rpm_limit),
      tpm_limit: num(item.team_tpm_limit),
      allowed_service_tiers: tiers(item.team_allowed_service_tiers),
      version: Number(item.team_version ?? 0),
    },
  };
}

/** The team's figures as a membership copies them. */
const teamCopies = (team: Team) => ({
  team_name: team.name,
  team_budget_usd: team.monthly_budget_usd,
  team_rpm_limit: team.rpm_limit,
  team_tpm_limit: team.tpm_limit,
  team_allowed_service_tiers: team.allowed_service_tiers,
  team_version: team.version,
});

// ------------------------------------------------------------------------------------------- teams

/** Creates a team and its name guard in one transaction. */
export async function insertTeam(team: Team): Promise<void> {
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: TABLE,
              Item: {
                ...teamKey(team.id),
                entity: 'team',
                GSI1PK: TEAMS_PARTITION,
                GSI1SK: `${team.created_at}#${team.id}`,
                ...team,
                deleting_since: undefined,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: TABLE,
              Item: { ...nameKey(team.name), entity: 'team-name', teamId: team.id },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        ],
      }),
    );
  } catch (err) {
    if (cancellationReasons(err)?.[1] === 'ConditionalCheckFailed') throw new DataError('NameTaken', 'A team with this name already exists');
    throw err;
  }
}

export async function getTeam(id: string): Promise<Team | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: teamKey(id), ConsistentRead: true }));
  return Item ? teamFromItem(Item) : undefined;
}

/** The team of a name (any case): its guard, then the team. */
export async function getTeamByName(name: string): Promise<Team | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: nameKey(name), ConsistentRead: true }));
  return Item ? getTeam(Item.teamId as string) : undefined;
}

/** Several teams by id, in one BatchGet; missing ones are left out. */
export async function getTeams(ids: string[]): Promise<Map<string, Team>> {
  const items = await getItems(ids.map(teamKey));
  return new Map(ids.flatMap((id) => (items(teamKey(id)) ? [[id, teamFromItem(items(teamKey(id)) as Record<string, unknown>)] as const] : [])));
}

/** Every team, oldest first (GSI1), one page. */
export async function listTeams(limit: number, cursor?: string): Promise<{ teams: Team[]; nextCursor: string | null }> {
  const { items, nextCursor } = await queryIndexPage(TEAMS_PARTITION, { forward: true, limit, cursor });
  return { teams: items.map(teamFromItem), nextCursor };
}

/** The team and one user's membership of it, in one BatchGet: what every access check needs. */
export async function getTeamAndMember(teamId: string, userId: string): Promise<{ team?: Team; member?: Member }> {
  const items = await getItems([teamKey(teamId), memberKey(teamId, userId)]);
  const team = items(teamKey(teamId));
  const member = items(memberKey(teamId, userId));
  return { team: team && teamFromItem(team), member: member && memberFromItem(member) };
}

/**
 * Changes a team as it was read (`current`): conditional on its version, which it bumps, and, when
 * the name changes, moving the name guard in the same transaction. Returns the team as written; its
 * members' copies are then brought up to date with `propagateTeam`.
 */
export async function updateTeam(current: Team, patch: TeamPatch, at: string): Promise<Team> {
  const next: Team = { ...current, ...patch, updated_at: at, version: current.version + 1 };
  const fields = Object.entries({ ...patch, updated_at: at, version: next.version });
  const renamed = patch.name !== undefined && patch.name.toLowerCase() !== current.name.toLowerCase();
  const items: TransactItems = [
    {
      Update: {
        TableName: TABLE,
        Key: teamKey(current.id),
        UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK) AND #version = :version AND attribute_not_exists(deleting_since)',
        ExpressionAttributeNames: { ...Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k])), '#version': 'version' },
        ExpressionAttributeValues: { ...Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v])), ':version': current.version },
      },
    },
  ];
  if (renamed) {
    items.push(
      {
        Delete: {
          TableName: TABLE,
          Key: nameKey(current.name),
          ConditionExpression: 'teamId = :id',
          ExpressionAttributeValues: { ':id': current.id },
        },
      },
      {
        Put: {
          TableName: TABLE,
          Item: { ...nameKey(next.name), entity: 'team-name', teamId: current.id },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    );
  }
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    const reasons = cancellationReasons(err);
    if (reasons?.[0] === 'ConditionalCheckFailed')
      throw new DataError('StaleWrite', 'The team was changed by another request; read it again and retry');
    if (reasons?.[2] === 'ConditionalCheckFailed') throw new DataError('NameTaken', 'A team with this name already exists');
    throw err;
  }
  return next;
}

/** Every member's user id, all pages (propagation and deletion). */
async function memberIds(teamId: string): Promise<string[]> {
  const items = await queryPartition(teamPartition(teamId), { prefix: MEMBER_PREFIX, projection: 'user_id' });
  return items.map((i) => i.user_id as string);
}

/** Runs `work` on every item, `width` at a time. */
async function inBatches<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(work));
}

/**
 * Writes the team's figures to every member's copy (after `updateTeam`). Each write is conditional on
 * the copy being older than `team.version`, so a slower, older propagation never overwrites a newer
 * one, and a membership removed meanwhile is not brought back.
 */
export async function propagateTeam(team: Team): Promise<void> {
  const copies = teamCopies(team);
  const names = Object.keys(copies);
  await inBatches(await memberIds(team.id), 10, async (userId) => {
    try {
      await db.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: membershipKey(userId, team.id),
          UpdateExpression: `SET ${names.map((n) => `${n} = :${n}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(team_version) OR team_version < :team_version)',
          ExpressionAttributeValues: Object.fromEntries(Object.entries(copies).map(([k, v]) => [`:${k}`, v])),
        }),
      );
    } catch (err) {
      if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
    }
  });
}

/**
 * The first step of deleting a team: marks it, conditional on it having no active API key, so that
 * no member or key can join it from now on. Marking a team already marked changes nothing.
 */
export async function markTeamDeleting(team: Team, at: string): Promise<Team> {
  if (team.deleting_since) return team;
  try {
    await db.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: teamKey(team.id),
        UpdateExpression: 'SET deleting_since = :at',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(active_keys) OR active_keys <= :zero)',
        ExpressionAttributeValues: { ':at': at, ':zero': 0 },
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
    const now = await getTeam(team.id);
    if (!now) throw new DataError('ItemNotFound', 'Team not found');
    const keys = now.active_keys;
    throw new DataError(
      'RuleViolation',
      `The team still has ${keys} active API key${keys === 1 ? '' : 's'}`,
      "Revoke the team's keys first (GET /api/keys?team_id=...): a team is deleted only when nothing can spend on it",
    );
  }
  return { ...team, deleting_since: at };
}

/** The rest of a deletion (after `markTeamDeleting`): every membership (both sides), then the team and its name. */
export async function deleteMarkedTeam(team: Team): Promise<void> {
  const deletes = (await memberIds(team.id)).flatMap((userId) => [memberKey(team.id, userId), membershipKey(userId, team.id)]);
  await deleteItems(deletes);
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: TABLE, Key: teamKey(team.id), ConditionExpression: 'attribute_exists(deleting_since)' } },
          {
            Delete: { TableName: TABLE, Key: nameKey(team.name), ConditionExpression: 'teamId = :id', ExpressionAttributeValues: { ':id': team.id } },
          },
        ],
      }),
    );
  } catch (err) {
    // Another DELETE finished first.
    if (!cancellationReasons(err)?.includes('ConditionalCheckFailed')) throw err;
  }
}

// ----------------------------------------------------------------------------------------- members

/**
 * What else a member's insertion must do in its transaction (an invitation consumed:
 * tables/invitations.ts), and the error when one of those items' conditions fails.
 */
export interface AlongWithMember {
  items: TransactItems;
  refused: () => DataError;
}

/**
 * Adds a member: both sides in one transaction, the user's side with the team's figures, conditional
 * on the team being at the version copied (re-read and retried when a change came between) and not
 * being deleted, and on the user not being a member yet (409 otherwise). `along` joins the same
 * transaction, so the membership exists only if they are written too.
 */
export async function insertMember(member: Member, along?: AlongWithMember): Promise<Team> {
  for (let attempt = 0; ; attempt++) {
    const team = await getTeam(member.team_id);
    if (!team) throw new DataError('ItemNotFound', 'Team not found');
    if (team.deleting_since) throw new DataError('RuleViolation', 'The team is being deleted');
    const { team_id, user_id, role, monthly_budget_usd, source, joined_at } = member;
    try {
      await transactWrite([
        {
          ConditionCheck: {
            TableName: TABLE,
            Key: teamKey(team.id),
            ConditionExpression: '#version = :version AND attribute_not_exists(deleting_since)',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':version': team.version },
          },
        },
        {
          Put: {
            TableName: TABLE,
            Item: { ...memberKey(team_id, user_id), entity: 'team-member', ...member },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        {
          Put: {
            TableName: TABLE,
            Item: {
              ...membershipKey(user_id, team_id),
              entity: 'team-membership',
              team_id,
              role,
              monthly_budget_usd,
              source,
              joined_at,
              ...teamCopies(team),
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        ...(along?.items ?? []),
      ]);
      return team;
    } catch (err) {
      const reasons = cancellationReasons(err);
      if (along && reasons?.slice(3).includes('ConditionalCheckFailed')) throw along.refused();
      if (reasons?.[1] === 'ConditionalCheckFailed' || reasons?.[2] === 'ConditionalCheckFailed') {
        throw new DataError('NameTaken', 'The user is already a member of this team', 'Change their role or budget with PATCH instead');
      }
      if (reasons?.[0] === 'ConditionalCheckFailed' && attempt < 5) continue;
      throw err;
    }
  }
}

/** Changes a membership, both sides in one transaction; 404 when it is gone. */
export async function updateMember(teamId: string, userId: string, patch: MemberPatch, at: string): Promise<void> {
  const fields = Object.entries({ ...patch, updated_at: at });
  const update = (Key: ItemKey): TransactItems[number] => ({
    Update: {
      TableName: TABLE,
      Key,
      UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k])),
      ExpressionAttributeValues: Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v])),
    },
  });
  try {
    await transactWrite([update(memberKey(teamId, userId)), update(membershipKey(userId, teamId))]);
  } catch (err) {
    if (cancellationReasons(err)?.includes('ConditionalCheckFailed')) throw new DataError('ItemNotFound', 'The user is not a member of this team');
    throw err;
  }
}

/** Removes a membership, both sides in one transaction; 404 when it is already gone. */
export async function deleteMember(teamId: string, userId: string): Promise<void> {
  try {
    await transactWrite([
      { Delete: { TableName: TABLE, Key: memberKey(teamId, userId), ConditionExpression: 'attribute_exists(PK)' } },
      { Delete: { TableName: TABLE, Key: membershipKey(userId, teamId) } },
    ]);
  } catch (err) {
    if (cancellationReasons(err)?.[0] === 'ConditionalCheckFailed') throw new DataError('ItemNotFound', 'The user is not a member of this team');
    throw err;
  }
}

/** A team's members, in user id order, one page (the team's own partition: strongly consistent). */
export async function listMembers(teamId: string, limit: number, cursor?: string): Promise<{ members: Member[]; nextCursor: string | null }> {
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': teamPartition(teamId), ':prefix': MEMBER_PREFIX },
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK'], { PK: teamPartition(teamId) }),
    }),
  );
  return { members: Items.map(memberFromItem), nextCursor: encodeCursor(LastEvaluatedKey) };
}

/** A user's memberships, in team id order, one page (the user's own partition). */
export async function listMemberships(
  userId: string,
  limit: number,
  cursor?: string,
): Promise<{ memberships: Membership[]; nextCursor: string | null }> {
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': userPartition(userId), ':prefix': MEMBERSHIP_PREFIX },
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK'], { PK: userPartition(userId) }),
    }),
  );
  return { memberships: Items.map(membershipFromItem), nextCursor: encodeCursor(LastEvaluatedKey) };
}

/** Every item of the user's partition, or only its memberships (TEAM#): strongly consistent, all pages. */
function userPartitionItems(userId: string, membershipsOnly: boolean): Promise<Record<string, unknown>[]> {
  return queryPartition(userPartition(userId), membershipsOnly ? { prefix: MEMBERSHIP_PREFIX } : {});
}

/**
 * The call path's read of a user: the profile and every membership with its team's figures, in one
 * strongly consistent Query of the user's partition (one request, one read unit while the partition
 * is under 4 KB; further pages only for a user in dozens of teams). No profile: the user does not exist.
 */
export async function readUserWithMemberships(userId: string): Promise<{ user: StoredUser | undefined; memberships: Membership[] }> {
  let user: StoredUser | undefined;
  const memberships: Membership[] = [];
  for (const item of await userPartitionItems(userId, false)) {
    if (item.SK === USER_PROFILE_SK) user = userFromItem(item);
    else if (String(item.SK).startsWith(MEMBERSHIP_PREFIX)) memberships.push(membershipFromItem(item));
  }
  return { user, memberships };
}

/**
 * A user's memberships alone (the session chat turn reads them beside its context; its user was read
 * by the authentication): the same Query, from the partition's TEAM# items.
 */
export async function readMemberships(userId: string): Promise<Membership[]> {
  return (await userPartitionItems(userId, true)).map(membershipFromItem);
}

// ------------------------------------------------------------------------ for tables/keys.ts (keys)

/** A key joining (+1) or leaving (-1) the team's active keys; joining needs the team not being deleted. */
export function teamActiveKeysUpdate(teamId: string, delta: 1 | -1): TransactItems[number] {
  return {
    Update: {
      TableName: TABLE,
      Key: teamKey(teamId),
      UpdateExpression: 'ADD active_keys :delta',
      ConditionExpression: delta > 0 ? 'attribute_exists(PK) AND attribute_not_exists(deleting_since)' : 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

/** A condition, inside a transaction, that the user is a member of the team. */
export function memberCheck(teamId: string, userId: string): TransactItems[number] {
  return { ConditionCheck: { TableName: TABLE, Key: memberKey(teamId, userId), ConditionExpression: 'attribute_exists(PK)' } };
}
