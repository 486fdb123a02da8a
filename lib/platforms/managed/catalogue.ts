/**
 * The managed platform's control side: Amazon Bedrock's catalogue (ListFoundationModels,
 * GetFoundationModel). Chat (Bedrock runtime Converse) is managed-chat.ts, so that this module bundles
 * the Bedrock control client alone.
 */
import {
  BedrockClient,
  GetFoundationModelCommand,
  ListFoundationModelsCommand,
  type FoundationModelDetails,
  type FoundationModelLifecycle,
} from '@aws-sdk/client-bedrock';
import { http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { errorName, guard, toUpstreamError, unreadable } from '../errors';
import type { ManagedModelEntry, ManagedPlatform, ModelLifecycle, PlatformModelInfo } from '../types';
import { traced } from '#tracing';

const PLATFORM = 'managed' as const;

/** Bedrock's lifecycle with its times as ISO strings, each only where Bedrock gives it (an ACTIVE model has none). */
function lifecycleOf(lifecycle: FoundationModelLifecycle | undefined): ModelLifecycle {
  const times = {
    legacyTime: lifecycle?.legacyTime,
    publicExtendedAccessTime: lifecycle?.publicExtendedAccessTime,
    endOfLifeTime: lifecycle?.endOfLifeTime,
  };
  return {
    status: lifecycle?.status ?? 'ACTIVE',
    ...Object.fromEntries(Object.entries(times).flatMap(([k, t]) => (t instanceof Date && !Number.isNaN(t.getTime()) ? [[k, t.toISOString()]] : []))),
  };
}

export class BedrockManagedPlatform implements ManagedPlatform {
  readonly region: string;
  private readonly control: BedrockClient;
  private readonly runtimeBase: string;

  constructor(options: AwsPlatformOptions) {
    this.region = options.region;
    this.control = traced(new BedrockClient(http1ClientConfig(options)));
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
        modelLifecycle: lifecycleOf(m.modelLifecycle),
      }));
  }

  async getModel(modelId: string): Promise<PlatformModelInfo | undefined> {
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
      modelLifecycle: lifecycleOf(details.modelLifecycle),
    };
  }

  invokeUrl(modelId: string): string {
    return `${this.runtimeBase}/model/${encodeURIComponent(modelId).replaceAll('%3A', ':')}/converse`;
  }

  /** Closes the client's sockets (tests; a Lambda container just freezes). */
  destroy(): void {
    this.control.destroy();
  }
}

export function createManagedPlatform(overrides: Partial<AwsPlatformOptions> = {}): BedrockManagedPlatform {
  return new BedrockManagedPlatform(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const managed: ManagedPlatform = /* @__PURE__ */ createManagedPlatform();
