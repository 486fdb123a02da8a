/**
 * Section 16, what a gateway call costs to serve (issue 31): the DynamoDB capacity and the Lambda time
 * one typical /v1 call takes, in dollars per million calls at AWS's published on-demand prices, beside
 * the model cost of the same call from the service's own price entries, with prompt caching off and on.
 *
 *   - The calls: a /v1/chat/completions call of 1,000 input tokens (a 900-token system prompt and a
 *     100-token question) and 300 output tokens on a managed Claude model, answered whole through the
 *     HTTP function and streamed through the function URL with the official OpenAI client; and a
 *     500-token /v1/embeddings call on Titan Text Embeddings v2. All with a personal key that has a
 *     monthly budget (the hold, then the settle).
 *   - DynamoDB: every command metered and priced from item sizes as in section 3 (bench/capacity.ts),
 *     the HTTP function's part per call and the stream side's: the calls' stream records captured and
 *     handed to the real aggregator in one event, its capacity divided by the calls it settled, for a
 *     quiet stream (one call per batch) and a busy one (QUIET_BUSY[1] calls per batch).
 *   - Lambda: one invocation of the HTTP (or URL) function per call, and the aggregator's invocation
 *     shared by the calls of its batch; GB-seconds from each function's deployed memory size
 *     (serverless.yml) times the duration measured here, in process: an estimate from local timings,
 *     in which the emulator answers at once where Bedrock takes seconds (priced apart below).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../local/runtime';
import { metered, type EndpointCapacity } from './capacity';
import { fmtMs, fmtNum, loadAverage, markdownTable, summarize, type Row, type SectionResult } from './harness';
import { benchStream, invoke, service, sharedWorld, type Service } from './service';

/**
 * AWS's published on-demand prices in us-east-1, the one place the bench keeps them. Read on READ_ON
 * from the pages docs/benchmarks.md section 16 cites: DynamoDB on-demand (after November 2024's cut),
 * Lambda (requests and duration by architecture, first pricing tier), Bedrock (the global-profile
 * prices of the current Claude models; geographic profiles cost 10 % more).
 */
export const AWS_PRICES = {
  readOn: '2026-11-28',
  region: 'us-east-1',
  dynamodb: { perReadRequestUnit: 0.125 / 1e6, perWriteRequestUnit: 0.625 / 1e6 },
  lambda: { perRequest: 0.2 / 1e6, perGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 } as Record<string, number> },
  bedrock: {
    'anthropic.claude-sonnet-4-5-20250929-v1:0': {
      input_per_1k: 0.003,
      output_per_1k: 0.015,
      cache_read_per_1k: 0.0003,
      cache_write_per_1k: 0.00375,
    },
    'anthropic.claude-haiku-4-5-20251001-v1:0': { input_per_1k: 0.001, output_per_1k: 0.005, cache_read_per_1k: 0.0001, cache_write_per_1k: 0.00125 },
  } as Record<string, CachedPrice>,
};

interface CachedPrice {
  input_per_1k: number;
  output_per_1k: number;
  cache_read_per_1k?: number;
  cache_write_per_1k?: number;
}

/**
 * The fewest tokens a prompt must hold before its cache checkpoint for Bedrock to cache it (AWS's
 * "Prompt caching for faster model inference"; Anthropic's prompt-caching page): below it the call is
 * billed as if uncached.
 */
const CACHE_MIN_TOKENS: Record<string, number> = {
  'anthropic.claude-sonnet-4-5-20250929-v1:0': 1024,
  'anthropic.claude-haiku-4-5-20251001-v1:0': 4096,
};

/** Claude's cache read is a tenth of its input price (Bedrock's pricing page), where no entry gives one. */
const CLAUDE_CACHE_READ_FACTOR = 0.1;

/** The typical call: tokens in, of them from the system prompt (what caching reads), and out. */
const CALL = { input: 1000, system: 900, output: 300 };
const EMBED_TOKENS = 500;
/** The emulator counts 4 characters to a token; its "at length" answer writes until max_tokens. */
const SYSTEM = 'You are the support assistant of a bench. '.padEnd(CALL.system * 4, 'Answer briefly and cite the manual. ');
const QUESTION = 'Explain the bench at length, please. '.padEnd((CALL.input - CALL.system) * 4, 'Thanks. ');
const EMBED_INPUT = 'A paragraph the bench embeds. '.padEnd(EMBED_TOKENS * 4, 'More words to embed. ');

/** Managed chat models to measure on, the first the emulator deploys (a current one where its catalogue has it). */
const CHAT_MODELS = ['anthropic.claude-haiku-4-5-20251001-v1:0', 'anthropic.claude-3-haiku-20240307-v1:0'];
const EMBED_MODEL = 'amazon.titan-embed-text-v2:0';
/** The models whose model cost is shown: the current Claude models, priced from the service's table where it has them. */
const PRICED_MODELS = Object.keys(AWS_PRICES.bedrock);
/** Calls per stream batch: a quiet stream (each call its own aggregator invocation) and a busy one. */
const QUIET_BUSY = [1, 50] as const;

/** A function's deployed memory (MB) and architecture: its own setting in functions/<area>/functions.yml, else the provider's. */
function deployed(area: string, functionName: string): { memoryMb: number; architecture: string } {
  const read = (file: string) => parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, unknown>;
  const provider = (read('serverless.yml') as { provider: { memorySize: number; architecture?: string } }).provider;
  const own = (read(join('functions', area, 'functions.yml')) as Record<string, { memorySize?: number; architecture?: string }>)[functionName];
  if (!own) throw new Error(`no function ${functionName} in functions/${area}/functions.yml`);
  const architecture = own.architecture ?? provider.architecture ?? 'x86_64';
  if (AWS_PRICES.lambda.perGbSecond[architecture] === undefined) throw new Error(`no Lambda price for the ${architecture} architecture`);
  return { memoryMb: own.memorySize ?? provider.memorySize, architecture };
}

/** What one call of a kind consumed: its function's part and the stream side's, per call. */
interface Measured {
  label: string;
  functionName: string;
  http: EndpointCapacity;
  httpMs: number;
  settle: { batch: number; capacity: EndpointCapacity; msPerCall: number }[];
}

/** Dollars per million calls of what one call consumed, the stream side at a batch of `batch`. */
function perMillion(m: Measured, batch: number, aggregator: ReturnType<typeof deployed>) {
  const fn = deployed('gateway', m.functionName);
  const settle = m.settle.find((s) => s.batch === batch) as Measured['settle'][number];
  const { dynamodb, lambda } = AWS_PRICES;
  const gbSeconds = (memoryMb: number, ms: number) => (memoryMb / 1024) * (ms / 1000);
  const rcu = m.http.rcu + settle.capacity.rcu;
  const wcu = m.http.wcu + settle.capacity.wcu;
  const invocations = 1 + 1 / batch;
  const ddb = (rcu * dynamodb.perReadRequestUnit + wcu * dynamodb.perWriteRequestUnit) * 1e6;
  const requests = invocations * lambda.perRequest * 1e6;
  const duration =
    (gbSeconds(fn.memoryMb, m.httpMs) * (lambda.perGbSecond[fn.architecture] as number) +
      gbSeconds(aggregator.memoryMb, settle.msPerCall) * (lambda.perGbSecond[aggregator.architecture] as number)) *
    1e6;
  return { rcu, wcu, invocations, ddb, requests, duration, total: ddb + requests + duration };
}

async function measureCalls(svc: Service, repeats: number): Promise<{ model: string; calls: Measured[] }> {
  const world = await sharedWorld();
  const [{ handler: createKey }, { handler: completions }, { handler: embeddings }, { call }, { installAwsLambdaGlobal, startLambdaUrl }, OpenAI] =
    await Promise.all([
      import('../functions/keys/create'),
      import('../functions/gateway/completions'),
      import('../functions/gateway/embeddings'),
      import('../tests/helpers/invoke'),
      import('../local/lambda-url'),
      import('openai').then((m) => m.default),
    ]);
  type Handler = Parameters<typeof call>[0];
  /** Deploys a managed resource the real way; its endpoint name, or undefined where the catalogue refuses the model. */
  const deploy = async (modelId: string) => {
    const endpointName = `bench-cost-${randomUUID().slice(0, 8)}`;
    const res = await invoke(svc, 'deployManaged', {
      method: 'POST',
      path: '/api/deploy/managed',
      token: world.adminToken,
      body: { modelId, endpointName, dryRun: false },
    });
    return res.status === 200 ? endpointName : undefined;
  };
  let model = '';
  let chatName: string | undefined;
  for (const candidate of CHAT_MODELS) {
    chatName = await deploy(candidate);
    if (chatName) {
      model = candidate;
      break;
    }
  }
  const embedName = await deploy(EMBED_MODEL);
  if (!chatName || !embedName) throw new Error(`the emulator deploys none of ${CHAT_MODELS.join(', ')}, or not ${EMBED_MODEL}`);
  const keyRes = await call(createKey as Handler, { method: 'POST', token: world.token, body: { name: 'bench cost', monthly_budget_usd: 1000 } });
  if (keyRes.status !== 201) throw new Error(`key create answered ${keyRes.status}`);
  const key = keyRes.body.key as string;
  const auth = { authorization: `Bearer ${key}` };
  const messages = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: QUESTION },
  ];
  const expectUsage = (what: string, usage: { prompt_tokens: number; completion_tokens?: number }, input: number, output?: number) => {
    if (usage.prompt_tokens !== input || (output !== undefined && usage.completion_tokens !== output))
      throw new Error(`${what}: usage ${JSON.stringify(usage)}, not ${input} in / ${output ?? 0} out`);
  };

  installAwsLambdaGlobal();
  const { handler: streamHandler } = await import('../functions/gateway/completions-stream');
  const url = await startLambdaUrl({ handler: streamHandler, functionName: 'chatCompletionsStream' });
  try {
    const client = new OpenAI({ baseURL: `${url.url}/v1`, apiKey: key, maxRetries: 0 });
    const kinds: [label: string, functionName: string, run: () => Promise<void>][] = [
      [
        'chat completion, answered whole',
        'chatCompletions',
        async () => {
          const res = await call(completions as Handler, {
            method: 'POST',
            headers: auth,
            body: { model: chatName, messages, max_tokens: CALL.output },
          });
          if (res.status !== 200) throw new Error(`completion answered ${res.status}: ${res.raw.slice(0, 300)}`);
          expectUsage('completion', res.body.usage, CALL.input, CALL.output);
        },
      ],
      [
        'chat completion, streamed (function URL)',
        'chatCompletionsStream',
        async () => {
          const stream = await client.chat.completions.create({
            model: chatName,
            messages: messages as never,
            max_tokens: CALL.output,
            stream: true,
            stream_options: { include_usage: true },
          });
          let usage;
          for await (const chunk of stream) usage = chunk.usage ?? usage;
          if (!usage) throw new Error('the stream ended without its usage');
          expectUsage('streamed completion', usage, CALL.input, CALL.output);
        },
      ],
      [
        `embeddings, ${EMBED_TOKENS} tokens`,
        'embeddings',
        async () => {
          const res = await call(embeddings as Handler, { method: 'POST', headers: auth, body: { model: embedName, input: EMBED_INPUT } });
          if (res.status !== 200) throw new Error(`embeddings answered ${res.status}: ${res.raw.slice(0, 300)}`);
          expectUsage('embeddings', res.body.usage, EMBED_TOKENS);
        },
      ],
    ];
    const stream = await benchStream(svc);
    const calls: Measured[] = [];
    for (const [label, functionName, run] of kinds) {
      process.stderr.write(`  ${label}…\n`);
      await run(); // first-call caches (the key's owner, the model's name), as a warm Lambda has them
      const per: { capacity: EndpointCapacity; ms: number }[] = [];
      for (let k = 0; k < repeats; k++) {
        const started = performance.now();
        const { capacity } = await metered(svc, label, run);
        per.push({ capacity, ms: performance.now() - started });
      }
      per.sort((a, b) => a.capacity.wcu + a.capacity.rcu - (b.capacity.wcu + b.capacity.rcu));
      const http = (per[Math.floor(per.length / 2)] as (typeof per)[number]).capacity;
      const httpMs = summarize(per.map((p) => p.ms)).median;
      const settle: Measured['settle'] = [];
      for (const batch of QUIET_BUSY) {
        await stream.drain();
        for (let k = 0; k < batch; k++) await run();
        const records = await stream.capture();
        const started = performance.now();
        const { capacity } = await metered(svc, `${label}: settle`, () => stream.aggregate({ Records: records }));
        const ms = performance.now() - started;
        const each = (n: number) => n / batch;
        settle.push({
          batch,
          msPerCall: each(ms),
          capacity: {
            ...capacity,
            rcu: each(capacity.rcu),
            wcu: each(capacity.wcu),
            reportedRcu: each(capacity.reportedRcu),
            reportedWcu: each(capacity.reportedWcu),
          },
        });
      }
      calls.push({ label, functionName, http, httpMs, settle });
    }
    return { model, calls };
  } finally {
    await url.close();
  }
}

/** The model cost of the typical chat call in nano-dollars, caching off and on (the system prompt read from the cache). */
async function modelCosts() {
  const [{ getTokenPrice }, { costOfTokens }] = await Promise.all([import('../lib/pricing/service'), import('../core/money')]);
  const rows = [];
  for (const modelId of PRICED_MODELS) {
    const stored = (await getTokenPrice('managed', modelId)) as Awaited<ReturnType<typeof getTokenPrice>> & CachedPrice;
    const published = AWS_PRICES.bedrock[modelId] as CachedPrice;
    const fromTable = stored.source !== 'fallback';
    const price: CachedPrice = fromTable ? stored : published;
    const cacheRead = price.cache_read_per_1k ?? published.cache_read_per_1k ?? price.input_per_1k * CLAUDE_CACHE_READ_FACTOR;
    const cacheSource = fromTable && stored.cache_read_per_1k !== undefined ? "the service's price entry" : "AWS's published cache price";
    const off = costOfTokens([
      { tokens: CALL.input, usdPer1k: price.input_per_1k },
      { tokens: CALL.output, usdPer1k: price.output_per_1k },
    ]);
    const on = costOfTokens([
      { tokens: CALL.input - CALL.system, usdPer1k: price.input_per_1k },
      { tokens: CALL.system, usdPer1k: cacheRead },
      { tokens: CALL.output, usdPer1k: price.output_per_1k },
    ]);
    const minimum = CACHE_MIN_TOKENS[modelId];
    rows.push({
      modelId,
      off,
      on,
      minimum,
      cacheable: minimum === undefined || CALL.system >= minimum,
      source: fromTable ? `the service's price entry (${stored.source})` : "AWS's published price (no entry in the service's table)",
      cacheSource,
    });
  }
  const embed = await getTokenPrice('managed', EMBED_MODEL);
  return { chat: rows, embed: costOfTokens([{ tokens: EMBED_TOKENS, usdPer1k: embed.input_per_1k }]), embedSource: embed.source };
}

const usd = (n: number) => `$${n < 0.01 ? n.toPrecision(2) : n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const pct = (n: number) => `${n < 0.1 ? n.toFixed(3) : n.toFixed(2)} %`;

export async function callCost(options: { repeats: number }): Promise<SectionResult> {
  const svc = await service();
  const loadBefore = loadAverage();
  const { model, calls } = await measureCalls(svc, options.repeats);
  const loadAfter = loadAverage();
  const { usdOf } = await import('../core/money');
  const costs = await modelCosts();
  const aggregator = deployed('usage', 'aggregateUsage');
  const [quiet, busy] = QUIET_BUSY;
  const chatBase = deployed('gateway', 'chatCompletions');
  const perSecondWaiting = (chatBase.memoryMb / 1024) * (AWS_PRICES.lambda.perGbSecond[chatBase.architecture] as number) * 1e6;

  const serviceRows: (string | number)[][] = [];
  const ratioRows: (string | number)[][] = [];
  const embedRows: (string | number)[][] = [];
  const rows: Row[] = [];
  let worstChatRatio = 0;
  for (const m of calls) {
    const isChat = m.functionName !== 'embeddings';
    for (const batch of QUIET_BUSY) {
      const p = perMillion(m, batch, aggregator);
      const settle = m.settle.find((s) => s.batch === batch) as Measured['settle'][number];
      serviceRows.push([
        `${m.label}, ${batch === 1 ? 'quiet stream (1 call a batch)' : `busy stream (${batch} calls a batch)`}`,
        `${fmtNum(m.http.rcu)} + ${fmtNum(settle.capacity.rcu, 2)}`,
        `${fmtNum(m.http.wcu)} + ${fmtNum(settle.capacity.wcu, 2)}`,
        fmtNum(p.invocations, 2),
        `${fmtMs(m.httpMs)} + ${fmtMs(settle.msPerCall)}`,
        usd(p.ddb),
        usd(p.requests),
        usd(p.duration),
        `**${usd(p.total)}**`,
      ]);
      rows.push({
        section: '16 callcost',
        measure: `${m.label}, stream batch ${batch}: service cost per million calls`,
        value: `${usd(p.total)} (DynamoDB ${usd(p.ddb)}: RCU ${fmtNum(p.rcu, 2)}, WCU ${fmtNum(p.wcu, 2)}; Lambda ${usd(p.requests + p.duration)})`,
        status: 'info',
      });
      const models: [string, number][] = isChat
        ? costs.chat.flatMap((c): [string, number][] => [
            [`${c.modelId} off`, c.off],
            [`${c.modelId} on`, c.on],
          ])
        : [[EMBED_MODEL, costs.embed]];
      const shares = models.map(([, nanos]) => (p.total / (usdOf(nanos) * 1e6)) * 100);
      if (isChat) worstChatRatio = Math.max(worstChatRatio, ...shares);
      (isChat ? ratioRows : embedRows).push([`${m.label}, stream batch ${batch}`, usd(p.total), ...shares.map(pct)]);
    }
  }
  rows.push({
    section: '16 callcost',
    measure: 'service cost of a typical Claude gateway call, as a share of its model cost (worst row; Lambda time waiting on the model left out)',
    value: pct(worstChatRatio),
    target: '< 1 %',
    status: worstChatRatio < 1 ? 'met' : 'not met',
  });

  const markdown = [
    `What serving one gateway call costs in DynamoDB and Lambda, per million calls, beside what the model costs. Measured on the emulator's \`${model}\` (managed), through the service's real handlers in process, with a personal key that has a monthly budget; the calls are ${CALL.input} input tokens (a ${CALL.system}-token system prompt and a ${CALL.input - CALL.system}-token question) and ${CALL.output} output tokens, and a ${EMBED_TOKENS}-token embedding on \`${EMBED_MODEL}\`. Each call's usage is checked to be exactly these tokens. Machine load (1/5/15 min) ${loadBefore} before, ${loadAfter} after.`,
    '',
    `- **DynamoDB** (counted): every command metered and priced from item sizes by DynamoDB's rules, as in section 3; the HTTP function's part is the median of ${options.repeats} calls after one unmeasured call. The **stream side** is the real aggregator handler given the calls' stream records in one event, its capacity divided by the calls it settled: ${quiet} call a batch (a quiet stream, each call its own invocation) and ${busy} (a busy one, where settles of one key share a transaction). On-demand read request units are priced per RCU as computed (0.5 for an eventually consistent read of 4 KB), write request units per WCU (2 for a transactional write of 1 KB).`,
    `- **Lambda invocations** (counted): 1 of the HTTP or URL function per call, plus 1/batch of the aggregator. **GB-seconds** (estimated): each function's memory size as deployed (serverless.yml: ${chatBase.memoryMb} MB ${chatBase.architecture}; the aggregator ${aggregator.memoryMb} MB ${aggregator.architecture}) times the in-process duration measured here, the median of the timed calls; these are local timings on a shared machine, an estimate, not Lambda's billed duration. The emulator answers at once; on Bedrock the function also waits while the model writes, and **each second it waits adds ${usd(perSecondWaiting)} per million calls** (a ${CALL.output}-token answer takes a few seconds), which the figures below leave out.`,
    `- **Prices**: AWS's on-demand prices in ${AWS_PRICES.region}, read ${AWS_PRICES.readOn} (bench/callcost.ts \`AWS_PRICES\`): DynamoDB $${fmtNum(AWS_PRICES.dynamodb.perWriteRequestUnit * 1e6, 3)} per million write request units and $${fmtNum(AWS_PRICES.dynamodb.perReadRequestUnit * 1e6, 3)} per million read request units (https://aws.amazon.com/dynamodb/pricing/on-demand/); Lambda $${fmtNum(AWS_PRICES.lambda.perRequest * 1e6, 2)} per million requests and $${AWS_PRICES.lambda.perGbSecond.arm64} per GB-second on arm64 ($${AWS_PRICES.lambda.perGbSecond.x86_64} on x86), first tier (https://aws.amazon.com/lambda/pricing/). Response streaming's charge past the first 6 MB of a response does not arise here.`,
    `- **Model cost**: the service's own price entries (lib/pricing, the nano-dollar money of core/money.ts), where it has one for the model; otherwise Bedrock's published global-profile price (https://aws.amazon.com/bedrock/pricing/), said in the table. Caching on: the system prompt's ${CALL.system} tokens read from the prompt cache (the call after the one that wrote it), at the entry's \`cache_read_per_1k\` where it has one, else Bedrock's published cache-read price (a tenth of the input price for Claude).`,
    `- **Caching on, service side**: the measured call sends no \`cache_control\`, so the DynamoDB and Lambda rows are the caching-off call's; a call that asks for caching (its hold priced as a 1-hour write) is not measured here. Bedrock caches a prompt only from a minimum size on (${costs.chat.map((c) => `${c.minimum} tokens on \`${c.modelId}\``).join(', ')}), so the ${CALL.system}-token system prompt of this typical call is under it: the "caching on" model rows show what the call costs when its system prompt is read from the cache, not what Bedrock would bill for this exact prompt.`,
    `- **Not counted**: API Gateway's per-request charge for the HTTP API route, CloudWatch (logs, metrics), the aggregator's invocation that folds an hour's usage items into the month (set off by the hour item's creation: once an hour per key, user and team, not per call), and the expiry of reservation items (TTL deletes are free).`,
    '',
    markdownTable(
      [
        'Call',
        'RCU (function + stream)',
        'WCU (function + stream)',
        'Lambda invocations',
        'Duration (function + stream, est.)',
        'DynamoDB / M calls',
        'Lambda requests / M',
        'Lambda GB-s / M (est.)',
        'Service / M calls',
      ],
      serviceRows,
    ),
    '',
    markdownTable(
      ['Model', 'Priced from', 'Cache read priced from', 'Model cost of one call', 'Per million calls'],
      [
        ...costs.chat.flatMap((c) => [
          [`${c.modelId}, caching off`, c.source, '', `$${usdOf(c.off).toFixed(9)}`, usd(usdOf(c.off) * 1e6)],
          [
            `${c.modelId}, caching on${c.cacheable ? '' : ` (a ${CALL.system}-token prompt is under its ${c.minimum}-token cache minimum: Bedrock would bill it uncached)`}`,
            c.source,
            c.cacheSource,
            `$${usdOf(c.on).toFixed(9)}`,
            usd(usdOf(c.on) * 1e6),
          ],
        ]),
        [EMBED_MODEL, `the service's price entry (${costs.embedSource})`, '', `$${usdOf(costs.embed).toFixed(9)}`, usd(usdOf(costs.embed) * 1e6)],
      ],
    ),
    '',
    'The service as a share of the model cost (caching off, and on: the system prompt read from the cache):',
    '',
    markdownTable(['Chat call', 'Service / M calls', ...costs.chat.flatMap((c) => [`${c.modelId}, off`, `${c.modelId}, on`])], ratioRows),
    '',
    markdownTable(['Embeddings call', 'Service / M calls', EMBED_MODEL], embedRows),
  ].join('\n');
  return { rows, markdown };
}
