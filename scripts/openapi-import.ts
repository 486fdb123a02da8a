/**
 * `npx tsx scripts/openapi-import.ts [document.yaml]`: turns a hand-written OpenAPI document (by default
 * docs/openapi.yaml) into the modules the contract is generated from, overwriting what it wrote before:
 *
 *   functions/<area>/response-schemas.ts   components.schemas as TypeBox, each in the one area that uses it
 *                                   (functions/system/response-schemas.ts: the schemas several areas share)
 *   functions/<area>/operations.ts  each operation's words, parameters, request body and responses
 *   functions/system/document.ts    the document's head and shared components (responses, parameters, headers)
 *
 * A request body or parameter that the handler declares a TypeBox schema for is shown from that schema
 * (the validation keywords are the handler's); only its words (description, examples) are kept. Roles
 * and security are the handler's auth level unless the document says otherwise. Every other schema is
 * turned into TypeBox code that renders exactly the JSON it came from (checked as it is written), so
 * `npm run generate` gives the same document back. Deterministic: the same input writes the same files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Type, type TSchema } from '@sinclair/typebox';
import { format } from 'prettier';
import { parse } from 'yaml';
import { errorResponseName, Named, OneOf, Ref, type ErrorDialect } from '../lib/http/contract';
import { ANNOTATIONS, isSame, plain, ROOT } from './generate/openapi';
import { accessOf, requestSchemasOf, serverlessRoutes, type Route } from './generate/routes';

type Json = any;

const SCHEMA_REF = /^#\/components\/schemas\/(.+)$/;
const SHARED = 'system';
const GENERATED_NOTE = '// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.\n';
/** Names that would shadow a global in the module that declares them. */
const GLOBALS = new Set(['Error', 'Response', 'Request', 'Headers', 'Object', 'Array', 'String', 'Number', 'Boolean', 'Date', 'Map', 'Set']);
const identOf = (name: string) => (GLOBALS.has(name) ? `${name}Schema` : name.replace(/[^A-Za-z0-9_$]/g, '_'));

// ---------------------------------------------------------------------------------------------
// Literals: JSON as readable TypeScript
// ---------------------------------------------------------------------------------------------

function str(text: string): string {
  if (!text.includes('\n')) return JSON.stringify(text);
  return `\`${text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${')}\``;
}

const keyOf = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key));

/** A JSON value as code; `at(key, value, path)` may render a child itself (a schema, a request body). */
function lit(value: Json, at?: (key: string, child: Json, path: string[]) => string | undefined, path: string[] = []): string {
  if (typeof value === 'string') return str(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v, i) => lit(v, at, [...path, String(i)])).join(', ')}]`;
  const entries = Object.entries(value).map(([k, v]) => `${keyOf(k)}: ${at?.(k, v, [...path, k]) ?? lit(v, at, [...path, k])}`);
  return `{ ${entries.join(', ')} }`;
}

// ---------------------------------------------------------------------------------------------
// Schemas: JSON Schema as TypeBox, checked to render back the same JSON
// ---------------------------------------------------------------------------------------------

interface Built {
  code: string;
  value: TSchema;
}

const TS_TYPES: Record<string, string> = { string: 'string', integer: 'number', number: 'number', boolean: 'boolean', null: 'null' };

/** The static type of a schema TypeBox has no builder for, where it is plain: a constant, or a list of simple types. */
function staticOf(node: Json): string {
  if (node && typeof node === 'object' && node.const !== undefined) return `<${JSON.stringify(node.const)}>`;
  const types = Array.isArray(node?.type) ? node.type : [];
  if (types.length && types.every((t: string) => TS_TYPES[t])) return `<${types.map((t: string) => TS_TYPES[t]).join(' | ')}>`;
  return '';
}

class SchemaWriter {
  /** Identifiers this module takes from others: ident → module (relative, without extension). */
  readonly imports = new Map<string, string>();
  readonly typebox = new Set<string>();
  /** Schemas rendered as opaque JSON because no TypeBox builder gives them back exactly. */
  static opaque: string[] = [];

  constructor(
    private readonly named: Map<string, { value: TSchema; module: string; ident: string }>,
    private readonly module: string,
  ) {}

  private use(name: string): { value: TSchema; ident: string } {
    const target = this.named.get(name);
    if (!target) throw new Error(`#/components/schemas/${name} is not a schema this import writes (a request schema referred to by another?)`);
    if (target.module !== this.module) this.imports.set(target.ident, target.module);
    return target;
  }

  private opts(node: Json, omit: string[]): { code: string; value: Json } {
    const rest = Object.fromEntries(Object.entries(node).filter(([k]) => !omit.includes(k)));
    return { code: Object.keys(rest).length ? `, ${lit(rest)}` : '', value: rest };
  }

  private tb(name: string): string {
    this.typebox.add('Type');
    return `Type.${name}`;
  }

  build(node: Json, where: string): Built {
    const attempt = this.attempt(node);
    if (attempt && isSame(plain(attempt.value), node)) return attempt;
    SchemaWriter.opaque.push(where);
    this.typebox.add('Type');
    return { code: `Type.Unsafe${staticOf(node)}(${lit(node)})`, value: Type.Unsafe(node) };
  }

  private attempt(node: Json): Built | undefined {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
    const { $ref } = node;
    if (typeof $ref === 'string') {
      const name = SCHEMA_REF.exec($ref)?.[1];
      if (!name) return undefined;
      const target = this.use(name);
      const o = this.opts(node, ['$ref']);
      this.typebox.add('Ref');
      return { code: `Ref(${target.ident}${o.code})`, value: Ref(target.value, o.value) };
    }
    const children = (list: Json[], key: string) => list.map((b, i) => this.build(b, `${key}/${i}`));
    for (const [keyword, builder] of [
      ['anyOf', 'Union'],
      ['oneOf', 'OneOf'],
      ['allOf', 'Intersect'],
    ] as const) {
      if (!Array.isArray(node[keyword])) continue;
      const branches = children(node[keyword], keyword);
      const o = this.opts(node, [keyword]);
      const code = `${builder === 'OneOf' ? 'OneOf' : this.tb(builder)}([${branches.map((b) => b.code).join(', ')}]${o.code})`;
      if (builder === 'OneOf') this.typebox.add('OneOf');
      const values = branches.map((b) => b.value);
      const value =
        builder === 'OneOf' ? OneOf(values, o.value) : builder === 'Union' ? Type.Union(values, o.value) : Type.Intersect(values, o.value);
      return { code, value };
    }
    if (Array.isArray(node.enum)) {
      this.typebox.add('Type');
      const union = node.enum.map((v: Json) => JSON.stringify(v)).join(' | ');
      return { code: `Type.Unsafe<${union}>(${lit(node)})`, value: Type.Unsafe(node) };
    }
    if (node.const !== undefined && ['string', 'number', 'boolean'].includes(typeof node.const)) {
      const o = this.opts(node, ['const', 'type']);
      return { code: `${this.tb('Literal')}(${JSON.stringify(node.const)}${o.code})`, value: Type.Literal(node.const, o.value) };
    }
    const simple: Record<string, (o: Json) => TSchema> = {
      string: (o) => Type.String(o),
      integer: (o) => Type.Integer(o),
      number: (o) => Type.Number(o),
      boolean: (o) => Type.Boolean(o),
      null: (o) => Type.Null(o),
    };
    if (typeof node.type === 'string' && simple[node.type]) {
      const o = this.opts(node, ['type']);
      const builder = node.type[0].toUpperCase() + node.type.slice(1);
      return { code: `${this.tb(builder)}(${o.code.slice(2)})`, value: (simple[node.type] as (o: Json) => TSchema)(o.value) };
    }
    if (node.type === 'array' && node.items && typeof node.items === 'object') {
      const items = this.build(node.items, 'items');
      const o = this.opts(node, ['type', 'items']);
      return { code: `${this.tb('Array')}(${items.code}${o.code})`, value: Type.Array(items.value, o.value) };
    }
    if (node.type === 'object' && node.patternProperties && !node.properties) {
      const keys = Object.keys(node.patternProperties);
      if (keys.length !== 1 || keys[0] !== '^(.*)$') return undefined;
      const values = this.build(node.patternProperties['^(.*)$'], 'patternProperties');
      const o = this.opts(node, ['type', 'patternProperties']);
      return {
        code: `${this.tb('Record')}(Type.String(), ${values.code}${o.code})`,
        value: Type.Record(Type.String(), values.value, o.value),
      };
    }
    if (node.type === 'object' && !node.patternProperties) {
      const required: string[] = node.required ?? [];
      const properties: Record<string, Json> = node.properties ?? {};
      if (required.some((r) => !(r in properties)) || (node.required && required.length === 0)) return undefined;
      const props = Object.entries(properties).map(([k, v]) => {
        const built = this.build(v, `properties/${k}`);
        const optional = !required.includes(k);
        return {
          k,
          code: optional ? `${this.tb('Optional')}(${built.code})` : built.code,
          value: optional ? Type.Optional(built.value) : built.value,
        };
      });
      const o = this.opts(node, ['type', 'properties', 'required']);
      return {
        code: `${this.tb('Object')}({ ${props.map((p) => `${keyOf(p.k)}: ${p.code}`).join(', ')} }${o.code})`,
        value: Type.Object(Object.fromEntries(props.map((p) => [p.k, p.value])), o.value),
      };
    }
    return undefined;
  }

  header(): string {
    const lines: string[] = [];
    const typebox = [...this.typebox].filter((n) => n === 'Type');
    if (typebox.length) lines.push(`import { Type } from '@sinclair/typebox';`);
    const contract = ['Named', 'OneOf', 'Ref'].filter((n) => this.typebox.has(n));
    if (contract.length) lines.push(`import { ${contract.join(', ')} } from '../../lib/http/contract';`);
    const byModule = new Map<string, string[]>();
    for (const [ident, module] of [...this.imports].sort()) byModule.set(module, [...(byModule.get(module) ?? []), ident]);
    const area = /^\.\.\/([\w-]+)\//.exec(this.module)?.[1];
    for (const [module, idents] of [...byModule].sort()) lines.push(`import { ${idents.join(', ')} } from '${module.replace(`../${area}/`, './')}';`);
    return lines.join('\n');
  }
}

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

/** Words of a request schema, by pointer into it, following $refs as the TypeBox schema inlines them. */
function annotationsOf(node: Json, doc: Json, pointer = '', out: Record<string, Json> = {}, depth = 0): Record<string, Json> {
  if (!node || typeof node !== 'object' || depth > 20) return out;
  const own = Object.fromEntries(Object.entries(node).filter(([k]) => ANNOTATIONS.includes(k)));
  const name = typeof node.$ref === 'string' ? SCHEMA_REF.exec(node.$ref)?.[1] : undefined;
  if (name) annotationsOf(doc.components.schemas[name], doc, pointer, out, depth + 1);
  if (Object.keys(own).length) out[pointer] = { ...(out[pointer] ?? {}), ...own };
  for (const [key, child] of Object.entries<Json>(node.properties ?? {})) annotationsOf(child, doc, `${pointer}/properties/${key}`, out, depth + 1);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'])
    (node[keyword] ?? []).forEach((b: Json, i: number) => annotationsOf(b, doc, `${pointer}/${keyword}/${i}`, out, depth + 1));
  for (const keyword of ['items', 'then', 'else', 'not'])
    if (node[keyword]) annotationsOf(node[keyword], doc, `${pointer}/${keyword}`, out, depth + 1);
  return out;
}

/** Every components.schemas name a node refers to. */
function refsOf(node: Json, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, out));
  else if (node && typeof node === 'object') {
    const name = typeof node.$ref === 'string' ? SCHEMA_REF.exec(node.$ref)?.[1] : undefined;
    if (name) out.add(name);
    for (const child of Object.values(node)) refsOf(child, out);
  }
  return out;
}

const DIALECTS: ErrorDialect[] = ['api', 'message', 'thread', 'openai', 'anthropic'];

/**
 * An operation's responses as code: the shared error answers of its dialect folded into
 * `...errors(dialect, statuses)`, everything else as it is.
 */
function responsesCode(responses: Record<string, Json>, part: (value: Json) => string, useErrors: () => void): string {
  const shared = (status: string, response: Json) =>
    Object.keys(response).length === 1 && typeof response.$ref === 'string' && /^\d{3}$/.test(status) ? response.$ref.split('/').pop() : undefined;
  // The dialect that names the most of its error answers.
  const fits = (dialect: ErrorDialect) =>
    Object.entries(responses).filter(([status, response]) => {
      const name = shared(status, response);
      return name !== undefined && name === errorResponseName(dialect, Number(status));
    });
  const dialect = DIALECTS.map((d) => [d, fits(d).length] as const).sort((a, b) => b[1] - a[1])[0] as readonly [ErrorDialect, number];
  if (dialect[1] === 0) return part(responses);
  const folded = new Set(fits(dialect[0]).map(([status]) => status));
  const rest = Object.fromEntries(Object.entries(responses).filter(([status]) => !folded.has(status)));
  useErrors();
  const restCode = part(rest).slice(1, -1).trim();
  return `{ ${restCode ? `${restCode}, ` : ''}...errors(${JSON.stringify(dialect[0])}, ${[...folded].join(', ')}) }`;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

interface Imported {
  route: Route;
  op: Json;
  params: Json[];
  schemas: ReturnType<typeof requestSchemasOf>;
}

/** The modules written (path → text), and every schema written, as the JSON its TypeBox renders. */
export async function importDocument(
  doc: Json,
  root = ROOT,
  { pretty = true } = {},
): Promise<{ files: Map<string, string>; schemas: Map<string, Json> }> {
  const routes = new Map(serverlessRoutes(root).map((r) => [`${r.method} ${r.path}`, r]));
  const ops: Imported[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of HTTP_METHODS) {
      if (!item[method]) continue;
      const route = routes.get(`${method} ${path}`);
      if (!route) throw new Error(`${method.toUpperCase()} ${path}: no route in serverless.yml`);
      if (item[method].operationId !== route.functionName)
        throw new Error(`${method.toUpperCase()} ${path}: operationId ${item[method].operationId}, function ${route.functionName}`);
      const params = [...(item.parameters ?? []), ...(item[method].parameters ?? [])];
      ops.push({ route, op: item[method], params, schemas: requestSchemasOf(readFileSync(join(root, route.handlerFile), 'utf8')) });
    }
  }

  // Request bodies shown from their handler's TypeBox schema: their components are not written.
  const requestNames = new Set<string>();
  for (const { op, schemas } of ops) {
    const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
    if (schemas.body && typeof ref === 'string') requestNames.add(SCHEMA_REF.exec(ref)?.[1] as string);
  }

  // Each schema goes to the one area that uses it, else to the shared module; its dependencies follow it.
  const areasOf = new Map<string, Set<string>>();
  const mark = (name: string, area: string, seen = new Set<string>()) => {
    if (seen.has(name)) return;
    seen.add(name);
    areasOf.set(name, (areasOf.get(name) ?? new Set()).add(area));
    for (const dep of refsOf(doc.components.schemas[name])) mark(dep, area, seen);
  };
  for (const { route, op, schemas } of ops) {
    const shown = schemas.body ? { ...op, requestBody: undefined } : op;
    for (const name of refsOf({ shown, params: schemas.query || schemas.path ? [] : op.parameters })) mark(name, route.area);
    if (schemas.body) for (const name of refsOf(annotationsOf(op.requestBody, doc))) mark(name, route.area);
  }
  const { paths: _paths, ...head } = doc;
  for (const name of refsOf({ ...head, components: { ...head.components, schemas: undefined } })) mark(name, SHARED);
  const moduleOf = (name: string) => {
    const areas = areasOf.get(name);
    return areas?.size === 1 ? ([...areas][0] as string) : SHARED;
  };

  // Topological order: a schema after those it refers to.
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (order.includes(name)) return;
    if (visiting.has(name)) throw new Error(`#/components/schemas/${name} refers to itself: not supported`);
    visiting.add(name);
    for (const dep of [...refsOf(doc.components.schemas[name])].sort()) visit(dep);
    visiting.delete(name);
    order.push(name);
  };
  for (const name of Object.keys(doc.components.schemas)) if (!requestNames.has(name)) visit(name);
  for (const name of order) if (requestNames.has(name)) throw new Error(`${name} is a request schema that another schema refers to`);

  const named = new Map<string, { value: TSchema; module: string; ident: string }>();
  const writers = new Map<string, SchemaWriter>();
  const bodies = new Map<string, string[]>();
  const writerOf = (area: string, file: string) => {
    const key = `${area}/${file}`;
    if (!writers.has(key)) writers.set(key, new SchemaWriter(named, `../${area}/response-schemas`));
    return writers.get(key) as SchemaWriter;
  };
  for (const name of order) {
    const area = moduleOf(name);
    const writer = writerOf(area, 'response-schemas');
    const built = writer.build(doc.components.schemas[name], `#/components/schemas/${name}`);
    writer.typebox.add('Named');
    const ident = identOf(name);
    named.set(name, { value: Named(name, built.value), module: `../${area}/response-schemas`, ident });
    const description = doc.components.schemas[name].description;
    const jsdoc = typeof description === 'string' && !description.includes('*/') ? `/** ${description.split('\n')[0]} */\n` : '';
    bodies.set(area, [...(bodies.get(area) ?? []), `${jsdoc}export const ${ident} = Named(${JSON.stringify(name)}, ${built.code});`]);
  }

  const files = new Map<string, string>();
  const emit = async (file: string, text: string) => files.set(file, pretty ? await format(text, { parser: 'typescript', ...PRETTIER }) : text);
  const PRETTIER = JSON.parse(readFileSync(join(root, '.prettierrc.json'), 'utf8')) as Record<string, unknown>;

  for (const [area, lines] of [...bodies].sort()) {
    const writer = writerOf(area, 'response-schemas');
    const intro =
      area === SHARED
        ? '/** The response schemas of the contract that several areas share (and the shared error bodies). */\n'
        : `/** The response schemas of functions/${area}/ (and schemas the document shows that no request check declares). */\n`;
    await emit(`functions/${area}/response-schemas.ts`, `${GENERATED_NOTE}${intro}${writer.header()}\n\n${lines.join('\n\n')}\n`);
  }

  /** Renders a non-schema part of the document, turning the schemas inside it into TypeBox. */
  const partOf = (writer: SchemaWriter, value: Json, where: string) =>
    lit(value, (key, child, path) => {
      if (key !== 'schema' || !child || typeof child !== 'object') return undefined;
      return writer.build(child, `${where}/${path.join('/')}`).code;
    });

  // Operations, per area.
  const byArea = new Map<string, Imported[]>();
  for (const imported of ops) byArea.set(imported.route.area, [...(byArea.get(imported.route.area) ?? []), imported]);
  for (const [area, list] of [...byArea].sort()) {
    const writer = new SchemaWriter(named, `../${area}/operations-self`);
    const requestImports = new Map<string, Set<string>>();
    const useRequest = (ref: { name: string; module: string }) => {
      const from =
        ref.module === 'lib/http/schemas.ts'
          ? '../../lib/http/schemas'
          : ref.module.startsWith(`functions/${area}/`)
            ? './schemas'
            : `../${ref.module.split('/')[1]}/schemas`;
      requestImports.set(from, (requestImports.get(from) ?? new Set()).add(ref.name));
      return ref.name;
    };
    const entries: string[] = [];
    for (const { route, op, params, schemas } of list) {
      const access = accessOf(readFileSync(join(root, route.handlerFile), 'utf8'));
      const { operationId: _id, parameters: _p, requestBody, security, 'x-roles': roles, ...rest } = op;
      const out: string[] = [];
      const where = `${route.method.toUpperCase()} ${route.path}`;
      for (const [k, v] of Object.entries(rest)) if (k !== 'responses') out.push(`${keyOf(k)}: ${partOf(writer, v, where)}`);
      if (JSON.stringify(security ?? doc.security) !== JSON.stringify(access.security)) out.push(`security: ${lit(security ?? doc.security)}`);
      if (JSON.stringify(roles) !== JSON.stringify(access.roles)) out.push(`'x-roles': ${lit(roles ?? null)}`);
      if (schemas.query || schemas.path) {
        const set = [schemas.query && `query: ${useRequest(schemas.query)}`, schemas.path && `path: ${useRequest(schemas.path)}`].filter(Boolean);
        const handlerProps: Record<string, Json> = {};
        for (const [location, ref] of Object.entries(schemas)) {
          if (location === 'body' || !ref) continue;
          const module = (await import(pathToFileURL(join(root, ref.module)).href)) as Record<string, TSchema>;
          for (const [name, prop] of Object.entries<Json>(plain(module[ref.name]).properties ?? {})) handlerProps[`${location}:${name}`] = prop;
        }
        const docs = params.map((p: Json) => {
          if (p.$ref) return p;
          const { schema, required: _r, ...words } = p;
          // A parameter the document shows as another type than its check (a number checked as text, so
          // that "2.5" is refused rather than converted) keeps the document's schema: the generator shows
          // words that carry a type instead of the check's schema.
          const own = handlerProps[`${p.in}:${p.name}`];
          if (schema?.type && own?.type && schema.type !== own.type) return { ...words, schema };
          const ann = annotationsOf(schema, doc)[''];
          return ann ? { ...words, schema: ann } : words;
        });
        out.push(`parameters: new Parameters({ ${set.join(', ')} }, ${lit(docs)})`);
        writer.typebox.add('Parameters');
      } else if (params.length) {
        throw new Error(`${where}: parameters documented but the handler declares no query or path schema`);
      }
      if (requestBody && schemas.body) {
        const media = requestBody.content['application/json'];
        const ref = typeof media.schema.$ref === 'string' ? SCHEMA_REF.exec(media.schema.$ref)?.[1] : undefined;
        const annotations = annotationsOf(media.schema, doc);
        const schemaCode = `new RequestSchema(${useRequest(schemas.body)}, ${JSON.stringify(ref ?? `${route.functionName}Request`)}, ${lit(annotations)})`;
        writer.typebox.add('RequestSchema');
        const body = lit(requestBody, (key, _child, path) => (key === 'schema' && path.length === 3 ? schemaCode : undefined));
        out.push(`requestBody: ${body}`);
      } else if (requestBody) {
        out.push(`requestBody: ${partOf(writer, requestBody, where)}`);
      }
      out.push(
        `responses: ${responsesCode(
          op.responses,
          (value) => partOf(writer, value, where),
          () => writer.typebox.add('errors'),
        )}`,
      );
      entries.push(`/** ${where} */\n${keyOf(route.functionName)}: { ${out.join(', ')} }`);
    }
    const contract = ['OneOf', 'Parameters', 'Ref', 'RequestSchema', 'errors'].filter((n) => writer.typebox.has(n));
    const imports = [
      writer.header().replace(/^import \{[^}]*\} from '\.\.\/\.\.\/lib\/http\/contract';$/m, ''),
      `import { ${[...contract, 'type Operations'].join(', ')} } from '../../lib/http/contract';`,
    ];
    for (const [from, names] of [...requestImports].sort()) imports.push(`import { ${[...names].sort().join(', ')} } from '${from}';`);
    const text = `${GENERATED_NOTE}/** The operations of functions/${area}/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */\n${imports.filter(Boolean).join('\n')}\n\nexport const operations: Operations = {\n${entries.join(',\n\n')}\n};\n`;
    await emit(`functions/${area}/operations.ts`, text);
  }

  // The head and the shared components.
  const writer = new SchemaWriter(named, `../${SHARED}/document-self`);
  const { components, ...top } = head;
  const { schemas: _schemas, ...shared } = components;
  const headCode = partOf(writer, { ...top, components: shared }, '#');
  await emit(
    `functions/${SHARED}/document.ts`,
    `${GENERATED_NOTE}/** The contract's head (info, servers, tags, default security) and its shared components, but schemas. */\n${writer.header()}\n\nexport const document = ${headCode};\n`,
  );
  const schemas = new Map([...named].map(([name, { value }]) => [name, (({ $id: _id, ...json }) => json)(plain(value))]));
  return { files, schemas };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const source = process.argv[2] ?? join(ROOT, 'docs', 'openapi.yaml');
  const doc = parse(readFileSync(source, 'utf8'), { schema: 'core', merge: false, uniqueKeys: true });
  const { files } = await importDocument(doc);
  for (const [file, text] of files) {
    writeFileSync(join(ROOT, file), text);
    console.log(`wrote ${file}`);
  }
  if (SchemaWriter.opaque.length)
    console.log(
      `${SchemaWriter.opaque.length} schemas kept as JSON (no TypeBox builder renders them exactly):\n  ${SchemaWriter.opaque.join('\n  ')}`,
    );
}
