/**
 * The service, loaded in this process for sections 2-6: handlers, table modules and the test
 * helpers that build API Gateway v2 events, imported only after `startLocalRuntime` has set the
 * environment (core/config reads it at import). Also the fixtures the sections share: users, a
 * managed resource, a conversation and a thread with some history, created once.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { CallOptions } from '../tests/helpers/invoke';
import { DbMeter, onCleanup, startLocalRuntime, type LocalRuntime } from './harness';

async function load() {
  const runtime = await startLocalRuntime();
  const [
    client,
    invoke,
    users,
    fixtures,
    tokens,
    tablesUsers,
    messages,
    usage,
    conversations,
    transactions,
    validate,
    listManaged,
    resourceStatus,
    threadPost,
    threadGet,
    usageCurrent,
    conversationsList,
    conversationsCreate,
    login,
    deployManaged,
    conversationMessages,
  ] = await Promise.all([
    import('../tables/client'),
    import('../tests/helpers/invoke'),
    import('../tests/helpers/users'),
    import('../tests/integration/chat-fixtures'),
    import('../lib/auth/tokens'),
    import('../tables/users'),
    import('../tables/messages'),
    import('../tables/usage'),
    import('../tables/conversations'),
    import('../tables/transactions'),
    import('../functions/auth/validate'),
    import('../functions/models/list-managed'),
    import('../functions/resources/status'),
    import('../functions/chat/thread-post'),
    import('../functions/chat/thread-get'),
    import('../functions/usage/current'),
    import('../functions/conversations/list'),
    import('../functions/conversations/create'),
    import('../functions/auth/login'),
    import('../functions/deploy/managed'),
    import('../functions/conversations/messages'),
  ]);
  const meter = new DbMeter();
  meter.install(client.db);
  type AnyHandler = (event: never, context: never) => Promise<unknown>;
  const handlers = {
    validate: validate.handler,
    listManaged: listManaged.handler,
    resourceStatus: resourceStatus.handler,
    threadPost: threadPost.handler,
    threadGet: threadGet.handler,
    usageCurrent: usageCurrent.handler,
    conversationsList: conversationsList.handler,
    conversationsCreate: conversationsCreate.handler,
    login: login.handler,
    deployManaged: deployManaged.handler,
    conversationMessages: conversationMessages.handler,
    threadPostNew: threadPost.handler,
    threadPostShort: threadPost.handler,
  } as unknown as Record<string, AnyHandler>;
  return { runtime, client, invoke, users, fixtures, tokens, tablesUsers, messages, usage, conversations, transactions, handlers, meter };
}

export type Service = Awaited<ReturnType<typeof load>> & { runtime: LocalRuntime };
export type HandlerName =
  | 'validate'
  | 'listManaged'
  | 'resourceStatus'
  | 'threadPost'
  | 'threadGet'
  | 'usageCurrent'
  | 'conversationsList'
  | 'conversationsCreate'
  | 'login'
  | 'deployManaged'
  | 'conversationMessages'
  | 'threadPostNew'
  | 'threadPostShort';

let loaded: Promise<Service> | undefined;
export function service(): Promise<Service> {
  loaded ??= load();
  return loaded;
}

export interface Response {
  status: number;
  body: any;
}

/**
 * Calls a handler as Lambda would. The event is built before `time` starts (API Gateway builds it,
 * not the function); the response body is parsed after.
 */
export async function invoke(
  svc: Service,
  name: HandlerName,
  options: CallOptions,
  time: <T>(work: () => Promise<T>) => Promise<T> = (w) => w(),
): Promise<Response> {
  const handler = svc.handlers[name] as (event: unknown, context: unknown) => Promise<APIGatewayProxyStructuredResultV2>;
  const event = svc.invoke.httpEvent(options);
  const context = svc.invoke.lambdaContext();
  const result = await time(() => handler(event, context));
  let body: unknown = result.body;
  try {
    body = JSON.parse(result.body ?? '');
  } catch {
    // left as text
  }
  return { status: result.statusCode ?? 200, body };
}

export function expectOk(what: string, res: Response, status = 200): Response {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`);
  return res;
}

// ------------------------------------------------------------------------------------ requests

export interface World {
  user: { id: string; username: string };
  token: string;
  admin: { id: string; username: string };
  adminToken: string;
  resourceId: string;
  conversationId: string;
  threadId: string;
  /** A thread of short messages: its turns' texts stay under the 1 KB a write unit holds. */
  shortThreadId: string;
  password: string;
}

/** The request each measured endpoint gets. */
export function requests(world: World) {
  let turn = 0;
  /** A chat turn continuing `threadId`, or starting a new thread without one. */
  const threadTurn = (threadId?: string, message = `Benchmark turn ${++turn}: what is the capital of France?`): CallOptions => ({
    method: 'POST',
    path: '/api/chat/thread',
    token: world.token,
    body: {
      message,
      conversationId: world.conversationId,
      resourceId: world.resourceId,
      ...(threadId ? { threadId } : {}),
    },
  });
  return {
    validate: (): CallOptions => ({ method: 'GET', path: '/api/auth/validate', token: world.token }),
    listManaged: (): CallOptions => ({ method: 'GET', path: '/api/models/managed', token: world.token }),
    resourceStatus: (): CallOptions => ({
      method: 'GET',
      path: `/api/resources/${world.resourceId}/status`,
      routeKey: 'GET /api/resources/{resourceId}/status',
      pathParameters: { resourceId: world.resourceId },
      token: world.token,
    }),
    threadPost: (): CallOptions => threadTurn(world.threadId),
    threadPostNew: (): CallOptions => threadTurn(),
    threadPostShort: (): CallOptions => threadTurn(world.shortThreadId, `Hi ${++turn}`),
    conversationMessages: (): CallOptions => ({
      method: 'GET',
      path: `/api/conversations/${world.conversationId}/messages`,
      routeKey: 'GET /api/conversations/{id}/messages',
      pathParameters: { id: world.conversationId },
      token: world.token,
    }),
    usageCurrent: (): CallOptions => ({
      method: 'GET',
      path: '/api/usage/current',
      token: world.token,
      query: { conversationId: world.conversationId },
    }),
    conversationsList: (): CallOptions => ({ method: 'GET', path: '/api/conversations', token: world.token }),
    threadGet: (): CallOptions => ({
      method: 'GET',
      path: '/api/chat/thread',
      token: world.token,
      query: { conversationId: world.conversationId, threadId: world.threadId },
    }),
    login: (): CallOptions => ({ method: 'POST', path: '/api/auth/login', body: { username: world.user.username, password: world.password } }),
    conversationsCreate: (): CallOptions => ({
      method: 'POST',
      path: '/api/conversations',
      token: world.token,
      body: {
        title: 'Benchmark conversation',
        use_case: 'benchmarking',
        deployed_resource: {
          resource_name: 'bench-managed',
          resource_type: 'managed',
          cloud_resource_id: world.resourceId,
          region: 'us-east-1',
          estimated_hourly_cost: 0,
        },
      },
    }),
    deployManaged: (): CallOptions => ({
      method: 'POST',
      path: '/api/deploy/managed',
      token: world.adminToken,
      body: { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', endpointName: `bench-${randomUUID().slice(0, 12)}`, dryRun: false },
    }),
  } satisfies Record<HandlerName, () => CallOptions>;
}

/** A first chat turn without threadId: the thread it starts. */
async function startThread(svc: Service, token: string, conversationId: string, resourceId: string, message: string): Promise<string> {
  const first = expectOk(
    'first chat turn',
    await invoke(svc, 'threadPost', { method: 'POST', path: '/api/chat/thread', token, body: { message, conversationId, resourceId } }),
  );
  return first.body.threadId as string;
}

let world: Promise<World> | undefined;

/**
 * One user and one admin (bcrypt cost 10, as deployed), a managed resource, a conversation and a
 * thread with 12 turns of history (the context of later turns), and the managed catalogue cached.
 */
export function sharedWorld(): Promise<World> {
  world ??= (async () => {
    const svc = await service();
    const { user, token } = await svc.users.makeUser('user');
    const { user: admin, token: adminToken } = await svc.users.makeUser('admin');
    const resource = await svc.fixtures.managedResource();
    const conversationId = await svc.fixtures.newConversation(token, resource, 'Benchmark conversation');
    const w: World = {
      user,
      token,
      admin,
      adminToken,
      resourceId: resource.id,
      conversationId,
      threadId: '',
      shortThreadId: '',
      password: svc.users.PASSWORD,
    };
    w.threadId = await startThread(svc, token, conversationId, resource.id, 'Hello there');
    w.shortThreadId = await startThread(svc, token, conversationId, resource.id, 'Hi');
    const req = requests(w);
    for (let i = 0; i < 11; i++) {
      expectOk('history turn', await invoke(svc, 'threadPost', req.threadPost()));
      expectOk('history turn', await invoke(svc, 'threadPostShort', req.threadPostShort()));
    }
    const list = expectOk('managed model list', await invoke(svc, 'listManaged', req.listManaged()));
    if (!Array.isArray(list.body.models) || list.body.models.length === 0) throw new Error('managed model list is empty');
    return w;
  })();
  return world;
}

/**
 * `n` people chatting: each a user of their own with a conversation and a thread started with one
 * turn, and the request body of their next turn (`message`), as the load sections drive them.
 */
export async function seedChatters(svc: Service, n: number, label: string, message: string): Promise<{ token: string; body: string }[]> {
  process.stderr.write(`  seeding ${n} users, each with a conversation and a thread…\n`);
  const resource = await svc.fixtures.managedResource();
  const chatters: { token: string; body: string }[] = [];
  for (let i = 0; i < n; i++) {
    const { token } = await svc.users.makeUser('user');
    const conversationId = await svc.fixtures.newConversation(token, resource, `${label} ${i}`);
    const threadId = await startThread(svc, token, conversationId, resource.id, 'Hello');
    chatters.push({ token, body: JSON.stringify({ message, conversationId, resourceId: resource.id, threadId }) });
  }
  return chatters;
}

export interface BenchStream {
  /** Runs the usage aggregator over everything written so far (as Lambda would), until caught up. */
  drain(): Promise<void>;
  /** The stream records written since the last call, read but not aggregated. */
  capture(): Promise<DynamoDBRecord[]>;
  /** The aggregator's handler, to deliver captured records with. */
  aggregate(event: DynamoDBStreamEvent): Promise<unknown>;
}

let stream: Promise<BenchStream> | undefined;

/** The bench table's stream, read by local/stream-poller.ts (one reader per run, so every record once). */
export function benchStream(svc: Service): Promise<BenchStream> {
  stream ??= (async () => {
    const [{ StreamReader }, { localDynamoClient }, { handler }] = await Promise.all([
      import('../local/stream-poller'),
      import('../local/runtime'),
      import('../functions/usage/aggregate'),
    ]);
    // The consumer as its event source mapping calls it: with a Lambda context.
    const aggregate = (event: DynamoDBStreamEvent) => handler(event, svc.invoke.lambdaContext());
    let sink: (event: DynamoDBStreamEvent) => Promise<unknown> = aggregate;
    const dynamo = localDynamoClient(svc.runtime.dynamoEndpoint);
    const reader = new StreamReader({
      dynamo,
      endpoint: svc.runtime.dynamoEndpoint,
      table: svc.runtime.table,
      handler: (e) => sink(e),
      onGiveUp: 'throw',
    });
    onCleanup('bench stream reader', () => {
      reader.close();
      dynamo.destroy();
    });
    const all = async () => {
      while ((await reader.poll()) > 0);
    };
    return {
      drain: async () => {
        sink = aggregate;
        await all();
      },
      capture: async () => {
        const records: DynamoDBRecord[] = [];
        sink = async (e) => records.push(...e.Records);
        try {
          await all();
        } finally {
          sink = aggregate;
        }
        return records;
      },
      aggregate,
    };
  })();
  return stream;
}
