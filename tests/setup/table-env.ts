// Runs before each integration test file's imports: the file gets a table of its own.
import { randomUUID } from 'node:crypto';

process.env.TABLE_NAME = `it-${randomUUID()}`;
