/**
 * Chat with a managed model: Bedrock runtime Converse. Its own module, so that only the chat
 * functions bundle the Bedrock runtime client (and the catalogue functions only the control client).
 */
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type Message, type SystemContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { UpstreamError, type DomainError } from '../../errors';
import { http2ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { errorMessage, errorName, guard, toUpstreamError, unreadable, upstreamDetail } from '../errors';
import { textOf, type ChatCapable, type ChatReply, type ChatRequest, type ChatStreamEvent, type ChatTurn } from '../types';
import { traced } from '#tracing';

const PLATFORM = 'managed' as const;

/** Bedrock wants user and assistant strictly alternating, starting with the user, and no empty text. */
export function toConverseMessages(turns: ChatTurn[]): Message[] {
  const merged: { role: 'user' | 'assistant'; texts: string[] }[] = [];
  for (const turn of turns) {
    if (turn.role === 'tool') continue;
    const text = textOf(turn.content);
    if (!text.trim()) continue;
    if (merged.length === 0 && turn.role !== 'user') continue;
    const last = merged.at(-1);
    if (last && last.role === turn.role) last.texts.push(text);
    else merged.push({ role: turn.role, texts: [text] });
  }
  return merged.map((m) => ({ role: m.role, content: [{ text: m.texts.join('\n\n') }] }));
}

/** Converse's inferenceConfig from a request's limits and sampling; undefined when it sets none. */
function inferenceConfig(request: ChatRequest) {
  const config = { maxTokens: request.maxTokens, temperature: request.temperature, topP: request.topP, stopSequences: request.stop };
  return Object.values(config).some((v) => v !== undefined) ? config : undefined;
}

/** What Converse and ConverseStream both take: the model, the system prompt (when not blank), the turns and the sampling. */
function converseInput(request: ChatRequest) {
  const system: SystemContentBlock[] | undefined = request.system?.trim() ? [{ text: request.system }] : undefined;
  return { modelId: request.target, system, messages: toConverseMessages(request.messages), inferenceConfig: inferenceConfig(request) };
}

export class BedrockConverseChat implements ChatCapable {
  private readonly runtime: BedrockRuntimeClient;

  constructor(options: AwsPlatformOptions) {
    this.runtime = traced(new BedrockRuntimeClient(http2ClientConfig(options)));
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const started = Date.now();
    const out = await guard(PLATFORM, () => this.runtime.send(new ConverseCommand(converseInput(request))));
    const blocks = out.output?.message?.content;
    if (!Array.isArray(blocks)) throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
    return {
      content: blocks.map((b) => b.text ?? '').join(''),
      tokensIn: out.usage?.inputTokens ?? 0,
      tokensOut: out.usage?.outputTokens ?? 0,
      latencyMs: out.metrics?.latencyMs ?? Date.now() - started,
      modelId: request.target,
      finishReason: out.stopReason === 'max_tokens' ? 'length' : 'stop',
    };
  }

  /**
   * ConverseStream: contentBlockDelta texts, messageStop's reason and metadata's usage become the
   * stream's events. An exception event (modelStreamErrorException and the like) is thrown by the SDK
   * while iterating, and mapped like any other failure.
   */
  async *chatStream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
    const started = Date.now();
    const out = await guard(PLATFORM, () => this.runtime.send(new ConverseStreamCommand(converseInput(request)), { abortSignal: signal }));
    if (!out.stream) throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
    try {
      for await (const event of out.stream) {
        if (event.contentBlockDelta?.delta?.text) yield { kind: 'text', text: event.contentBlockDelta.delta.text };
        else if (event.messageStop) yield { kind: 'stop', finishReason: event.messageStop.stopReason === 'max_tokens' ? 'length' : 'stop' };
        else if (event.metadata) {
          yield {
            kind: 'usage',
            tokensIn: event.metadata.usage?.inputTokens ?? 0,
            tokensOut: event.metadata.usage?.outputTokens ?? 0,
            latencyMs: event.metadata.metrics?.latencyMs ?? Date.now() - started,
            modelId: request.target,
          };
        }
      }
    } catch (err) {
      throw streamError(err);
    }
  }

  /** Closes the client's sessions (tests; a Lambda container just freezes). */
  destroy(): void {
    this.runtime.destroy();
  }
}

/** A failure while the answer streamed: the model broke off (an exception event), or the connection did. */
function streamError(err: unknown): DomainError {
  const mapped = toUpstreamError(PLATFORM, err);
  if (/ModelStreamError/i.test(errorName(err))) {
    return new UpstreamError(PLATFORM, 'The model on the managed platform failed while answering', 'failed', upstreamDetail(errorMessage(err)));
  }
  return mapped;
}

export function createManagedChat(overrides: Partial<AwsPlatformOptions> = {}): BedrockConverseChat {
  return new BedrockConverseChat(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const managedChat: ChatCapable = /* @__PURE__ */ createManagedChat();
