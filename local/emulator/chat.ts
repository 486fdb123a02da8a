/**
 * The one deterministic "model" behind Converse, InvokeEndpoint and the hosted chat completions.
 * Its reply quotes back what arrived, so a test can prove which context the platform code sent.
 */
import { sleep, type ResolvedOptions } from './shared';

export interface ChatTurn {
  role: string;
  text: string;
}

export interface ChatRequest {
  model: string;
  system: string[];
  /** The conversation without system messages. */
  turns: ChatTurn[];
  maxTokens?: number;
}

export interface ChatResult {
  text: string;
  inputTokens: number;
  outputTokens: number;
  /** 'length' when maxTokens cut the reply short. */
  stop: 'end' | 'length';
}

const CHARS_PER_TOKEN = 4;

function tokensFor(chars: number): number {
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));
}

/**
 * A last user message that starts with "echo:" is answered with the rest of it, verbatim: how a person
 * or a test makes the emulated model answer a given text (Markdown as real models write it, or
 * something hostile for the console to neutralise).
 */
const ECHO = /^echo:[ \t]?/i;

export function emulateChat(req: ChatRequest): ChatResult {
  const userTexts = req.turns.filter((t) => t.role === 'user').map((t) => t.text);
  const last = userTexts.at(-1) ?? '';
  const earlier = userTexts.slice(0, -1);
  let text = ECHO.test(last)
    ? last.replace(ECHO, '')
    : `Emulated reply from ${req.model}. You said: "${last}". ` +
      `Context: ${req.turns.length} messages received; earlier user messages: [${earlier.join(' | ')}]; ` +
      `system: ${req.system.length > 0 ? 'yes' : 'no'}.`;

  let stop: ChatResult['stop'] = 'end';
  if (req.maxTokens !== undefined && tokensFor(text.length) > req.maxTokens) {
    text = text.slice(0, req.maxTokens * CHARS_PER_TOKEN);
    stop = 'length';
  }

  const inputChars = [...req.system, ...req.turns.map((t) => t.text)].reduce((n, s) => n + s.length, 0);
  return { text, inputTokens: tokensFor(inputChars), outputTokens: tokensFor(text.length), stop };
}

/** Waits out the configured model latency and reports it, as the services' latency fields do. */
export async function modelLatency(opts: ResolvedOptions): Promise<number> {
  const started = Date.now();
  await sleep(opts.responseDelayMs);
  return opts.responseDelayMs > 0 ? opts.responseDelayMs : Date.now() - started;
}

/** Text of an OpenAI-style message content: a string or an array of typed parts. */
function openAiText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === 'object' && typeof part.text === 'string' ? part.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

export interface OpenAiMessage {
  role?: unknown;
  content?: unknown;
}

/** Splits an OpenAI messages array into system prompts and conversation turns. */
export function fromOpenAiMessages(messages: OpenAiMessage[]): { system: string[]; turns: ChatTurn[] } {
  const system: string[] = [];
  const turns: ChatTurn[] = [];
  for (const m of messages) {
    const role = typeof m.role === 'string' ? m.role : '';
    const text = openAiText(m.content);
    if (role === 'system' || role === 'developer') system.push(text);
    else turns.push({ role, text });
  }
  return { system, turns };
}

/** The OpenAI chat.completion object both InvokeEndpoint and the hosted API answer with. */
export function openAiCompletion(id: string, model: string, result: ChatResult, created: number) {
  return {
    id,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: result.text },
        logprobs: null,
        finish_reason: result.stop === 'length' ? 'length' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: result.inputTokens,
      completion_tokens: result.outputTokens,
      total_tokens: result.inputTokens + result.outputTokens,
    },
  };
}

/**
 * The same completion as OpenAI's server-sent events (what the hosted API and TGI's Messages API send
 * for `stream: true`): a role chunk, one chunk per word, the finish reason, the usage chunk when asked
 * for, then [DONE]. One event per element.
 */
export function openAiChunks(id: string, model: string, result: ChatResult, created: number, includeUsage: boolean): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  const delta = (d: Record<string, unknown>, finish: string | null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  const words = result.text.match(/\S+\s*/g) ?? [result.text];
  const usage = { prompt_tokens: result.inputTokens, completion_tokens: result.outputTokens, total_tokens: result.inputTokens + result.outputTokens };
  return [
    delta({ role: 'assistant', content: '' }, null),
    ...words.map((w) => delta({ content: w }, null)),
    delta({}, result.stop === 'length' ? 'length' : 'stop'),
    ...(includeUsage ? [chunk([], { usage })] : []),
    'data: [DONE]\n\n',
  ];
}

/** The error event an OpenAI-compatible server sends when generation fails after the stream began. */
export function openAiStreamError(message: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'server_error', code: 'internal_error', param: null } })}\n\n`;
}
