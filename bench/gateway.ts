/**
 * Section 11, the OpenAI-compatible gateway (issue 14): what one POST /v1/chat/completions costs on
 * top of the model call it makes.
 *
 *   - Overhead in process: the completions handler (key lookup, owner, resource list, price, budget
 *     reservation, model call, one recording transaction) against the same upstream called directly
 *     (Bedrock Converse on the emulator through the same SDK client settings the service uses), the two
 *     interleaved call by call so that drift on the machine hits both alike; the overhead is the
 *     difference of the medians.
 *   - Overhead through serverless-offline (what `npm start` serves behind its front door): the same
 *     comparison over HTTP, sequential calls.
 *   - DynamoDB cost of one call, metered and priced like section 3: a key with a budget (reserve and
 *     settle) and a key without one.
 *   - The same, in process, for one POST /v1/embeddings (Titan Text Embeddings v2 against InvokeModel
 *     directly) and for one tool-call round trip (two completions: the tool call, then the answer from
 *     its result, against the two Converse calls with toolConfig made directly).
 */
import { randomUUID } from 'node:crypto';
import { BedrockRuntimeClient, ConverseCommand, InvokeModelCommand, type Message } from '@aws-sdk/client-bedrock-runtime';
import { metered, type EndpointCapacity } from './capacity';
import { fmtMs, fmtNum, loadAverage, markdownTable, onCleanup, summarize, timeLoop, type Row, type SectionResult, type Summary } from './harness';
import { expectOk, invoke, service, sharedWorld } from './service';

export interface GatewayOptions {
  n: number;
  httpN: number;
  warmup: number;
}

const MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
const PROMPT = 'Benchmark: what is the capital of France?';
const MAX_TOKENS = 64;
const EMBED_MODEL = 'amazon.titan-embed-text-v2:0';
const TOOL_PROMPT = 'What is the weather in Paris?';
const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

export async function gateway(options: GatewayOptions): Promise<SectionResult> {
  const svc = await service();
  const world = await sharedWorld();
  const [{ handler: createKey }, { handler: completions }, { handler: embeddings }, { call }, { http2ClientConfig, resolveAwsOptions }] =
    await Promise.all([
      import('../functions/keys/create'),
      import('../functions/gateway/completions'),
      import('../functions/gateway/embeddings'),
      import('../tests/helpers/invoke'),
      import('../lib/platforms/clients'),
    ]);
  type Handler = Parameters<typeof call>[0];

  // Managed resources deployed the real way (the gateway lists resources through their index): a chat model and an embedding model.
  const deployManaged = async (modelId: string, prefix: string) => {
    const name = `${prefix}-${randomUUID().slice(0, 8)}`;
    expectOk(
      'deploy',
      await invoke(svc, 'deployManaged', {
        method: 'POST',
        path: '/api/deploy/managed',
        token: world.adminToken,
        body: { modelId, endpointName: name, dryRun: false },
      }),
    );
    return name;
  };
  const endpointName = await deployManaged(MODEL, 'bench-gw');
  const embedName = await deployManaged(EMBED_MODEL, 'bench-emb');
  const newKey = async (body: Record<string, unknown>) => {
    const res = await call(createKey as Handler, {
      method: 'POST',
      token: world.token,
      body: { name: `bench ${randomUUID().slice(0, 6)}`, ...body },
    });
    if (res.status !== 201) throw new Error(`key create answered ${res.status}`);
    return res.body.key as string;
  };
  const budgeted = await newKey({ monthly_budget_usd: 1000 });
  const body = { model: endpointName, messages: [{ role: 'user', content: PROMPT }], max_tokens: MAX_TOKENS };
  const viaGateway = async (key: string) => {
    const res = await call(completions as Handler, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body });
    if (res.status !== 200) throw new Error(`completion answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  };
  const viaEmbeddings = async (key: string) => {
    const res = await call(embeddings as Handler, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { model: embedName, input: PROMPT },
    });
    if (res.status !== 200) throw new Error(`embeddings answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  };
  const tools = [{ type: 'function', function: WEATHER }];
  const viaToolRoundTrip = async (key: string) => {
    const complete = async (messages: unknown[]) => {
      const res = await call(completions as Handler, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: { model: endpointName, messages, tools, max_tokens: MAX_TOKENS },
      });
      if (res.status !== 200) throw new Error(`completion answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
      return res.body.choices[0].message as { tool_calls?: { id: string }[] };
    };
    const user = { role: 'user', content: TOOL_PROMPT };
    const first = await complete([user]);
    const id = first.tool_calls?.[0]?.id;
    if (!id) throw new Error('the model did not call the tool');
    await complete([user, first, { role: 'tool', tool_call_id: id, content: 'Sunny, 21 degrees' }]);
  };
  const bedrock = new BedrockRuntimeClient(http2ClientConfig(resolveAwsOptions()));
  const directEmbed = () =>
    bedrock.send(
      new InvokeModelCommand({
        modelId: EMBED_MODEL,
        contentType: 'application/json',
        accept: 'application/json',
        body: JSON.stringify({ inputText: PROMPT }),
      }),
    );
  const toolConfig = { tools: [{ toolSpec: { name: WEATHER.name, description: WEATHER.description, inputSchema: { json: WEATHER.parameters } } }] };
  const directToolRoundTrip = async () => {
    const user: Message = { role: 'user', content: [{ text: TOOL_PROMPT }] };
    const converse = (messages: Message[]) =>
      bedrock.send(new ConverseCommand({ modelId: MODEL, messages, toolConfig, inferenceConfig: { maxTokens: MAX_TOKENS } }));
    const first = await converse([user]);
    const assistant = first.output?.message as Message;
    const use = assistant.content?.find((b) => b.toolUse)?.toolUse;
    if (!use?.toolUseId) throw new Error('the model did not call the tool');
    await converse([
      user,
      assistant,
      { role: 'user', content: [{ toolResult: { toolUseId: use.toolUseId, content: [{ text: 'Sunny, 21 degrees' }] } }] },
    ]);
  };
  const unregister = onCleanup('bedrock client', () => bedrock.destroy());
  const direct = () =>
    bedrock.send(
      new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: PROMPT }] }], inferenceConfig: { maxTokens: MAX_TOKENS } }),
    );

  try {
    const loadBefore = loadAverage();
    process.stderr.write('  in process: gateway call and direct upstream call, interleaved…\n');
    const inProcess = await interleaved(options.n, options.warmup, {
      gateway: () => viaGateway(budgeted),
      direct: () => direct(),
    });

    process.stderr.write('  in process: embeddings and tool round trips, gateway and direct, interleaved…\n');
    const features = {
      embeddings: await interleaved(options.n, options.warmup, { gateway: () => viaEmbeddings(budgeted), direct: directEmbed }),
      toolRoundTrip: await interleaved(options.n, options.warmup, { gateway: () => viaToolRoundTrip(budgeted), direct: directToolRoundTrip }),
    };

    process.stderr.write('  capacity of one call…\n');
    const capacities: EndpointCapacity[] = [];
    // Fresh keys: a reservation stays on its key's spend item until the stream aggregator (not running
    // here) settles its call, so the keys of the timed runs above hold hundreds and their item is large.
    const [budgetedA, budgetedB, budgetedC, unbudgetedA] = await Promise.all([
      newKey({ monthly_budget_usd: 1000 }),
      newKey({ monthly_budget_usd: 1000 }),
      newKey({ monthly_budget_usd: 1000 }),
      newKey({}),
    ]);
    for (const [label, run] of [
      ['gateway completion, key with a budget', () => viaGateway(budgetedA)],
      ['gateway completion, key without a budget', () => viaGateway(unbudgetedA)],
      ['gateway embeddings, key with a budget', () => viaEmbeddings(budgetedB)],
      ['gateway tool round trip (2 completions), key with a budget', () => viaToolRoundTrip(budgetedC)],
    ] as const) {
      await run();
      const per: EndpointCapacity[] = [];
      for (let k = 0; k < 3; k++) per.push((await metered(svc, label, run)).capacity);
      capacities.push(per.sort((a, b) => a.wcu - b.wcu)[1] as EndpointCapacity);
    }

    process.stderr.write('  through serverless-offline: gateway and direct, interleaved…\n');
    const overHttp = await throughOffline(svc, options, { endpointName, key: budgeted, body, direct });
    return report(inProcess, overHttp, features, capacities, options, loadBefore);
  } finally {
    bedrock.destroy();
    unregister();
  }
}

async function interleaved(n: number, warmup: number, fns: { gateway: () => Promise<unknown>; direct: () => Promise<unknown> }) {
  const gateway: number[] = [];
  const direct: number[] = [];
  await timeLoop({ n, warmup }, async (i, time) => {
    // Alternate which goes first, so neither always runs on a warmer connection.
    const order = i % 2 === 0 ? (['gateway', 'direct'] as const) : (['direct', 'gateway'] as const);
    for (const which of order) {
      const started = performance.now();
      await (which === 'gateway' ? time(fns.gateway) : fns.direct());
      if (i >= warmup) (which === 'gateway' ? gateway : direct).push(performance.now() - started);
    }
  });
  return { gateway: summarize(gateway), direct: summarize(direct) };
}

async function throughOffline(
  svc: Awaited<ReturnType<typeof service>>,
  options: GatewayOptions,
  o: { endpointName: string; key: string; body: unknown; direct: () => Promise<unknown> },
) {
  const { freePort, startOffline } = await import('../local/runtime');
  const offline = await startOffline({ port: await freePort(), lambdaPort: await freePort(), stage: svc.runtime.stage, env: svc.runtime.env });
  const unregister = onCleanup('serverless-offline', () => offline.stop());
  try {
    const post = async () => {
      const res = await fetch(`${offline.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${o.key}` },
        body: JSON.stringify(o.body),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`completion over HTTP answered ${res.status}: ${text.slice(0, 300)}`);
    };
    return await interleaved(options.httpN, options.warmup, { gateway: post, direct: o.direct });
  } finally {
    await offline.stop();
    unregister();
  }
}

function report(
  inProcess: { gateway: Summary; direct: Summary },
  overHttp: { gateway: Summary; direct: Summary },
  features: { embeddings: { gateway: Summary; direct: Summary }; toolRoundTrip: { gateway: Summary; direct: Summary } },
  capacities: EndpointCapacity[],
  options: GatewayOptions,
  loadBefore: string,
): SectionResult {
  const overhead = (r: { gateway: Summary; direct: Summary }) => r.gateway.median - r.direct.median;
  const line = (r: { gateway: Summary; direct: Summary }) =>
    `gateway median ${fmtMs(r.gateway.median)} (p99 ${fmtMs(r.gateway.p99)}), upstream directly ${fmtMs(r.direct.median)} (p99 ${fmtMs(r.direct.p99)}): overhead ${fmtMs(overhead(r))} (n ${r.gateway.n})`;
  const rows: Row[] = [
    { section: '11 gateway', measure: 'overhead per call, in process', value: line(inProcess), status: 'info' },
    { section: '11 gateway', measure: 'overhead per call, through serverless-offline', value: line(overHttp), status: 'info' },
    { section: '11 gateway', measure: 'overhead per embeddings call, in process', value: line(features.embeddings), status: 'info' },
    {
      section: '11 gateway',
      measure: 'overhead per tool-call round trip (2 calls), in process',
      value: line(features.toolRoundTrip),
      status: 'info',
    },
    ...capacities.map((c): Row => ({
      section: '11 gateway',
      measure: `DynamoDB per call: ${c.label.replace('gateway ', '')}`,
      value: `RCU ${fmtNum(c.rcu)}, WCU ${fmtNum(c.wcu)}, ${c.calls} calls / ${c.rounds} rounds (${c.commands})`,
      status: 'info',
    })),
  ];
  // On-demand prices in us-east-1: $0.125 per million read request units, $0.625 per million write request units.
  const dollarsPerMillion = (c: EndpointCapacity) => c.rcu * 0.125 + c.wcu * 0.625;
  const markdown = [
    `One POST /v1/chat/completions (a managed model, ${MAX_TOKENS} max_tokens, a one-line prompt) against the same Bedrock Converse call made directly on the emulator (response delay 0, so the model's own time is nearly nothing and what remains is the service's), interleaved call by call after ${options.warmup} warm-up pairs. In process: the handler called as Lambda would; over HTTP: serverless-offline on loopback, sequential calls. The same in process for one POST /v1/embeddings (a Titan Text Embeddings v2 resource, the prompt as input) against InvokeModel made directly, and for one tool-call round trip (two completions with one function tool: the model's tool call, then its answer from the tool's result) against the two Converse calls with toolConfig made directly. The times are DynamoDB Local's and the machine's (load average ${loadBefore} before the run), not DynamoDB's: in AWS a GetItem is a few milliseconds and a transaction 25-30 ms. DynamoDB figures as in section 3 (computed from item sizes; median of 3 calls after one unmeasured).`,
    '',
    markdownTable(
      ['Path', 'Gateway median', 'Gateway p99', 'Direct median', 'Direct p99', 'Overhead (median)', 'n'],
      (
        [
          ['in process', inProcess],
          ['through serverless-offline', overHttp],
          ['embeddings (Titan v2 against InvokeModel), in process', features.embeddings],
          ['tool-call round trip (2 completions against 2 Converse calls with toolConfig), in process', features.toolRoundTrip],
        ] as const
      ).map(([path, r]) => [
        path,
        fmtMs(r.gateway.median),
        fmtMs(r.gateway.p99),
        fmtMs(r.direct.median),
        fmtMs(r.direct.p99),
        fmtMs(overhead(r)),
        r.gateway.n,
      ]),
    ),
    '',
    markdownTable(
      ['One gateway call', 'RCU', 'WCU', 'Calls', 'Round trips', 'USD per million calls (on-demand, us-east-1)', 'Calls made'],
      capacities.map((c) => [c.label, fmtNum(c.rcu), fmtNum(c.wcu), c.calls, c.rounds, `$${dollarsPerMillion(c).toFixed(2)}`, c.commands]),
    ),
    '',
    `For scale: a Claude 3 Haiku call of 1,000 input and 300 output tokens costs $0.000625, $625 per million calls; the gateway's DynamoDB requests add ${capacities
      .slice(0, 2)
      .map((c) => `${((dollarsPerMillion(c) / 625) * 100).toFixed(1)} %`)
      .join(' (with a budget) and ')} (without).`,
  ].join('\n');
  return { rows, markdown };
}
