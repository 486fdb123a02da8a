/**
 * A loopback HTTP server that answers the real AWS SDK v3 clients (endpoint overridden to it) and an
 * OpenAI-compatible client, so the platform adapters that run in AWS are the code the tests exercise.
 *
 * Requests are told apart the way AWS tells them apart: by the SigV4 credential scope's service
 * name, then by path or X-Amz-Target. Unsigned requests (bearer-token Bedrock, the hosted API) fall
 * back to the same path and target rules.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttp1Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server } from 'node:http2';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { bedrock } from './bedrock';
import { cloudwatch } from './cloudwatch';
import { hosted } from './hosted';
import { queryErrorXml, ses, sns } from './notify';
import { persistState } from './persistence';
import { pricing } from './pricing';
import { runtime } from './runtime';
import { createUnmanagedEndpoint, sagemaker, settleEndpoint } from './sagemaker';
import { ssm } from './ssm';
import {
  ACCOUNT_ID,
  EmulatorError,
  FAULT_KINDS,
  createState,
  signedBy,
  type Ctx,
  type EmulatorOptions,
  type EmulatorState,
  type FaultKind,
  type FaultRule,
  type Reply,
  type ResolvedOptions,
  type Route,
  type ServiceDef,
} from './shared';
import { keepIdleConnections } from '../keep-alive';

export type { EmulatorOptions } from './shared';

export interface RunningEmulator {
  url: string;
  port: number;
  /** Live state: call counts, faults, SageMaker resources, recorded invocations. */
  state: EmulatorState;
  /** Live options: lifecycleDelayMs and responseDelayMs may be changed between requests. */
  options: ResolvedOptions;
  close(): Promise<void>;
}

// ---------------------------------------------------------------- dispatch

function signingService(authorization: string | undefined): string | undefined {
  // AWS4-HMAC-SHA256 Credential=AKID/20240101/us-east-1/bedrock/aws4_request, SignedHeaders=..., Signature=...
  return /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(authorization ?? '')?.[1];
}

function pickService(ctx: Ctx): ServiceDef | undefined {
  const target = String(ctx.headers['x-amz-target'] ?? '');
  const isRuntimePath = ctx.path.startsWith('/endpoints/');
  switch (signingService(ctx.headers.authorization)) {
    case 'bedrock':
      return bedrock;
    case 'sagemaker':
      return isRuntimePath ? runtime : sagemaker;
    case 'monitoring':
      return cloudwatch;
    case 'pricing':
      return pricing;
    case 'ssm':
      return ssm;
    case 'sns':
      return sns;
    case 'ses':
      return ses;
  }
  if (/^\/(model|foundation-models)(\/|$)/.test(ctx.path)) return bedrock;
  if (target.startsWith('SageMaker.')) return sagemaker;
  if (isRuntimePath) return runtime;
  if (target.startsWith('GraniteServiceVersion20100801.')) return cloudwatch;
  if (target.startsWith('AWSPriceListService.')) return pricing;
  if (target.startsWith('AmazonSSM.')) return ssm;
  if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) return hosted;
  return undefined;
}

function renderError(service: ServiceDef | undefined, err: EmulatorError): Reply {
  const style = service?.errorStyle ?? { kind: 'restJson', messageKey: 'message' };
  const json = (headers: Record<string, string>, body: unknown): Reply => ({
    status: err.status,
    headers,
    body: Buffer.from(JSON.stringify(body)),
  });
  const extra = err.details.extra ?? {};
  switch (style.kind) {
    case 'restJson':
      return json(
        { 'content-type': 'application/json', 'x-amzn-errortype': `${err.code}${style.errorTypeSuffix ?? ''}` },
        { __type: err.code, [style.messageKey]: err.message, ...extra },
      );
    case 'awsJson':
      return json(
        { 'content-type': style.contentType, 'x-amzn-errortype': err.code },
        { __type: err.code, [style.messageKey]: err.message, ...extra },
      );
    case 'queryCompatJson':
      return json(
        {
          'content-type': style.contentType,
          ...(err.details.queryCode ? { 'x-amzn-query-error': `${err.details.queryCode};${err.details.queryFault ?? 'Sender'}` } : {}),
        },
        // Modelled CloudWatch faults carry `Message`, coral's generic ones `message`; both are sent.
        { __type: err.code.includes('#') ? err.code : `${style.namespace}#${err.code}`, message: err.message, Message: err.message, ...extra },
      );
    case 'awsQueryXml':
      return { status: err.status, headers: { 'content-type': 'text/xml' }, body: Buffer.from(queryErrorXml(style.namespace, err)) };
    case 'problem':
      return json(
        { 'content-type': 'application/problem+json' },
        { type: err.details.problemType ?? 'about:blank', status: err.status, title: err.details.title ?? err.code, detail: err.message, ...extra },
      );
  }
}

// ---------------------------------------------------------------- faults

function matchFault(ctx: Ctx, route: Route): FaultKind | undefined {
  const { state } = ctx;
  const rule = state.faults.find(
    (f) =>
      (f.target === '*' || f.target === route.op) &&
      (f.model === undefined || route.keys.includes(f.model)) &&
      (f.caller === undefined || f.caller === signedBy(ctx)),
  );
  if (!rule) return undefined;
  if (rule.skip > 0) {
    rule.skip--;
    return undefined;
  }
  rule.hits++;
  if (rule.remaining !== null && --rule.remaining <= 0) state.faults = state.faults.filter((f) => f !== rule);
  return rule.fault;
}

function headerFault(ctx: Ctx): FaultKind | undefined {
  const value = ctx.headers['x-emulator-fault'];
  return typeof value === 'string' && (FAULT_KINDS as readonly string[]).includes(value) ? (value as FaultKind) : undefined;
}

// ---------------------------------------------------------------- control API (/_emulator)

function isLoopback(req: IncomingMessage): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

function controlApi(ctx: Ctx, req: IncomingMessage, reset: () => void): Reply {
  const ok = (value: unknown, status = 200): Reply => ({
    status,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(value)),
  });
  const fail = (status: number, message: string) => ok({ error: message }, status);
  if (!isLoopback(req)) return fail(403, 'The control API only answers loopback callers');

  const { state, opts } = ctx;
  const route = `${ctx.method} ${ctx.path.replace(/\/+$/, '')}`;
  let body: Record<string, unknown> = {};
  if (ctx.body.length > 0) {
    try {
      body = JSON.parse(ctx.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return fail(400, 'The body is not JSON');
    }
  }

  const oneFault = /^DELETE \/_emulator\/faults\/(.+)$/.exec(route);
  if (oneFault) {
    const before = state.faults.length;
    state.faults = state.faults.filter((f) => f.id !== decodeURIComponent(oneFault[1] as string));
    return state.faults.length < before ? ok({ deleted: true }) : fail(404, 'No such fault');
  }

  // A system-defined inference profile AWS stops offering in the Region (POST), or offers again (DELETE).
  const retired = /^(POST|DELETE) \/_emulator\/retired-profiles\/(.+)$/.exec(route);
  if (retired) {
    const id = decodeURIComponent(retired[2] as string);
    if (retired[1] === 'POST') state.retiredProfiles.add(id);
    else state.retiredProfiles.delete(id);
    return ok({ retired: [...state.retiredProfiles] });
  }

  switch (route) {
    case 'POST /_emulator/faults': {
      const { target, model, fault, count, after, caller } = body;
      if (typeof target !== 'string' || !target) return fail(400, 'target must be an operation name or "*"');
      if (!(FAULT_KINDS as readonly unknown[]).includes(fault)) return fail(400, `fault must be one of ${FAULT_KINDS.join(', ')}`);
      if (model !== undefined && typeof model !== 'string') return fail(400, 'model must be a string');
      if (caller !== undefined && (typeof caller !== 'string' || !caller)) return fail(400, 'caller must be an access key id');
      if (count !== undefined && (!Number.isInteger(count) || (count as number) < 1)) return fail(400, 'count must be a positive integer');
      if (after !== undefined && (!Number.isInteger(after) || (after as number) < 0)) return fail(400, 'after must be a non-negative integer');
      const rule: FaultRule = {
        id: `fault-${state.nextId++}`,
        target,
        model: model,
        fault: fault as FaultKind,
        remaining: (count as number | undefined) ?? null,
        skip: (after as number | undefined) ?? 0,
        hits: 0,
        ...(caller === undefined ? {} : { caller }),
      };
      state.faults.push(rule);
      return ok({ id: rule.id }, 201);
    }
    case 'GET /_emulator/faults':
      return ok({ faults: state.faults });
    case 'DELETE /_emulator/faults':
      state.faults = [];
      return ok({ cleared: true });
    case 'POST /_emulator/reset':
      reset();
      return ok({ reset: true });
    case 'GET /_emulator/state': {
      const endpoints = [...state.endpoints.keys()]
        .map((name) => settleEndpoint(state, opts, name))
        .filter((ep) => ep !== undefined)
        .map((ep) => ({
          name: ep.name,
          status: ep.status,
          configName: ep.configName,
          failureReason: ep.failureReason,
          tags: Object.fromEntries((state.tags.get(ep.arn) ?? []).map((t) => [t.Key, t.Value])),
        }));
      return ok({
        calls: state.calls,
        runtimeTargets: state.runtimeTargets,
        runtimeTargetsByCaller: state.runtimeTargetsByCaller,
        inferenceProfiles: [...state.inferenceProfiles.values()].map((p) => ({
          ...p,
          tags: Object.fromEntries((state.tags.get(p.arn) ?? []).map((t) => [t.Key, t.Value])),
        })),
        endpoints,
        endpointConfigs: [...state.endpointConfigs.keys()],
        models: [...state.models.keys()],
        faults: state.faults,
        invocations: state.invocations.length,
        published: state.published,
        emails: state.emails,
        options: { lifecycleDelayMs: opts.lifecycleDelayMs, responseDelayMs: opts.responseDelayMs },
      });
    }
    case 'POST /_emulator/endpoints': {
      // An endpoint created behind the service's back (another tool, a colleague's script).
      const { name, instanceType, instanceCount, tags } = body;
      if (typeof name !== 'string' || !name) return fail(400, 'name must be an endpoint name');
      if (instanceType !== undefined && typeof instanceType !== 'string') return fail(400, 'instanceType must be a string');
      if (instanceCount !== undefined && (!Number.isInteger(instanceCount) || (instanceCount as number) < 1))
        return fail(400, 'instanceCount must be a positive integer');
      if (tags !== undefined && (typeof tags !== 'object' || tags === null || Array.isArray(tags)))
        return fail(400, 'tags must be an object of tag keys to values');
      try {
        const created = createUnmanagedEndpoint(state, opts, {
          name,
          instanceType,
          instanceCount: instanceCount as number | undefined,
          tags: Object.entries((tags ?? {}) as Record<string, unknown>).map(([Key, Value]) => ({ Key, Value: String(Value) })),
        });
        return ok(created, 201);
      } catch (err) {
        return fail(400, err instanceof EmulatorError ? err.message : String(err));
      }
    }
    case 'POST /_emulator/config': {
      for (const key of ['lifecycleDelayMs', 'responseDelayMs'] as const) {
        const value = body[key];
        if (value === undefined) continue;
        if (!Number.isInteger(value) || (value as number) < 0) return fail(400, `${key} must be a non-negative integer`);
        opts[key] = value as number;
      }
      return ok({ lifecycleDelayMs: opts.lifecycleDelayMs, responseDelayMs: opts.responseDelayMs });
    }
  }
  return fail(404, `No control route ${route}`);
}

// ---------------------------------------------------------------- server

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function send(res: ServerResponse, reply: Reply): Promise<void> {
  if (reply.stream) {
    res.writeHead(reply.status, { 'x-amzn-requestid': randomUUID(), date: new Date().toUTCString(), ...reply.headers });
    res.flushHeaders();
    // A caller that hangs up stops the stream, as a service stops generating for a closed connection.
    for await (const chunk of reply.stream) {
      if (res.destroyed) break;
      res.write(chunk);
    }
    res.end();
    return;
  }
  res.writeHead(reply.status, {
    'x-amzn-requestid': randomUUID(),
    date: new Date().toUTCString(),
    'content-length': String(reply.body.length),
    ...reply.headers,
  });
  res.end(reply.body);
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const opts: ResolvedOptions = {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    lifecycleDelayMs: options.lifecycleDelayMs ?? 0,
    responseDelayMs: options.responseDelayMs ?? 0,
    region: options.region ?? 'us-east-1',
    hostedApiKey: options.hostedApiKey ?? 'local-hosted-key',
    parameters: { ...options.parameters },
    accountId: ACCOUNT_ID,
  };
  const state = createState();
  const reset = () => Object.assign(state, createState());
  const store = options.stateFile ? persistState(state, options.stateFile) : undefined;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://emulator');
    const ctx: Ctx = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: await readBody(req),
      state,
      opts,
      fail: false,
    };

    if (ctx.path === '/_emulator' || ctx.path.startsWith('/_emulator/')) return send(res, controlApi(ctx, req, reset));

    const service = pickService(ctx);
    let route: Route | undefined;
    let reply: Reply;
    try {
      route = service?.route(ctx);
      if (!service || !route) {
        throw new EmulatorError(404, 'UnknownOperationException', `The emulator does not implement ${ctx.method} ${ctx.path}`);
      }
      state.calls[route.op] = (state.calls[route.op] ?? 0) + 1;

      const fault = headerFault(ctx) ?? matchFault(ctx, route);
      // Never answered: the socket stays open until the client gives up or close() destroys it.
      if (fault === 'timeout') return;
      if (fault === '500' || (fault === 'fail' && !route.canFail)) throw service.internalError();
      if (fault === '429') throw service.throttlingError();
      if (fault === 'context') throw service.contextError?.(ctx, route) ?? service.internalError();
      ctx.fail = fault === 'fail';
      if (fault === 'slow-stream' || fault === 'midstream') ctx.streamFault = fault;

      reply = await route.run();
      // Done, but the answer never leaves: the socket stays open until the client gives up.
      if (fault === 'lost') return;
      if (fault === 'malformed' && !reply.stream) {
        // A body cut off mid-document: the status says success, the JSON does not parse.
        reply = { ...reply, body: Buffer.concat([reply.body.subarray(0, Math.floor(reply.body.length / 2)), Buffer.from('\u0000<')]) };
      }
    } catch (err) {
      reply = renderError(
        service,
        err instanceof EmulatorError ? err : (service?.internalError() ?? new EmulatorError(500, 'InternalFailure', String(err))),
      );
      if (!(err instanceof EmulatorError)) console.error('[emulator] handler failed:', err);
    }
    await send(res, reply);
    if (service && route) service.onComplete?.(ctx, route, reply.status, Date.now() - started);
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res)
      .catch((err: unknown) => {
        console.error('[emulator] request failed:', err);
        if (!res.headersSent) void send(res, renderError(undefined, new EmulatorError(500, 'InternalFailure', 'Emulator failure')));
        else res.destroy();
      })
      // Any request may have changed the platform (a read settles a transition that is due).
      .finally(() => store?.changed());
  };
  const http1 = keepIdleConnections(createHttp1Server(onRequest));
  // The compat API gives HTTP/2 requests the HTTP/1 request/response surface the handler uses.
  const h2c = createHttp2Server();
  h2c.on('request', (req, res) => onRequest(req as unknown as IncomingMessage, res as unknown as ServerResponse));

  // The Bedrock runtime client talks HTTP/2 (prior knowledge, no TLS) and the others HTTP/1.1, all
  // to the one endpoint URL, so each connection is routed by its first bytes: the HTTP/2 preface
  // starts "PRI * HTTP/2.0".
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', (first: Buffer) => {
      socket.pause();
      socket.unshift(first);
      (first.subarray(0, 3).toString('latin1') === 'PRI' ? h2c : http1).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  opts.port = port;
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host;

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    state,
    options: opts,
    close: () =>
      new Promise<void>((resolve, reject) => {
        store?.flush();
        server.close((err) => (err ? reject(err) : resolve()));
        for (const socket of sockets) socket.destroy();
      }),
  };
}
