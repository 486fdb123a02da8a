/**
 * What the data layer can say went wrong, in its own words. Nothing here knows about HTTP: the one
 * error responder (lib/http/middlewares/error-responder.ts) maps each class to the spec's status and
 * body. Messages are written for clients (they are shown as they are); anything else a caller needs
 * travels as a typed field.
 */
export class DataError extends Error {
  override name = 'DataError';
}

/** A unique name (username, e-mail, endpoint name) is held by another item. */
export class NameTaken extends DataError {
  override name = 'NameTaken';
}

/** A conditional write found the item changed since it was read: read it again and retry. */
export class StaleWrite extends DataError {
  override name = 'StaleWrite';
}

/** A write would break a rule the table keeps (for example: at least one active super_admin). */
export class RuleViolation extends DataError {
  override name = 'RuleViolation';
}

/** An item the request names does not exist. */
export class ItemNotFound extends DataError {
  override name = 'ItemNotFound';
}

/** A pagination cursor this query could not have produced (edited, or from another list). */
export class InvalidCursor extends DataError {
  override name = 'InvalidCursor';
  constructor() {
    super('Invalid cursor');
  }
  readonly hint = 'Pass the nextCursor value of the previous page unchanged';
}

/** DynamoDB did not answer, throttled, or failed on its side: the caller may retry shortly. */
export class DatabaseUnavailable extends DataError {
  override name = 'DatabaseUnavailable';
  constructor() {
    super('The database is temporarily unavailable; please retry shortly');
  }
  readonly retryAfterSeconds = 5;
}
