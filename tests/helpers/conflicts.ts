/**
 * DynamoDB's transaction conflict rules, which DynamoDB Local does not apply (it serialises
 * transactions instead), reproduced on the service's document client so that concurrency tests see
 * what AWS would do. From "Transaction conflict handling in DynamoDB",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling:
 *
 *   - an item within a TransactWriteItems request that is part of another ongoing TransactWriteItems
 *     request: the later transaction is rejected, TransactionCanceledException with the reason
 *     TransactionConflict at that item's index (None for the others);
 *   - a PutItem, UpdateItem or DeleteItem request for an item in an ongoing TransactWriteItems
 *     request: the single write fails with TransactionConflictException.
 *
 * A transaction holds its items for `holdMs` from the moment it is sent, as long as one takes in
 * DynamoDB (25-30 ms), and answers no sooner: DynamoDB Local's own time is not the model, since it
 * serialises transactions and under load queues them for far longer than DynamoDB would hold an
 * item. Test-only: installed by a test on `db` (tables/client.ts), a mock of nothing but the rule
 * DynamoDB Local leaves out; every call still goes to DynamoDB Local.
 */
import { TransactionCanceledException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type Json = Record<string, any>;

export interface ConflictStats {
  transactions: number;
  /** Transactions cancelled by these rules (each one is retried by the service). */
  cancelled: number;
  singleWrites: number;
  singleWritesRejected: number;
}

const itemId = (table: string, key: Json | undefined) => `${table}\u0000${String(key?.PK)}\u0000${String(key?.SK)}`;

function transactionItems(input: Json): string[] {
  return (input.TransactItems as Json[]).map((t) => {
    const action = (t.Put ?? t.Update ?? t.Delete ?? t.ConditionCheck) as Json;
    return itemId(action.TableName as string, t.Put ? { PK: action.Item.PK, SK: action.Item.SK } : (action.Key as Json));
  });
}

const SINGLE_WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);

/** Installs the rules on `db`; returns the counters and a function that takes the rules off again. */
export function applyTransactionConflictRules(db: DynamoDBDocumentClient, options: { holdMs: number }): { stats: ConflictStats; remove(): void } {
  /** Item -> until when (epoch ms) an in-flight transaction holds it. */
  const held = new Map<string, number>();
  const isHeld = (item: string) => (held.get(item) ?? 0) > Date.now();
  const stats: ConflictStats = { transactions: 0, cancelled: 0, singleWrites: 0, singleWritesRejected: 0 };
  const name = `transactionConflictRules-${Math.random().toString(36).slice(2)}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context as { commandName?: string }).commandName ?? '';
      const input = args.input as Json;
      if (command === 'TransactWriteItemsCommand') {
        stats.transactions++;
        const items = transactionItems(input);
        // Read the clock once: a hold that ends between two readings would cancel with no reason given.
        const heldNow = items.map(isHeld);
        if (heldNow.some(Boolean)) {
          stats.cancelled++;
          throw new TransactionCanceledException({
            message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
            $metadata: { httpStatusCode: 400 },
            CancellationReasons: heldNow.map((held) =>
              held ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' },
            ),
          });
        }
        const until = Date.now() + options.holdMs;
        items.forEach((i) => held.set(i, until));
        const [result] = await Promise.all([next(args), new Promise((r) => setTimeout(r, options.holdMs))]);
        return result;
      }
      if (SINGLE_WRITES.has(command)) {
        stats.singleWrites++;
        const key = command === 'PutItemCommand' ? { PK: input.Item?.PK, SK: input.Item?.SK } : input.Key;
        if (isHeld(itemId(input.TableName as string, key as Json))) {
          stats.singleWritesRejected++;
          throw new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: { httpStatusCode: 400 } });
        }
      }
      return next(args);
    },
    { step: 'initialize', name, priority: 'high' },
  );
  return { stats, remove: () => db.middlewareStack.remove(name) };
}
