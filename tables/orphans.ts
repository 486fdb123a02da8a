import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db, decodeCursor, encodeCursor } from './client';
import { attribute, defineEntity, type RecordOf } from './entity';

/**
 * Orphans: endpoints on the dedicated platform, and Bedrock application inference profiles, that carry
 * this service's tags (service and stage) but no tracked resource, found by the reconciler (a deploy
 * whose record was never written, a record lost or removed by hand). Admins list them and adopt
 * (endpoints) or delete them.
 *
 *   PK ORPHANS   SK EP#<lower endpoint name, or the profile's name>
 *
 * One partition: orphans are rare, written by the reconciler only when one is found or changes, and
 * listed by admins; a Query lists them in name order.
 */
const PARTITION = 'ORPHANS';
const sortKey = (endpointName: string) => `EP#${endpointName.toLowerCase()}`;
const orphanKey = (endpointName: string) => ({ PK: PARTITION, SK: sortKey(endpointName) });

const ORPHAN = defineEntity({
  /** The endpoint's name, or the profile's name. */
  endpoint_name: attribute.as<string>(),
  endpoint_arn: attribute.as<string>(),
  /** The platform's status when last seen. */
  status: attribute.as<string>(),
  platform_created_at: attribute.as<string>(),
  found_at: attribute.as<string>(),
  /** The resource id its tags name (the deploy that created it), if any. */
  resource_id: attribute.nullable<string>(),
  endpoint_config_name: attribute.nullable<string>(),
  instance_type: attribute.nullable<string>(),
  instance_count: attribute.nullable<number>(),
  variant_names: attribute.read((stored) => (stored as string[] | undefined) ?? []),
  /** What was left behind: a dedicated endpoint (absent on records written before profiles were looked for) or an application inference profile. */
  kind: attribute.optional<'endpoint' | 'inference_profile'>('endpoint'),
  /** An inference profile's tags, as ListTagsForResource showed them. */
  tags: attribute.optional<Record<string, string> | null>(null),
});

export type Orphan = RecordOf<typeof ORPHAN>;

const orphanFromItem = (item: Record<string, unknown>): Orphan => ORPHAN.read(item);

const isConditionFailure = (err: unknown) => (err as { name?: string })?.name === 'ConditionalCheckFailedException';

/**
 * Records an orphan. true when it was not known before (or an endpoint of the same name but another
 * ARN was): the caller reports it as found. false when it was already recorded.
 */
export async function recordOrphan(o: Orphan): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: TABLE,
        Item: { ...orphanKey(o.endpoint_name), entity: 'orphan', ...o },
        ConditionExpression: 'attribute_not_exists(PK) OR endpoint_arn <> :arn',
        ExpressionAttributeValues: { ':arn': o.endpoint_arn },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** The platform shows a known orphan in another status. */
export async function updateOrphanStatus(endpointName: string, status: string): Promise<void> {
  await db
    .send(
      new UpdateCommand({
        TableName: TABLE,
        Key: orphanKey(endpointName),
        UpdateExpression: 'SET #status = :status',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status },
      }),
    )
    .catch((err: unknown) => {
      if (!isConditionFailure(err)) throw err;
    });
}

export async function getOrphan(endpointName: string): Promise<Orphan | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: orphanKey(endpointName), ConsistentRead: true }));
  return Item ? orphanFromItem(Item) : undefined;
}

/** Removes an orphan's record (adopted, deleted, or gone from the platform). false when it was not there. */
export async function removeOrphan(endpointName: string): Promise<boolean> {
  try {
    await db.send(new DeleteCommand({ TableName: TABLE, Key: orphanKey(endpointName), ConditionExpression: 'attribute_exists(PK)' }));
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/** One page of orphans in endpoint-name order. */
export async function listOrphans(limit: number, cursor?: string): Promise<{ orphans: Orphan[]; nextCursor: string | null }> {
  const { Items = [], LastEvaluatedKey } = await db.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': PARTITION },
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, ['PK', 'SK'], { PK: PARTITION }),
    }),
  );
  return { orphans: Items.map(orphanFromItem), nextCursor: encodeCursor(LastEvaluatedKey) };
}

/** Every recorded orphan, up to `max` (the reconciler compares them with the platform each pass). */
export async function allOrphans(max = 1000): Promise<Orphan[]> {
  const out: Orphan[] = [];
  let cursor: string | undefined;
  do {
    const page = await listOrphans(Math.min(100, max - out.length), cursor);
    out.push(...page.orphans);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && out.length < max);
  return out;
}
