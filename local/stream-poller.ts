/**
 * The local stand-in for Lambda's DynamoDB stream event source mapping: reads a table's stream from
 * DynamoDB Local (DescribeStream, GetShardIterator, GetRecords), builds the event Lambda would deliver
 * (the same record shape, filtered by the same filter patterns as functions/usage/stream.yml, in
 * batches of at most the same size) and calls the handler with it. Used by `npm start` and the e2e
 * runtime (continuously, local/stream-aggregator.ts) and by the integration tests (`drainStream`,
 * tests/helpers/stream.ts, until caught up).
 *
 * Like Lambda it processes each shard in order and a batch at a time; a batch whose handler throws is
 * delivered again unchanged (the aggregator's idempotency relies on that), up to `maxRetries` times,
 * then skipped with an error, as Lambda hands it to the on-failure destination.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { parse } from 'yaml';
import { localLambdaContext } from './lambda-context';
import { dynamoLocalCredentials } from '../core/dynamo-local';

const here = dirname(fileURLToPath(import.meta.url));

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<unknown>;

/**
 * How often the shards are listed (DescribeStream) when none has closed: Lambda's event source
 * mapping discovers new shards in the background too, and a new shard only ever follows a closed one,
 * which triggers a listing at once. Listing on every pass cost DynamoDB Local a DescribeStream of every
 * shard the stream ever had, four times a second.
 */
const DISCOVERY_MS = 2_000;

interface EventSourceSettings {
  batchSize: number;
  /** Lambda waits up to this long to fill a batch (MaximumBatchingWindowInSeconds), in ms. */
  batchingWindowMs: number;
  maximumRetryAttempts: number;
  filterPatterns: Record<string, unknown>[];
}

/** An event source mapping as deployed (functions/<area>/stream.yml), so local runs match it. */
function eventSourceOf(area: string): EventSourceSettings {
  const mapping = parse(readFileSync(join(here, '..', 'functions', area, 'stream.yml'), 'utf8')) as {
    Properties: {
      BatchSize?: number;
      MaximumBatchingWindowInSeconds?: number;
      MaximumRetryAttempts?: number;
      FilterCriteria?: { Filters?: { Pattern: string }[] };
    };
  };
  const p = mapping.Properties;
  return {
    batchSize: p.BatchSize ?? 100,
    batchingWindowMs: (p.MaximumBatchingWindowInSeconds ?? 0) * 1000,
    maximumRetryAttempts: p.MaximumRetryAttempts ?? 10,
    filterPatterns: (p.FilterCriteria?.Filters ?? []).map((f) => JSON.parse(f.Pattern) as Record<string, unknown>),
  };
}

/** The usage aggregator's mapping (functions/usage/stream.yml). */
export const aggregatorEventSource = () => eventSourceOf('usage');

/** The alert deliverer's mapping (functions/alerts/stream.yml). */
export const alertsEventSource = () => eventSourceOf('alerts');

/** Lambda's event filtering for the patterns used here: nested objects, and arrays of accepted values. */
function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((p) => (typeof p === 'object' && p !== null ? matches(p, value) : p === value));
  if (pattern && typeof pattern === 'object') {
    if (!value || typeof value !== 'object') return false;
    return Object.entries(pattern).every(([k, p]) => matches(p, (value as Record<string, unknown>)[k]));
  }
  return pattern === value;
}

/** A Streams API record as Lambda delivers it: the same fields, ApproximateCreationDateTime in epoch seconds, the stream's ARN added. */
function lambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource,
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime ? Math.floor(d.ApproximateCreationDateTime.getTime() / 1000) : undefined,
      Keys: d.Keys as never,
      NewImage: d.NewImage as never,
      OldImage: d.OldImage as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType,
    },
  };
}

interface ShardState {
  iterator: string | undefined;
  /** Last sequence number handed to the handler successfully. */
  last: string | undefined;
  closed: boolean;
  /** Records read and wanted (after filtering) but not yet delivered: a batch filling up within the batching window, and since when. */
  pending: DynamoDBRecord[];
  pendingSince: number;
}

export interface StreamReaderOptions {
  dynamo: DynamoDBClient;
  endpoint: string;
  table: string;
  handler: StreamHandler;
  /** The consumer's function name, as its context reports it (logs). */
  functionName?: string;
  settings?: EventSourceSettings;
  /** Where the positions are kept across restarts (npm start); without one, every start reads from the oldest record. */
  checkpointFile?: string;
  /** Called after each delivered batch (benchmarks measure the aggregation lag with it). */
  onBatch?: (records: DynamoDBRecord[]) => void;
  /** What happens to a batch that failed every attempt: skipped with an error (as Lambda does), or thrown (tests). */
  onGiveUp?: 'skip' | 'throw';
  /**
   * Wait up to the mapping's batching window to fill a batch, as Lambda does (the continuous poller of
   * `npm start`); without it every read is delivered at once (tests draining the stream).
   */
  batching?: boolean;
}

/** A delivery given up because the poller stops: the batch stays for the next start. */
class Stopped extends Error {}

/** Reads one table's stream and delivers its batches; `poll` does one pass over every shard. */
export class StreamReader {
  private readonly streams: DynamoDBStreamsClient;
  private readonly shards = new Map<string, ShardState>();
  private streamArn: string | undefined;
  private readonly settings: EventSourceSettings;

  constructor(private readonly options: StreamReaderOptions) {
    this.streams = new DynamoDBStreamsClient({
      endpoint: options.endpoint,
      region: 'us-east-1',
      credentials: dynamoLocalCredentials(),
    });
    // Records carry whole item images: the SDK's logger middleware would walk each one for a no-op logger.
    this.streams.middlewareStack.remove('loggerMiddleware');
    this.settings = options.settings ?? aggregatorEventSource();
  }

  close(): void {
    this.streams.destroy();
  }

  /**
   * Set when the poller stops: a batch that fails from then on is neither retried nor skipped, and its
   * checkpoint stays before it, so the next start delivers it again (as a Lambda event source mapping
   * that is switched off does). Its failure is the stop's: the database or the handler going away.
   */
  stopping = false;

  /** The most records one delivery carries (the mapping's BatchSize). */
  get batchSize(): number {
    return this.settings.batchSize;
  }

  /** When the shards were last listed; they are listed again when one closes, and at least every DISCOVERY_MS. */
  private discoveredAt = 0;
  private shardClosed = false;

  private async discover(force = false): Promise<void> {
    if (!force && this.streamArn && !this.shardClosed && Date.now() - this.discoveredAt < DISCOVERY_MS) return;
    this.discoveredAt = Date.now();
    this.shardClosed = false;
    if (!this.streamArn) {
      const { Table } = await this.options.dynamo.send(new DescribeTableCommand({ TableName: this.options.table }));
      if (!Table?.LatestStreamArn) throw new Error(`table ${this.options.table} has no stream`);
      this.streamArn = Table.LatestStreamArn;
      this.loadCheckpoint();
    }
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn, ExclusiveStartShardId: start }));
      shards.push(...(StreamDescription?.Shards ?? []));
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
    for (const shard of shards) {
      const id = shard.ShardId as string;
      const state = this.shards.get(id) ?? { iterator: undefined, last: undefined, closed: false, pending: [], pendingSince: 0 };
      if (!state.iterator && !state.closed) {
        const { ShardIterator } = await this.streams.send(
          new GetShardIteratorCommand({
            StreamArn: this.streamArn,
            ShardId: id,
            ShardIteratorType: state.last ? 'AFTER_SEQUENCE_NUMBER' : 'TRIM_HORIZON',
            SequenceNumber: state.last,
          }),
        );
        state.iterator = ShardIterator;
      }
      this.shards.set(id, state);
    }
  }

  /**
   * One pass: every open shard is read until it has nothing new, each batch delivered in order: at
   * once, or (batching) when it holds a full batch, when the batching window since its first record
   * has passed, or when its shard has closed. Returns how many records were read (filtered out or
   * not); 0 means caught up.
   */
  async poll(): Promise<number> {
    await this.discover();
    const windowMs = this.options.batching ? this.settings.batchingWindowMs : 0;
    const { batchSize } = this.settings;
    const due = (state: ShardState) => state.pending.length > 0 && (state.closed || Date.now() - state.pendingSince >= windowMs);
    let read = 0;
    for (const [id, state] of this.shards) {
      let renewed = 0;
      while (state.iterator && !state.closed) {
        let out;
        try {
          out = await this.streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: batchSize }));
        } catch (err) {
          const name = (err as { name?: string }).name;
          if ((name !== 'TrimmedDataAccessException' && name !== 'ExpiredIteratorException') || renewed >= 2) throw err;
          // An iterator that expired (15 minutes unused), or that points at trimmed records, is renewed as
          // Lambda renews it: after the last record delivered, or at the trim horizon when that is gone
          // too. DynamoDB Local also answers Trimmed for an iterator taken on a shard that was still empty
          // (aws/aws-sdk-java#2923): renewed, it reads the shard from its start. Records read but not yet
          // delivered are read again.
          renewed++;
          if (name === 'TrimmedDataAccessException' && renewed > 1) state.last = undefined;
          state.iterator = undefined;
          state.pending = [];
          await this.discover(true);
          continue;
        }
        const records = out.Records ?? [];
        read += records.length;
        state.iterator = out.NextShardIterator;
        if (!out.NextShardIterator) {
          state.closed = true;
          // Its children (a shard closes when DynamoDB splits or rolls it) are read from the next pass on.
          this.shardClosed = true;
        }
        // Lambda filters before it batches: records filtered out neither fill nor hold a batch.
        const wanted = this.wanted(records.map((r) => lambdaRecord(r, this.streamArn as string)));
        if (wanted.length > 0 && state.pending.length === 0) state.pendingSince = Date.now();
        state.pending.push(...wanted);
        while (state.pending.length >= batchSize) await this.flush(state, batchSize);
        if (due(state)) await this.flush(state, batchSize);
        if (state.pending.length === 0 && records.length > 0) {
          state.last = records.at(-1)?.dynamodb?.SequenceNumber;
          this.saveCheckpoint();
        }
        if (records.length === 0 || (windowMs > 0 && state.pending.length > 0)) break;
      }
      if (due(state)) await this.flush(state, batchSize);
      this.shards.set(id, state);
    }
    return read;
  }

  private wanted(records: DynamoDBRecord[]): DynamoDBRecord[] {
    const patterns = this.settings.filterPatterns;
    return patterns.length ? records.filter((r) => patterns.some((p) => matches(p, r))) : records;
  }

  /** Delivers the oldest pending records, at most a batch, and moves the checkpoint past them. */
  private async flush(state: ShardState, batchSize: number): Promise<void> {
    const batch = state.pending.slice(0, batchSize);
    await this.deliver(batch);
    state.pending = state.pending.slice(batch.length);
    state.last = batch.at(-1)?.dynamodb?.SequenceNumber;
    this.saveCheckpoint();
  }

  private async deliver(wanted: DynamoDBRecord[]): Promise<void> {
    if (wanted.length === 0) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.options.handler({ Records: wanted }, localLambdaContext(this.options.functionName ?? 'streamConsumer', Date.now() + 60_000));
        this.options.onBatch?.(wanted);
        return;
      } catch (err) {
        if (this.stopping) throw new Stopped();
        if (attempt >= this.settings.maximumRetryAttempts) {
          if (this.options.onGiveUp === 'throw') throw err;
          console.error(
            `stream poller: a batch of ${wanted.length} records (sequence ${wanted[0]?.dynamodb?.SequenceNumber} to ${wanted.at(-1)?.dynamodb?.SequenceNumber}) failed ${attempt + 1} times and is skipped:`,
            err,
          );
          return;
        }
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** attempt)));
      }
    }
  }

  private loadCheckpoint(): void {
    const file = this.options.checkpointFile;
    if (!file || !existsSync(file)) return;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { streamArn?: string; shards?: Record<string, string> };
      // Another stream (a fresh .data/) means the positions mean nothing.
      if (saved.streamArn !== this.streamArn) return;
      for (const [id, last] of Object.entries(saved.shards ?? {}))
        this.shards.set(id, { iterator: undefined, last, closed: false, pending: [], pendingSince: 0 });
    } catch {
      // unreadable: start from the oldest record; the aggregator's markers keep a replay from counting twice
    }
  }

  private saveCheckpoint(): void {
    const file = this.options.checkpointFile;
    if (!file) return;
    const shards = Object.fromEntries([...this.shards].filter(([, s]) => s.last).map(([id, s]) => [id, s.last as string]));
    writeFileSync(file, JSON.stringify({ streamArn: this.streamArn, shards }));
  }
}

export interface StreamPoller {
  stop(): Promise<void>;
}

/**
 * Polls continuously, every `intervalMs` (Lambda polls a shard about four times a second), filling
 * batches within the mapping's batching window as Lambda does, so that under load the aggregator
 * writes once per batch, not once per turn. It reads again at once only while it is behind (a pass
 * read a whole batch's worth of records); a pass that read a few records waits the interval like an
 * idle one, instead of asking for the next few at once (which cost DynamoDB Local a GetRecords per
 * handful of records under load, and filled no batch sooner). Errors other than a failing batch
 * (DynamoDB Local gone, say) are logged and retried.
 */
export function startStreamPoller(options: StreamReaderOptions & { intervalMs?: number }): StreamPoller {
  const reader = new StreamReader({ batching: true, ...options });
  const interval = options.intervalMs ?? 250;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const loop = () => {
    running = (async () => {
      try {
        while (!stopped && (await reader.poll()) >= reader.batchSize);
      } catch (err) {
        if (!stopped) console.error('stream poller:', (err as Error).message);
      }
      if (!stopped) timer = setTimeout(loop, interval);
    })();
  };
  loop();
  return {
    stop: async () => {
      stopped = true;
      reader.stopping = true;
      if (timer) clearTimeout(timer);
      await running;
      reader.close();
    },
  };
}
