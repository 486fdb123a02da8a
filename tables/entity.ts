/**
 * One way to declare an entity: its attributes, once. The record type and the item -> record mapping
 * both follow from the declaration, so a field cannot be added to one and forgotten in the other.
 *
 *   const USER = defineEntity({ id: attribute.as<string>(), role: attribute.as<Role>(), ... });
 *   export type User = RecordOf<typeof USER>;
 *   const user = USER.read(item);
 *
 * Each attribute says how its stored value is read. What DynamoDB hands back is trusted to be what
 * this service wrote (the table is ours alone), so reading types a value rather than proving it: an
 * absent attribute reads as null (the records have always shown absent fields as null), numbers are
 * taken as numbers, and an attribute may name its fallback or its own reading. `attribute.optional`
 * keeps an absent attribute absent (a `?:` field): the shape of records that never had it.
 *
 * Keys stay with their entity module; this file knows no key and no table.
 */

/** How one attribute of an item becomes one field of the record. */
export interface Attribute<T, Optional extends boolean = false> {
  readonly read: (stored: unknown) => T;
  /** An optional field: the record leaves it out when the item has none. */
  readonly optional: Optional;
}

type AnyAttribute = Attribute<unknown, boolean>;
export type Attributes = Record<string, AnyAttribute>;

type ValueOf<A> = A extends Attribute<infer T, boolean> ? T : never;
type OptionalKeys<F extends Attributes> = { [K in keyof F]: F[K] extends Attribute<unknown, true> ? K : never }[keyof F];
type Flat<T> = { [K in keyof T]: T[K] };

/** The record an entity's items hold: one field per declared attribute (`?:` for optional ones). */
export type RecordOf<E extends { readonly attributes: Attributes }> = Flat<
  { [K in Exclude<keyof E['attributes'], OptionalKeys<E['attributes']>>]: ValueOf<E['attributes'][K]> } & {
    [K in OptionalKeys<E['attributes']>]?: ValueOf<E['attributes'][K]>;
  }
>;

const attributeOf = <T>(read: (stored: unknown) => T): Attribute<T> => ({ read, optional: false });
const isAbsent = (stored: unknown): stored is null | undefined => stored === undefined || stored === null;

/** The kinds of attribute. */
export const attribute = {
  /** As stored; absent reads as null (as every record has read it), whatever the declared type. */
  as: <T>() => attributeOf((stored) => (stored === undefined ? null : stored) as T),
  /** As stored, or null. */
  nullable: <T>() => attributeOf((stored) => (stored === undefined ? null : stored) as T | null),
  /** As stored, even absent (a field every item of the layout has, or that the caller checks). */
  stored: <T>() => attributeOf((stored) => stored as T),
  /** As stored, or `fallback` when absent (a value, never an object that records would share). */
  or: <T extends string | number | boolean>(fallback: T) => attributeOf((stored) => (isAbsent(stored) ? fallback : stored) as T),
  /** A number; absent reads as `absent`. */
  number: (absent = 0) => attributeOf((stored) => (isAbsent(stored) ? absent : Number(stored))),
  /** A number, or null when absent. */
  nullableNumber: () => attributeOf((stored) => (isAbsent(stored) ? null : Number(stored))),
  /** A field read its own way. */
  read: attributeOf,
  /**
   * A `?:` field, for records also built without it: as stored; when absent, `absent` if given, else
   * left out of the record.
   */
  optional: <T>(absent?: T): Attribute<T | undefined, true> => ({
    read: (stored) => (absent === undefined ? stored : (stored ?? absent)) as T | undefined,
    optional: true,
  }),
};

export interface Entity<F extends Attributes> {
  readonly attributes: F;
  /** The declared names, in declaration order. */
  readonly names: readonly (keyof F & string)[];
  /**
   * The record an item holds: its declared attributes, read as declared; nothing else (no key, no
   * bookkeeping). Also the view of a larger record (a stored user -> the user every response shows).
   */
  read(item: object): RecordOf<Entity<F>>;
  /** The same entity with more attributes (a stored form beside a public one). */
  with<G extends Attributes>(more: G): Entity<F & G>;
}

export function defineEntity<F extends Attributes>(attributes: F): Entity<F> {
  const names = Object.keys(attributes);
  const declared = Object.entries(attributes);
  return {
    attributes,
    names,
    read(item) {
      const record: Record<string, unknown> = {};
      for (const [name, { read, optional }] of declared) {
        const value = read(Reflect.get(item, name));
        if (value !== undefined || !optional) record[name] = value;
      }
      // The one cast of tables/: the loop above gives every declared attribute a field read as its
      // declaration says (optional ones only when present), which is what RecordOf spells out.
      return record as RecordOf<Entity<F>>;
    },
    with: (more) => defineEntity({ ...attributes, ...more }),
  };
}
