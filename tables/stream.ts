import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { pendingCallOfItem, type MeteredCall } from './calls';
import { indexedTurnOfItem, usageOfTurnItem, type IndexedTurn, type TurnUsage } from './messages';
import { usageHourOfKey, type UsageScope } from './usage';

/**
 * The table's change stream, decoded (StreamViewType NEW_IMAGE, tables/table.yml): what the stream
 * aggregator (lib/usage/aggregator.ts) acts on, in the table's own terms. Lambda delivers the records
 * (serverless.yml filters them to item creations of turns, pending calls and usage hours); locally
 * local/stream-poller.ts builds the same event from DynamoDB Local's Streams API.
 */
export type TableChange =
  /**
   * A turn item was created: answered turns (and counted calls) carry their usage; `index` is the
   * conversation index entry still owed by a turn written before entries went into the turn's own
   * transaction.
   */
  | { kind: 'turn'; eventId: string; index?: IndexedTurn; usage?: TurnUsage }
  /** A metered call was answered (tables/calls.ts): its settlement is due. */
  | { kind: 'call'; eventId: string; call: MeteredCall }
  /** A scope got a new hour item: the moment to fold its old hours into months. */
  | { kind: 'usage-hour'; eventId: string; scope: UsageScope; hour: string }
  | { kind: 'ignored'; eventId: string }
  /** A record that should be one of the above and cannot be read: logged and counted, never retried. */
  | { kind: 'undecodable'; eventId: string; reason: string };

function decode(record: DynamoDBRecord): TableChange {
  const eventId = record.eventID ?? '';
  if (!eventId) return { kind: 'undecodable', eventId, reason: 'the record has no eventID' };
  if (record.eventName !== 'INSERT' || !record.dynamodb?.NewImage) return { kind: 'ignored', eventId };
  let item: Record<string, unknown>;
  try {
    item = unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>);
  } catch (err) {
    return { kind: 'undecodable', eventId, reason: `its image cannot be read: ${(err as Error).message}` };
  }
  if (item.entity === 'turn') {
    const index = indexedTurnOfItem(item);
    const counted = item.p !== undefined;
    const usage = counted ? usageOfTurnItem(item) : undefined;
    if (counted && !usage) return { kind: 'undecodable', eventId, reason: 'a counted turn item whose usage cannot be read' };
    if (!counted && !index) return { kind: 'undecodable', eventId, reason: 'a turn item neither counted nor in a conversation' };
    return { kind: 'turn', eventId, index: index?.written ? undefined : index, usage };
  }
  if (item.entity === 'call') {
    const call = pendingCallOfItem(item);
    return call ? { kind: 'call', eventId, call } : { kind: 'undecodable', eventId, reason: 'a pending call item whose fields cannot be read' };
  }
  if (item.entity === 'usage-hour') {
    const hour = usageHourOfKey(String(item.PK), String(item.SK));
    return hour
      ? { kind: 'usage-hour', eventId, ...hour }
      : { kind: 'undecodable', eventId, reason: 'a usage hour item with a key of another shape' };
  }
  return { kind: 'ignored', eventId };
}

/** The records of a stream event, decoded in their order. */
export function decodeTableChanges(records: DynamoDBRecord[]): TableChange[] {
  return records.map(decode);
}
