import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { PlatformName } from '../core/vocabulary';
import { TABLE, db } from './client';

/**
 * Cached model catalogues (docs/openapi.yaml ManagedModelEntry, DedicatedModelEntry, HostedModelEntry), one item per platform and variant.
 *
 *   PK CATALOG#<platform>   SK <variant>   entries, complete, count, fetched_at, ttl
 *
 * Variants (CatalogueVariant, encoded into the sort key here only): managed and hosted cache their
 * whole catalogue under `ALL`. Dedicated caches each source (`public`, `account`) under its name,
 * and searches that could not be answered from those under `<source>#search#<lower-cased search>`.
 *
 * `ttl` (epoch seconds) is when the entry stops being fresh. DynamoDB's TTL deletes it some time
 * after that, so an expired item may still be read: it is then a stale copy, which the catalogue
 * serves only when the platform cannot be reached.
 */

/** Which copy of a platform's catalogue: all of it, one source of it, or one search within a source. */
export type CatalogueVariant = { kind: 'whole' } | { kind: 'source'; source: string } | { kind: 'search'; source: string; search: string };

export const WHOLE_CATALOGUE: CatalogueVariant = { kind: 'whole' };

const SEARCH = '#search#';

function variantSk(variant: CatalogueVariant): string {
  switch (variant.kind) {
    case 'whole':
      return 'ALL';
    case 'source':
      return variant.source;
    case 'search':
      return `${variant.source}${SEARCH}${variant.search.toLowerCase()}`;
  }
}

function variantOfSk(sk: string): CatalogueVariant {
  if (sk === 'ALL') return WHOLE_CATALOGUE;
  const cut = sk.indexOf(SEARCH);
  return cut < 0 ? { kind: 'source', source: sk } : { kind: 'search', source: sk.slice(0, cut), search: sk.slice(cut + SEARCH.length) };
}

export interface CachedCatalogue<T> {
  platform: PlatformName;
  variant: CatalogueVariant;
  entries: T[];
  /** false when the platform had more entries than were fetched (the list was cut at a maximum). */
  complete: boolean;
  fetchedAt: string;
  /** Epoch seconds after which the entry is stale. */
  expiresAt: number;
}

const cataloguePartition = (platform: PlatformName) => `CATALOG#${platform}`;
const catalogueKey = (platform: PlatformName, variant: CatalogueVariant) => ({ PK: cataloguePartition(platform), SK: variantSk(variant) });

function fromItem<T>(item: Record<string, unknown>): CachedCatalogue<T> {
  return {
    platform: (item.PK as string).slice('CATALOG#'.length) as PlatformName,
    variant: variantOfSk(item.SK as string),
    entries: Array.isArray(item.entries) ? (item.entries as T[]) : [],
    complete: item.complete === true,
    fetchedAt: typeof item.fetched_at === 'string' ? item.fetched_at : '',
    expiresAt: Number(item.ttl ?? 0),
  };
}

export async function getCatalogue<T>(platform: PlatformName, variant: CatalogueVariant): Promise<CachedCatalogue<T> | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE, Key: catalogueKey(platform, variant) }));
  return Item ? fromItem<T>(Item) : undefined;
}

export async function putCatalogue<T>(catalogue: CachedCatalogue<T>): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: TABLE,
      Item: {
        ...catalogueKey(catalogue.platform, catalogue.variant),
        entity: 'catalogue',
        entries: catalogue.entries,
        complete: catalogue.complete,
        count: catalogue.entries.length,
        fetched_at: catalogue.fetchedAt,
        ttl: catalogue.expiresAt,
      },
    }),
  );
}

/** The variants cached for a platform (one small partition: a Query, keys only). */
export async function listCachedVariants(platform: PlatformName): Promise<CatalogueVariant[]> {
  const variants: CatalogueVariant[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': cataloguePartition(platform) },
        ProjectionExpression: 'SK',
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) variants.push(variantOfSk(item.SK as string));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return variants;
}

export async function deleteCatalogue(platform: PlatformName, variant: CatalogueVariant): Promise<void> {
  await db.send(new DeleteCommand({ TableName: TABLE, Key: catalogueKey(platform, variant) }));
}

/** Drops every cached search of a platform (a refresh would otherwise leave them outliving it). */
export async function dropCachedSearches(platform: PlatformName): Promise<void> {
  const searches = (await listCachedVariants(platform)).filter((v) => v.kind === 'search');
  await Promise.all(searches.map((v) => deleteCatalogue(platform, v)));
}
