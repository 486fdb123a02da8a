import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { GSI1, TABLE, db, decodeCursor, deleteItems, encodeCursor, queryPartition, type ItemKey } from './client';
import { teamPartition } from './partitions';
import { attribute, defineEntity, type RecordOf } from './entity';
import { DataError } from './errors';
import type { TeamRole } from './teams';
import { cancellationReasons, transactWrite, type TransactItems } from './transactions';

/**
 * Invitations to a team: an owner (or admin) invites, the invited user accepts or declines.
 *
 *   PK TEAM#<teamId>   SK INVITE#<id>          the invitation (GSI1 INVITES#<userId> / <created_at>#<id>:
 *                                              the invited user's list; only when the name resolved)
 *   PK TEAM#<teamId>   SK INVITED#<invitee>    one pending invitation per invitee as named: its id
 *
 * Both live in the team's partition, beside its members, so a team's invitations are one Query and
 * go with the team. Neither is in the user's partition: the call path reads that partition whole
 * (tables/teams.ts, readUserWithMemberships), and an invitation must cost a user nothing, in reads or
 * in limits, until they accept it. Accepting writes the membership and deletes both items in one
 * transaction (tables/writes/invitations.ts), so an invitation is used once and a membership never exists without it.
 *
 * The guard is keyed by the invitee *as named* (a user id, or a lower-cased username or e-mail), not
 * by the user it resolves to: a second invitation of the same name is a 409 whether or not an account
 * answers to it, so the answer never tells an owner that an account exists (or that a username and an
 * address are the same person's). An invitation expires: `expires_at` is checked on every read and
 * write, and the table's TTL (`ttl`) removes both items some time after.
 */

const INVITATION = defineEntity({
  id: attribute.as<string>(),
  team_id: attribute.as<string>(),
  /** Who was invited, as the inviter named them: a user id, or a lower-cased username or e-mail address. */
  invitee: attribute.as<string>(),
  /** Whether `invitee` is a user id (else a username or an e-mail address). */
  named_by_id: attribute.read((stored) => stored === true),
  /** The user the name resolved to when the invitation was made; null when no account answers to it. */
  user_id: attribute.nullable<string>(),
  role: attribute.as<TeamRole>(),
  monthly_budget_usd: attribute.nullableNumber(),
  invited_by: attribute.as<{ id: string; username: string }>(),
  created_at: attribute.as<string>(),
  expires_at: attribute.as<string>(),
});

export type Invitation = RecordOf<typeof INVITATION>;

const INVITE_PREFIX = 'INVITE#';
const invitationKey = (teamId: string, id: string) => ({ PK: teamPartition(teamId), SK: `${INVITE_PREFIX}${id}` });
const guardKey = (teamId: string, invitee: string) => ({ PK: teamPartition(teamId), SK: `INVITED#${invitee}` });
const userInvitations = (userId: string) => `INVITES#${userId}`;
const ttlOf = (iso: string) => Math.floor(Date.parse(iso) / 1000);

const invitationFromItem = (item: Record<string, unknown>): Invitation => INVITATION.read(item);

function invitationItem(inv: Invitation): Record<string, unknown> {
  return {
    ...invitationKey(inv.team_id, inv.id),
    entity: 'team-invitation',
    ...(inv.user_id ? { GSI1PK: userInvitations(inv.user_id), GSI1SK: `${inv.created_at}#${inv.id}` } : {}),
    ...inv,
    ttl: ttlOf(inv.expires_at),
  };
}

/**
 * Records an invitation, conditional on the team existing and not being deleted, and on no pending
 * invitation of the same name (an expired one's guard is taken over). 409 otherwise.
 */
export async function insertInvitation(inv: Invitation): Promise<void> {
  try {
    await transactWrite([
      {
        ConditionCheck: {
          TableName: TABLE,
          Key: { PK: teamPartition(inv.team_id), SK: 'META' },
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(deleting_since)',
        },
      },
      {
        Put: {
          TableName: TABLE,
          Item: {
            ...guardKey(inv.team_id, inv.invitee),
            entity: 'team-invitation-guard',
            invitation_id: inv.id,
            ttl: ttlOf(inv.expires_at),
            expires_at: inv.expires_at,
          },
          ConditionExpression: 'attribute_not_exists(PK) OR expires_at <= :now',
          ExpressionAttributeValues: { ':now': inv.created_at },
        },
      },
      { Put: { TableName: TABLE, Item: invitationItem(inv), ConditionExpression: 'attribute_not_exists(PK)' } },
    ]);
  } catch (err) {
    const reasons = cancellationReasons(err);
    if (reasons?.[0] === 'ConditionalCheckFailed') throw new DataError('ItemNotFound', 'Team not found');
    if (reasons?.[1] === 'ConditionalCheckFailed') {
      throw new DataError('NameTaken', 'This user already has a pending invitation to the team', 'Revoke it first to invite them again');
    }
    throw err;
  }
}

/** An invitation by id, expired or not (the caller decides what an expired one means). */
export async function getInvitation(teamId: string, id: string): Promise<Invitation | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: invitationKey(teamId, id), ConsistentRead: true }));
  return Item ? invitationFromItem(Item) : undefined;
}

/** The writes that use an invitation up: it and its guard go, if it is still there, pending and for this user. */
export function consumeWrites(inv: Invitation, userId: string | null, now: string): TransactItems {
  return [
    {
      Delete: {
        TableName: TABLE,
        Key: invitationKey(inv.team_id, inv.id),
        ConditionExpression: `attribute_exists(PK) AND expires_at > :now${userId ? ' AND user_id = :user' : ''}`,
        ExpressionAttributeValues: { ':now': now, ...(userId ? { ':user': userId } : {}) },
      },
    },
    {
      Delete: {
        TableName: TABLE,
        Key: guardKey(inv.team_id, inv.invitee),
        ConditionExpression: 'attribute_not_exists(PK) OR invitation_id = :id',
        ExpressionAttributeValues: { ':id': inv.id },
      },
    },
  ];
}

export const invitationGone = () => new DataError('ItemNotFound', 'Invitation not found');

/**
 * Ends a pending invitation without a membership (declined by the invitee, `userId`, or revoked by
 * an owner or admin, `userId` null). 404 when it is no longer pending.
 */
export async function removeInvitation(inv: Invitation, userId: string | null, now: string): Promise<void> {
  try {
    await transactWrite(consumeWrites(inv, userId, now));
  } catch (err) {
    if (cancellationReasons(err)?.includes('ConditionalCheckFailed')) throw invitationGone();
    throw err;
  }
}

type Page = { invitations: Invitation[]; nextCursor: string | null };

/** A team's pending invitations, oldest id first, one page (the team's partition: strongly consistent). */
export async function listTeamInvitations(teamId: string, now: string, limit: number, cursor?: string): Promise<Page> {
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      FilterExpression: 'expires_at > :now',
      ExpressionAttributeValues: { ':pk': teamPartition(teamId), ':prefix': INVITE_PREFIX, ':now': now },
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK'], { PK: teamPartition(teamId) }),
    }),
  );
  return { invitations: Items.map(invitationFromItem), nextCursor: encodeCursor(LastEvaluatedKey) };
}

/**
 * A user's pending invitations, newest first, one page (GSI1: an invitation someone else just made
 * may take a moment to show; one just accepted or declined is checked again when used).
 */
export async function listUserInvitations(userId: string, now: string, limit: number, cursor?: string): Promise<Page> {
  const partition = userInvitations(userId);
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: GSI1,
      KeyConditionExpression: 'GSI1PK = :p',
      FilterExpression: 'expires_at > :now',
      ExpressionAttributeValues: { ':p': partition, ':now': now },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK', 'GSI1PK', 'GSI1SK'], { GSI1PK: partition }),
    }),
  );
  return { invitations: Items.map(invitationFromItem), nextCursor: encodeCursor(LastEvaluatedKey) };
}

/** Every invitation of a team and its guards, pending or expired, deleted (the team is being deleted). */
export async function deleteTeamInvitations(teamId: string): Promise<void> {
  // INVITE#<id> and INVITED#<invitee> both begin with it, and nothing else of a team does.
  const keys = await queryPartition(teamPartition(teamId), { prefix: 'INVITE', projection: 'PK, SK' });
  await deleteItems(keys as ItemKey[]);
}
