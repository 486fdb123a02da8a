import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EndpointStatus, PlatformName } from '../lib/platforms/types';
import { TABLE, db } from './client';

/**
 * Tracked (deployed) resources, spec 2.3.
 *
 *   PK RES#<id>   SK META   the resource
 *
 * (The deployments module adds the name-uniqueness guard and the list indexes.)
 */

export type ResourceStatus = EndpointStatus;

export interface Resource {
  id: string;
  name: string;
  type: PlatformName;
  status: ResourceStatus;
  health: 'healthy' | 'unknown' | 'unhealthy';
  endpoint_url: string;
  region: string;
  instance_type: string | null;
  instance_count: number | null;
  model_name: string;
  /** managed/hosted: the model id chat calls use; dedicated: the model package or image deployed. */
  model_id: string;
  /** dedicated: the SageMaker endpoint name chat calls use; managed/hosted: the tracked name. */
  endpoint_name: string;
  created_by: string;
  created_at: string;
  last_updated: string;
}

export const resourceKey = (id: string) => ({ PK: `RES#${id}`, SK: 'META' });

const FIELDS = [
  'id',
  'name',
  'type',
  'status',
  'health',
  'endpoint_url',
  'region',
  'instance_type',
  'instance_count',
  'model_name',
  'model_id',
  'endpoint_name',
  'created_by',
  'created_at',
  'last_updated',
] as const;

export function resourceFromItem(item: Record<string, unknown>): Resource {
  return Object.fromEntries(FIELDS.map((f) => [f, item[f] ?? null])) as unknown as Resource;
}

export async function getResource(id: string): Promise<Resource | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: resourceKey(id) }));
  return Item ? resourceFromItem(Item) : undefined;
}
