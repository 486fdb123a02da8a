/**
 * What the data layer can say went wrong, in its own words. Nothing here knows about HTTP: the one
 * error responder maps each kind to the spec's status and body (lib/http/errors.ts fromDataError).
 * Messages are written for clients and shown as they are.
 *
 * One class with a `kind` rather than a class per kind: every function bundles this module, and the
 * kinds differ only in what they mean, not in what they carry.
 */
export type DataErrorKind =
  /** A unique name (username, e-mail, endpoint name) is held by another item. */
  | 'NameTaken'
  /** A conditional write found the item changed since it was read: read it again and retry. */
  | 'StaleWrite'
  /** A write would break a rule the table keeps (for example: at least one active super_admin). */
  | 'RuleViolation'
  /** An item the request names does not exist. */
  | 'ItemNotFound'
  /** A pagination cursor this query could not have produced (edited, or from another list). */
  | 'InvalidCursor'
  /** DynamoDB did not answer, throttled, or failed on its side: the caller may retry shortly. */
  | 'DatabaseUnavailable';

export class DataError extends Error {
  constructor(
    readonly kind: DataErrorKind,
    message: string,
    /** What the caller can do about it, when there is something to say. */
    readonly details?: string,
  ) {
    super(message);
  }
}

export const isDataError = (err: unknown, kind: DataErrorKind): err is DataError => err instanceof DataError && err.kind === kind;
