/**
 * The API contract as a response validator: docs/openapi.yaml (read once, from its JSON twin:
 * tests/helpers/openapi-document.ts), with ajv (JSON Schema 2020-12, OpenAPI 3.1's dialect) and
 * ajv-formats.
 *
 * `validateResponse(method, path, status, body)` finds the operation whose path template matches
 * the request (query string ignored; a parameter marked `x-greedy` takes the rest of the path, like
 * API Gateway's `{name+}`), finds the documented response for the status, and checks the body
 * against its schema. It throws, with the operation, the status and every mismatch named, when the
 * status is not documented for the operation or the body does not match. A method and path that
 * match no operation are API Gateway's $default route: they must be the document's
 * `x-unmatched-route` response (404).
 *
 * tests/e2e/http.ts runs it on every response the e2e suites receive, so the suites cannot pass
 * while the code and the document disagree.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openapiDocument } from '../helpers/openapi-document';

export const OPENAPI_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'openapi.yaml');

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Ajv's name for the document; every pointer into it is resolved against this id. */
const DOC_ID = 'https://model-ops.local/openapi.json';

type Json = any;

export interface Operation {
  method: string;
  /** The path template as documented, e.g. /api/resources/{resourceId}/status. */
  template: string;
  operationId: string;
  regex: RegExp;
  /** JSON pointer of the Operation Object inside the document. */
  pointer: string;
  operation: Json;
  /** How specific the template is (literal segments): the most specific match wins. */
  literals: number;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

/** JSON pointer of a path of keys (RFC 6901). */
export function pointerOf(...keys: string[]): string {
  return keys.map((k) => `/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function at(document: Json, pointer: string): Json {
  if (pointer === '') return document;
  return pointer
    .slice(1)
    .split('/')
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((node, key) => (node === undefined || node === null ? undefined : node[key]), document);
}

/** Follows local `$ref`s of OpenAPI objects (responses, parameters); returns the target and its pointer. */
export function resolve(document: Json, node: Json, pointer: string): { node: Json; pointer: string } {
  const seen = new Set<string>();
  while (node && typeof node === 'object' && typeof node.$ref === 'string') {
    const ref: string = node.$ref;
    if (!ref.startsWith('#')) throw new ContractViolation(`Only local $refs are supported, found ${ref} at ${pointer}`);
    if (seen.has(ref)) throw new ContractViolation(`$ref cycle at ${ref}`);
    seen.add(ref);
    pointer = decodeURIComponent(ref.slice(1));
    node = at(document, pointer);
    if (node === undefined) throw new ContractViolation(`Unresolved $ref ${ref}`);
  }
  return { node, pointer };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Every operation of the document, most specific templates first. */
export function operationsOf(document: Json): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const pointer = pointerOf('paths', template, method);
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: Json) => resolve(document, p, pointer).node);
      const greedy = new Set(parameters.filter((p: Json) => p.in === 'path' && p['x-greedy'] === true).map((p: Json) => p.name as string));
      let literals = 0;
      const source = template
        .split('/')
        .map((segment) => {
          const param = /^\{([^}]+)\}$/.exec(segment);
          if (!param) {
            literals++;
            return escapeRegex(segment);
          }
          return greedy.has(param[1] as string) ? '(.+)' : '([^/]+)';
        })
        .join('/');
      operations.push({
        method: method.toUpperCase(),
        template,
        operationId: operation.operationId,
        regex: new RegExp(`^${source}$`),
        pointer,
        operation,
        literals,
      });
    }
  }
  return operations.sort((a, b) => b.literals - a.literals);
}

interface Contract {
  document: Json;
  operations: Operation[];
  findOperation(method: string, path: string): Operation | undefined;
  validateResponse(method: string, path: string, status: number, body: unknown): void;
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  const lines = (errors ?? []).map((e) => {
    const where = e.instancePath || '(body)';
    const extra =
      e.keyword === 'additionalProperties'
        ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'`
        : e.keyword === 'enum' || e.keyword === 'const'
          ? ` ${JSON.stringify((e.params as { allowedValues?: unknown; allowedValue?: unknown }).allowedValues ?? (e.params as { allowedValue?: unknown }).allowedValue)}`
          : '';
    return `  - ${where} ${e.message}${extra}`;
  });
  return [...new Set(lines)].slice(0, 20).join('\n');
}

function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? 'undefined' : text.length > 1500 ? `${text.slice(0, 1500)}…` : text;
}

function createContract(document: Json): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, DOC_ID);
  const operations = operationsOf(document);
  const validators = new Map<string, ValidateFunction>();

  const validatorAt = (pointer: string): ValidateFunction => {
    let validate = validators.get(pointer);
    if (!validate) {
      const fragment = pointer
        .split('/')
        .map((segment) => encodeURIComponent(segment))
        .join('/');
      validate = ajv.compile({ $ref: `${DOC_ID}#${fragment}` });
      validators.set(pointer, validate);
    }
    return validate;
  };

  const findOperation = (method: string, path: string) => {
    const bare = path.split(/[?#]/, 1)[0] as string;
    return operations.find((o) => o.method === method.toUpperCase() && o.regex.test(bare));
  };

  const validateResponse = (method: string, path: string, status: number, body: unknown) => {
    const operation = findOperation(method, path);
    const name = operation
      ? `${operation.method} ${operation.template} (${operation.operationId})`
      : `${method.toUpperCase()} ${path} (no documented operation: x-unmatched-route)`;
    let response: { node: Json; pointer: string };
    if (operation) {
      const responses = operation.operation.responses ?? {};
      const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => responses[k] !== undefined);
      if (!key) {
        throw new ContractViolation(
          `${name} answered ${status}, which the document does not list (documented: ${Object.keys(responses).join(', ')}).\nBody: ${preview(body)}`,
        );
      }
      response = resolve(document, responses[key], `${operation.pointer}${pointerOf('responses', key)}`);
    } else {
      if (status !== 404 || !document['x-unmatched-route']) {
        throw new ContractViolation(`${name} answered ${status}; a route the document does not list must answer 404.\nBody: ${preview(body)}`);
      }
      response = resolve(document, document['x-unmatched-route'], pointerOf('x-unmatched-route'));
    }

    const media = response.node.content?.['application/json'];
    if (!media) {
      if (body === '' || body === undefined || body === null) return;
      throw new ContractViolation(`${name} answered ${status} with a body, but the document describes none.\nBody: ${preview(body)}`);
    }
    if (!media.schema) return;
    const validate = validatorAt(`${response.pointer}${pointerOf('content', 'application/json', 'schema')}`);
    if (!validate(body)) {
      throw new ContractViolation(
        `${name} answered ${status} with a body that does not match the document (${response.pointer}):\n${describeErrors(validate.errors)}\nBody: ${preview(body)}`,
      );
    }
  };

  return { document, operations, findOperation, validateResponse };
}

let shared: Contract | undefined;

/** The contract of docs/openapi.yaml, built on first use. */
function contract(): Contract {
  shared ??= createContract(openapiDocument());
  return shared;
}

/** Throws a ContractViolation when the response does not match docs/openapi.yaml. */
export function validateResponse(method: string, path: string, status: number, body: unknown): void {
  contract().validateResponse(method, path, status, body);
}
