import { attribute, defineEntity, type RecordOf } from '../../tables/entity';

/** One declaration of every kind of attribute, read from items the way the table hands them back. */
const THING = defineEntity({
  id: attribute.as<string>(),
  note: attribute.nullable<string>(),
  hash: attribute.stored<string>(),
  state: attribute.or<'on' | 'off'>('on'),
  count: attribute.number(),
  budget: attribute.nullableNumber(),
  tags: attribute.read((stored) => (stored as string[] | undefined) ?? []),
  model: attribute.optional<string>(),
  kind: attribute.optional<'a' | 'b'>('a'),
});
type Thing = RecordOf<typeof THING>;

describe('defineEntity', () => {
  it('reads every declared attribute as declared, and nothing else (no key, no bookkeeping)', () => {
    const item = {
      PK: 'THING#1',
      SK: 'META',
      entity: 'thing',
      id: '1',
      note: 'n',
      hash: 'h',
      state: 'off',
      count: 3,
      budget: 2.5,
      tags: ['x'],
      model: 'm',
      kind: 'b',
    };
    const thing: Thing = THING.read(item);
    expect(thing).toStrictEqual({ id: '1', note: 'n', hash: 'h', state: 'off', count: 3, budget: 2.5, tags: ['x'], model: 'm', kind: 'b' });
    expect(Object.keys(thing)).toEqual(THING.names);
  });

  it('reads absent attributes as null, their fallback, or leaves optional ones out', () => {
    const thing = THING.read({ id: '2' });
    expect(thing).toStrictEqual({ id: '2', note: null, hash: undefined, state: 'on', count: 0, budget: null, tags: [], kind: 'a' });
    expect('model' in thing).toBe(false);
    // Each record gets its own fallback object.
    expect(THING.read({}).tags).not.toBe(thing.tags);
  });

  it('takes numbers as numbers, and a stored null as absent where the kind says so', () => {
    expect(THING.read({ id: '3', count: '7', budget: '1.25', note: null, state: null })).toMatchObject({
      count: 7,
      budget: 1.25,
      note: null,
      state: 'on',
    });
  });

  it('views a larger record through a smaller declaration, and extends one with more attributes', () => {
    const PUBLIC = defineEntity({ id: attribute.as<string>(), name: attribute.as<string>() });
    const STORED = PUBLIC.with({ secret: attribute.as<string>() });
    const stored = STORED.read({ id: '4', name: 'four', secret: 's', PK: 'x' });
    expect(stored).toStrictEqual({ id: '4', name: 'four', secret: 's' });
    expect(PUBLIC.read(stored)).toStrictEqual({ id: '4', name: 'four' });
    expect(STORED.names).toEqual(['id', 'name', 'secret']);
  });
});
