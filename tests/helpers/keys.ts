import { expect } from '@jest/globals';
import { handler as createKey } from '../../functions/keys/create';
import { handler as listKeys } from '../../functions/keys/list';
import { call, type Handler } from './invoke';

/** A user's API keys, as a test makes and reads them through the keys API: a new key (its secret and id), and a key's recorded spend. */
export function keysOf(owner: { token: string }) {
  return {
    newKey: async (body: Record<string, unknown>): Promise<{ key: string; id: string }> => {
      const res = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'k', ...body } });
      expect(res.status).toBe(201);
      return { key: res.body.key as string, id: res.body.id as string };
    },
    spentOf: async (id: string): Promise<number> =>
      (await call(listKeys as Handler, { token: owner.token })).body.keys.find((k: { id: string }) => k.id === id).spent_usd,
  };
}
