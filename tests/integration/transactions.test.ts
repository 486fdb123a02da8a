/**
 * tables/transactions.ts transactWrite against DynamoDB Local, with cancellations DynamoDB Local never
 * produces (throttling inside a transaction) injected on the document client the way DynamoDB reports
 * them: TransactionCanceledException with one reason per item.
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { TABLE, db } from '../../tables/client';
import { isDataError } from '../../tables/errors';
import { transactWrite, type TransactItems } from '../../tables/transactions';

/** Cancels the next `times` transactions with `reason` on their first item; returns a remover. */
function cancelTransactions(times: number, reason: string) {
  let left = times;
  const name = `cancel-${randomUUID()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      if ((context as { commandName?: string }).commandName === 'TransactWriteItemsCommand' && left > 0) {
        left--;
        const items = (args.input as { TransactItems: unknown[] }).TransactItems;
        throw new TransactionCanceledException({
          message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
          $metadata: { httpStatusCode: 400 },
          CancellationReasons: items.map((_, i) => ({ Code: i === 0 ? reason : 'None' })),
        });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { remove: () => db.middlewareStack.remove(name), left: () => left };
}

const put = (id: string): TransactItems => [{ Put: { TableName: TABLE, Item: { PK: `TXTEST#${id}`, SK: 'A', entity: 'test' } } }];
const stored = async (id: string) => (await db.send(new GetCommand({ TableName: TABLE, Key: { PK: `TXTEST#${id}`, SK: 'A' } }))).Item;

test.each(['ThrottlingError', 'ProvisionedThroughputExceeded', 'TransactionConflict'])(
  'a transaction cancelled for %s is retried and then written',
  async (reason) => {
    const id = randomUUID();
    const rule = cancelTransactions(2, reason);
    try {
      await transactWrite(put(id), 5);
    } finally {
      rule.remove();
    }
    expect(rule.left()).toBe(0);
    expect(await stored(id)).toBeDefined();
  },
);

test('a transaction still cancelled for a transient reason when its attempts run out is DatabaseUnavailable (a 503), not a raw error', async () => {
  const id = randomUUID();
  const rule = cancelTransactions(3, 'ThrottlingError');
  let error: unknown;
  try {
    await transactWrite(put(id), 3).catch((err: unknown) => (error = err));
  } finally {
    rule.remove();
  }
  expect(isDataError(error, 'DatabaseUnavailable')).toBe(true);
  expect(await stored(id)).toBeUndefined();
});

test('a condition failure is returned at once, with its reasons, and not retried', async () => {
  const rule = cancelTransactions(5, 'ConditionalCheckFailed');
  let error: unknown;
  try {
    await transactWrite(put(randomUUID()), 5).catch((err: unknown) => (error = err));
  } finally {
    rule.remove();
  }
  expect(rule.left()).toBe(4);
  expect((error as { name?: string }).name).toBe('TransactionCanceledException');
});
