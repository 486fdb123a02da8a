import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { TABLE, db, decodeCursor, encodeCursor, getItems, queryPartition } from './client';
import { attribute, defineEntity, type RecordOf } from './entity';
import { spendOfItem, type BudgetOwner, type SpendImage } from './budgets';

/**
 * Budget alerts: where they go, when a budget asks for them, what was sent.
 *
 *   PK ALERTCHANNELS                    SK CH#<channelId>      a channel (webhook, sns, email); admins list them
 *   PK ALERTCFG#<KIND>#<ownerId>        SK THRESHOLDS          a budget's alert_thresholds (absent: the default)
 *   PK ALERT#<KIND>#<ownerId>           SK T#<yyyy-mm>#<t>     a threshold's event: its put is the claim
 *   PK ALERTEVENT#<eventId>             SK EVENT               any other event (a channel test, endpoint.stopped, orphan.found)
 *   PK ALERTDELIVERIES                  SK D#<at>#<eventId>#<channelId>   one delivery of an event to a channel
 *
 * A threshold fires once per scope and month however many concurrent calls cross it: the event's item
 * is put conditional on not existing, and only the put that creates it fires. Every event item
 * (entity alert-event) reaches the alert deliverer through the table's stream (functions/alerts/
 * stream.yml), so an event once claimed is delivered even if the function that claimed it dies.
 * Channels and deliveries are each one partition: a service has a handful of channels and a few
 * deliveries per budget per month.
 */

type AlertChannelType = 'webhook' | 'sns' | 'email';

const ALERT_CHANNEL = defineEntity({
  id: attribute.as<string>(),
  name: attribute.as<string>(),
  type: attribute.as<AlertChannelType>(),
  created_at: attribute.as<string>(),
  created_by: attribute.as<string>(),
  url: attribute.nullable<string>(),
  format: attribute.nullable<'json' | 'slack'>(),
  topic_arn: attribute.nullable<string>(),
  address: attribute.nullable<string>(),
  /** The webhook's signing secret, encrypted (lib/alerts/secrets.ts); never shown. */
  secret_sealed: attribute.nullable<string>(),
  /** What lists show of the secret: its last four characters behind a fixed mask. */
  secret_hint: attribute.nullable<string>(),
});

export type AlertChannel = RecordOf<typeof ALERT_CHANNEL>;

export type AlertScopeKind = BudgetOwner['kind'] | 'endpoint';

/** An event as receivers get it (docs/budgets-and-alerts.md). */
export interface AlertEvent {
  id: string;
  event: 'budget.threshold' | 'endpoint.stopped' | 'orphan.found' | 'alert.test';
  at: string;
  [field: string]: unknown;
}

const ALERT_DELIVERY = defineEntity({
  event_id: attribute.as<string>(),
  event: attribute.as<string>(),
  channel_id: attribute.as<string>(),
  channel_name: attribute.as<string>(),
  status: attribute.as<'delivered' | 'failed'>(),
  attempts: attribute.as<number>(),
  last_error: attribute.nullable<string>(),
  event_at: attribute.as<string>(),
  updated_at: attribute.as<string>(),
  delivered_at: attribute.nullable<string>(),
});

export type AlertDelivery = RecordOf<typeof ALERT_DELIVERY>;

const CHANNELS = 'ALERTCHANNELS';
const DELIVERIES = 'ALERTDELIVERIES';
const channelKey = (id: string) => ({ PK: CHANNELS, SK: `CH#${id}` });
const thresholdsKey = (owner: { kind: string; id: string }) => ({ PK: `ALERTCFG#${owner.kind.toUpperCase()}#${owner.id}`, SK: 'THRESHOLDS' });
const claimKey = (owner: { kind: string; id: string }, period: string, threshold: number) => ({
  PK: `ALERT#${owner.kind.toUpperCase()}#${owner.id}`,
  SK: `T#${period}#${threshold}`,
});
const deliveryKey = (eventAt: string, eventId: string, channelId: string) => ({ PK: DELIVERIES, SK: `D#${eventAt}#${eventId}#${channelId}` });

const isConditionFailure = (err: unknown) => (err as { name?: string })?.name === 'ConditionalCheckFailedException';

const channelOfItem = (item: Record<string, unknown>): AlertChannel => ALERT_CHANNEL.read(item);

export async function insertChannel(channel: AlertChannel): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { ...channelKey(channel.id), entity: 'alert-channel', ...channel },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function getChannel(id: string): Promise<AlertChannel | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: channelKey(id), ConsistentRead: true }));
  return Item ? channelOfItem(Item) : undefined;
}

/** Removes a channel; false when there was none. */
export async function removeChannel(id: string): Promise<boolean> {
  try {
    await db.send(new DeleteCommand({ TableName: TABLE, Key: channelKey(id), ConditionExpression: 'attribute_exists(PK)' }));
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** Every channel, in id order (a handful). */
export async function listChannels(): Promise<AlertChannel[]> {
  return (await queryPartition(CHANNELS)).map(channelOfItem);
}

/**
 * Sets (or, with null, clears back to the default) the alert thresholds of a budget, kept sorted. The
 * request check has refused repeats and more than five already (AlertThresholds, lib/http/schemas.ts).
 */
export async function setAlertThresholds(owner: { kind: AlertScopeKind; id: string }, thresholds: number[] | null): Promise<number[] | null> {
  if (thresholds === null) {
    await db.send(new DeleteCommand({ TableName: TABLE, Key: thresholdsKey(owner) }));
    return null;
  }
  const sorted = [...thresholds].sort((a, b) => a - b);
  await db.send(new PutCommand({ TableName: TABLE, Item: { ...thresholdsKey(owner), entity: 'alert-thresholds', thresholds: sorted } }));
  return sorted;
}

/** The thresholds set on several budgets, in one BatchGet; undefined where none are set. */
export async function readAlertThresholds(
  owners: { kind: AlertScopeKind; id: string }[],
): Promise<(owner: { kind: AlertScopeKind; id: string }) => number[] | undefined> {
  const items = await getItems(owners.map(thresholdsKey));
  return (owner) => (items(thresholdsKey(owner))?.thresholds as number[] | undefined)?.map(Number);
}

/**
 * Claims a threshold of a scope's month and records its event, in one conditional put: true for the
 * one caller that crossed it first, false for everyone after (the event is already on its way).
 */
export async function claimThreshold(
  owner: { kind: AlertScopeKind; id: string },
  period: string,
  threshold: number,
  event: AlertEvent,
): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...claimKey(owner, period, threshold), entity: 'alert-event', payload: JSON.stringify(event) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** Which of these thresholds are already claimed, in one BatchGet. */
export async function readClaims(
  claims: { owner: { kind: AlertScopeKind; id: string }; period: string; threshold: number }[],
): Promise<(owner: { kind: AlertScopeKind; id: string }, period: string, threshold: number) => boolean> {
  const items = await getItems(claims.map((c) => claimKey(c.owner, c.period, c.threshold)));
  return (owner, period, threshold) => items(claimKey(owner, period, threshold)) !== undefined;
}

/** Records an event that is not a threshold's (each is its own): the stream delivers it. */
export async function putAlertEvent(event: AlertEvent): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: { PK: `ALERTEVENT#${event.id}`, SK: 'EVENT', entity: 'alert-event', payload: JSON.stringify(event) },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/** The deliveries of one event, by channel id. */
export async function readDeliveries(event: AlertEvent, channelIds: string[]): Promise<(channelId: string) => AlertDelivery | undefined> {
  const items = await getItems(channelIds.map((c) => deliveryKey(event.at, event.id, c)));
  return (channelId) => items(deliveryKey(event.at, event.id, channelId)) as AlertDelivery | undefined;
}

/**
 * Records how a delivery went. A delivered one is never overwritten (a redelivered batch that raced
 * a slower copy of itself cannot turn it back into a failure).
 */
export async function recordDelivery(d: AlertDelivery): Promise<void> {
  try {
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...deliveryKey(d.event_at, d.event_id, d.channel_id), entity: 'alert-delivery', ...d },
        ConditionExpression: 'attribute_not_exists(PK) OR #status <> :delivered',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':delivered': 'delivered' },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

/** One page of deliveries, newest event first. */
export async function listDeliveries(limit: number, cursor?: string): Promise<{ deliveries: AlertDelivery[]; nextCursor: string | null }> {
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': DELIVERIES },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK'], { PK: DELIVERIES }),
    }),
  );
  const deliveries = Items.map((item) => ALERT_DELIVERY.read(item));
  return { deliveries, nextCursor: encodeCursor(LastEvaluatedKey) };
}

/** What the alert deliverer acts on, decoded from the table's stream. */
export type AlertChange = { kind: 'spend'; spend: SpendImage } | { kind: 'event'; event: AlertEvent } | { kind: 'ignored' };

function decode(record: DynamoDBRecord): AlertChange {
  const image = record.dynamodb?.NewImage;
  if (!image || (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY')) return { kind: 'ignored' };
  const item = unmarshall(image as Record<string, AttributeValue>);
  if (item.entity === 'alert-event' && record.eventName === 'INSERT' && typeof item.payload === 'string') {
    return { kind: 'event', event: JSON.parse(item.payload) as AlertEvent };
  }
  const spend = item.entity === 'spend' ? spendOfItem(item) : undefined;
  return spend ? { kind: 'spend', spend } : { kind: 'ignored' };
}

export const decodeAlertChanges = (records: DynamoDBRecord[]): AlertChange[] => records.map(decode);
