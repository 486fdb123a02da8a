/**
 * The managed platform: Amazon Bedrock (control plane for the catalogue, runtime Converse for chat).
 * Only Bedrock clients are imported here, so a function that uses this module alone bundles nothing
 * of SageMaker or CloudWatch.
 */
import { BedrockClient, GetFoundationModelCommand, ListFoundationModelsCommand, type FoundationModelDetails } from '@aws-sdk/client-bedrock';
import { BedrockRuntimeClient, ConverseCommand, type Message, type SystemContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { tokenPricing } from '../catalogue/pricing';
import { http1ClientConfig, http2ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from './clients';
import { errorName, guard, toUpstreamError, unreadable } from './errors';
import type { ChatReply, ChatRequest, ChatTurn, ManagedModelEntry, ManagedPlatform, ModelInfo } from './types';

const PLATFORM = 'managed' as const;

/** Bedrock wants user and assistant strictly alternating, starting with the user, and no empty text. */
export function toConverseMessages(turns: ChatTurn[]): Message[] {
  const merged: { role: ChatTurn['role']; texts: string[] }[] = [];
  for (const turn of turns) {
    if (!turn.content.trim()) continue;
    if (merged.length === 0 && turn.role !== 'user') continue;
    const last = merged.at(-1);
    if (last && last.role === turn.role) last.texts.push(turn.content);
    else merged.push({ role: turn.role, texts: [turn.content] });
  }
  return merged.map((m) => ({ role: m.role, content: [{ text: m.texts.join('\n\n') }] }));
}

export class BedrockManagedPlatform implements ManagedPlatform {
  readonly region: string;
  private readonly control: BedrockClient;
  private readonly runtime: BedrockRuntimeClient;
  private readonly runtimeBase: string;

  constructor(options: AwsPlatformOptions) {
    this.region = options.region;
    this.control = new BedrockClient(http1ClientConfig(options));
    this.runtime = new BedrockRuntimeClient(http2ClientConfig(options));
    this.runtimeBase = options.endpoint ?? `https://bedrock-runtime.${options.region}.amazonaws.com`;
  }

  async listModels(): Promise<ManagedModelEntry[]> {
    // ListFoundationModels is not paginated: one call returns the region's whole catalogue.
    const out = await guard(PLATFORM, () => this.control.send(new ListFoundationModelsCommand({})));
    if (!Array.isArray(out.modelSummaries)) throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
    return out.modelSummaries
      .filter((m) => typeof m.modelId === 'string')
      .map((m) => ({
        modelId: m.modelId as string,
        providerName: m.providerName ?? '',
        modelArn: m.modelArn ?? '',
        inputModalities: m.inputModalities ?? [],
        outputModalities: m.outputModalities ?? [],
        inferenceTypesSupported: m.inferenceTypesSupported ?? [],
        customization: m.customizationsSupported ?? [],
      }));
  }

  async getModel(modelId: string): Promise<ModelInfo | undefined> {
    let details: FoundationModelDetails | undefined;
    try {
      details = (await this.control.send(new GetFoundationModelCommand({ modelIdentifier: modelId }))).modelDetails;
    } catch (err) {
      // Unknown id, or an identifier the service refuses to parse: either way, no such model.
      if (errorName(err) === 'ResourceNotFoundException' || errorName(err) === 'ValidationException') return undefined;
      throw toUpstreamError(PLATFORM, err);
    }
    if (!details?.modelId) throw unreadable(PLATFORM, 200);
    return {
      modelId: details.modelId,
      modelName: details.modelName ?? details.modelId,
      providerName: details.providerName ?? '',
      modelArn: details.modelArn ?? '',
      inputModalities: details.inputModalities ?? [],
      outputModalities: details.outputModalities ?? [],
      responseStreamingSupported: details.responseStreamingSupported ?? false,
      customizationsSupported: details.customizationsSupported ?? [],
      inferenceTypesSupported: details.inferenceTypesSupported ?? [],
      modelLifecycle: { status: details.modelLifecycle?.status ?? 'ACTIVE' },
      pricing: await tokenPricing(PLATFORM, details.modelId),
    };
  }

  invokeUrl(modelId: string): string {
    return `${this.runtimeBase}/model/${encodeURIComponent(modelId).replaceAll('%3A', ':')}/converse`;
  }

  async chat(request: ChatRequest): Promise<ChatReply> {
    const started = Date.now();
    const system: SystemContentBlock[] | undefined = request.system?.trim() ? [{ text: request.system }] : undefined;
    const out = await guard(PLATFORM, () =>
      this.runtime.send(
        new ConverseCommand({
          modelId: request.target,
          system,
          messages: toConverseMessages(request.messages),
          inferenceConfig: request.maxTokens ? { maxTokens: request.maxTokens } : undefined,
        }),
      ),
    );
    const blocks = out.output?.message?.content;
    if (!Array.isArray(blocks)) throw unreadable(PLATFORM, out.$metadata.httpStatusCode);
    return {
      content: blocks.map((b) => b.text ?? '').join(''),
      tokensIn: out.usage?.inputTokens ?? 0,
      tokensOut: out.usage?.outputTokens ?? 0,
      latencyMs: out.metrics?.latencyMs ?? Date.now() - started,
      modelId: request.target,
    };
  }

  /** Closes the clients' sockets (tests; a Lambda container just freezes). */
  destroy(): void {
    this.control.destroy();
    this.runtime.destroy();
  }
}

export function createManagedPlatform(overrides: Partial<AwsPlatformOptions> = {}): BedrockManagedPlatform {
  return new BedrockManagedPlatform(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const managed: ManagedPlatform = /* @__PURE__ */ createManagedPlatform();
