/**
 * The dedicated platform's catalogue: Amazon SageMaker's public model hub (JumpStart) and the
 * account's model registry (model packages), listed and described. Deployment and endpoint state are
 * endpoints.ts; both use the SageMaker client alone.
 */
import {
  DescribeHubContentCommand,
  DescribeModelPackageCommand,
  ListHubContentsCommand,
  ListModelPackagesCommand,
  SageMakerClient,
  type DescribeHubContentCommandOutput,
  type DescribeModelPackageCommandOutput,
  type HubContentInfo,
  type ModelPackageSummary,
} from '@aws-sdk/client-sagemaker';
import { mapLimit } from '../../concurrency';
import { http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { errorName, guard, toUpstreamError, unreadable } from '../errors';
import type { DedicatedCatalogue, DedicatedModelEntry, DedicatedSource } from '../types';
import { PLATFORM, PUBLIC_HUB, describeHubContent, hubDocument, iso, parseHubContentArn } from './sagemaker';
import { traced } from '#tracing';

/** Describe calls run this many at a time: enough to be quick, few enough not to be throttled. */
const DESCRIBE_CONCURRENCY = 6;
/** A listing never describes more than this many entries per source, whatever `max` asks. */
const LIST_LIMIT = 100;

/** "…/huggingface-pytorch-tgi-inference:2.1.1-tgi2.0.0-gpu…" → "2.1.1": the image tag's version. */
function versionFromImage(image: string): string {
  return /:(\d+(?:\.\d+)*)/.exec(image)?.[1] ?? '';
}

function hubEntry(out: DescribeHubContentCommandOutput): DedicatedModelEntry {
  const doc = hubDocument(out);
  const image = doc.HostingEcrUri ?? '';
  return {
    modelPackageArn: out.HubContentArn ?? '',
    displayName: out.HubContentDisplayName ?? out.HubContentName ?? '',
    creationTime: iso(out.CreationTime),
    // Public models need no approval in the account: available means usable.
    modelApprovalStatus: out.HubContentStatus === 'Available' ? 'Approved' : (out.HubContentStatus ?? 'Unknown'),
    inferenceContainers: image
      ? [
          {
            image,
            modelDataUrl: doc.HostingArtifactUri ?? '',
            framework: doc.HostingEcrSpecs?.Framework ?? doc.Framework ?? '',
            frameworkVersion: doc.HostingEcrSpecs?.FrameworkVersion ?? versionFromImage(image),
          },
        ]
      : [],
    supportedContentTypes: doc.SupportedContentTypes ?? ['application/json'],
    supportedResponseMIMETypes: doc.SupportedResponseMIMETypes ?? ['application/json'],
    supportedRealtimeInferenceInstanceTypes: doc.SupportedInferenceInstanceTypes ?? [],
    supportedTransformInstanceTypes: doc.SupportedTransformInstanceTypes ?? [],
  };
}

function packageEntry(out: DescribeModelPackageCommandOutput): DedicatedModelEntry {
  const spec = out.InferenceSpecification;
  const group = out.ModelPackageGroupName;
  return {
    modelPackageArn: out.ModelPackageArn ?? '',
    displayName: group ? `${group} v${out.ModelPackageVersion ?? '?'}` : (out.ModelPackageName ?? ''),
    creationTime: iso(out.CreationTime),
    // Unversioned packages have no approval workflow.
    modelApprovalStatus: out.ModelApprovalStatus ?? 'None',
    inferenceContainers: (spec?.Containers ?? []).map((c) => ({
      image: c.Image ?? '',
      modelDataUrl: c.ModelDataUrl ?? c.ModelDataSource?.S3DataSource?.S3Uri ?? '',
      framework: c.Framework ?? '',
      frameworkVersion: c.FrameworkVersion ?? '',
    })),
    supportedContentTypes: spec?.SupportedContentTypes ?? [],
    supportedResponseMIMETypes: spec?.SupportedResponseMIMETypes ?? [],
    supportedRealtimeInferenceInstanceTypes: spec?.SupportedRealtimeInferenceInstanceTypes ?? [],
    supportedTransformInstanceTypes: spec?.SupportedTransformInstanceTypes ?? [],
  };
}

export class SageMakerCatalogue implements DedicatedCatalogue {
  readonly region: string;
  private readonly sagemaker: SageMakerClient;

  constructor(options: AwsPlatformOptions) {
    this.region = options.region;
    this.sagemaker = traced(new SageMakerClient(http1ClientConfig(options)));
  }

  async listModels(options: { search?: string; max: number; source: DedicatedSource }): Promise<DedicatedModelEntry[]> {
    const max = Math.max(1, Math.min(LIST_LIMIT, Math.floor(options.max)));
    const search = options.search?.trim() || undefined;
    const [publicModels, accountModels] = await Promise.all([
      options.source === 'account' ? [] : this.listPublic(search, max),
      options.source === 'public' ? [] : this.listAccount(search, max),
    ]);
    // Newest first across both sources, so `all` is not just the public hub crowding out the account.
    return [...publicModels, ...accountModels].sort((a, b) => b.creationTime.localeCompare(a.creationTime)).slice(0, max);
  }

  private async listPublic(search: string | undefined, max: number): Promise<DedicatedModelEntry[]> {
    const summaries: HubContentInfo[] = [];
    let NextToken: string | undefined;
    do {
      const page = await guard(PLATFORM, () =>
        this.sagemaker.send(
          new ListHubContentsCommand({
            HubName: PUBLIC_HUB,
            HubContentType: 'Model',
            // Public hub content names are lower-case ("huggingface-llm-mistral-7b-instruct").
            NameContains: search?.toLowerCase(),
            SortBy: 'CreationTime',
            SortOrder: 'Descending',
            MaxResults: max - summaries.length,
            NextToken,
          }),
        ),
      );
      if (!Array.isArray(page.HubContentSummaries)) throw unreadable(PLATFORM, page.$metadata.httpStatusCode);
      summaries.push(...page.HubContentSummaries);
      NextToken = page.NextToken;
    } while (NextToken && summaries.length < max);

    return mapLimit(summaries.slice(0, max), DESCRIBE_CONCURRENCY, async (s) =>
      hubEntry(
        await guard(PLATFORM, () =>
          this.sagemaker.send(
            new DescribeHubContentCommand({
              HubName: PUBLIC_HUB,
              HubContentType: 'Model',
              HubContentName: s.HubContentName,
              HubContentVersion: s.HubContentVersion,
            }),
          ),
        ),
      ),
    );
  }

  private async listAccount(search: string | undefined, max: number): Promise<DedicatedModelEntry[]> {
    const summaries: ModelPackageSummary[] = [];
    let NextToken: string | undefined;
    do {
      const page = await guard(PLATFORM, () =>
        this.sagemaker.send(
          new ListModelPackagesCommand({
            // The API lists only unversioned packages unless asked; registry versions are most of them.
            ModelPackageType: 'Both',
            NameContains: search,
            SortBy: 'CreationTime',
            SortOrder: 'Descending',
            MaxResults: max - summaries.length,
            NextToken,
          }),
        ),
      );
      if (!Array.isArray(page.ModelPackageSummaryList)) throw unreadable(PLATFORM, page.$metadata.httpStatusCode);
      summaries.push(...page.ModelPackageSummaryList);
      NextToken = page.NextToken;
    } while (NextToken && summaries.length < max);

    return mapLimit(summaries.slice(0, max), DESCRIBE_CONCURRENCY, async (s) =>
      packageEntry(await guard(PLATFORM, () => this.sagemaker.send(new DescribeModelPackageCommand({ ModelPackageName: s.ModelPackageArn })))),
    );
  }

  async describeModelPackage(modelPackageArn: string): Promise<DedicatedModelEntry | undefined> {
    const hub = parseHubContentArn(modelPackageArn);
    try {
      if (hub) return hubEntry(await describeHubContent(this.sagemaker, hub));
      return packageEntry(await this.sagemaker.send(new DescribeModelPackageCommand({ ModelPackageName: modelPackageArn })));
    } catch (err) {
      // "ModelPackage … does not exist." / "Hub content … does not exist.", or an ARN the API cannot parse.
      if (errorName(err) === 'ValidationException' || errorName(err) === 'ResourceNotFound') return undefined;
      throw toUpstreamError(PLATFORM, err);
    }
  }

  destroy(): void {
    this.sagemaker.destroy();
  }
}

export function createDedicatedCatalogue(overrides: Partial<AwsPlatformOptions> = {}): SageMakerCatalogue {
  return new SageMakerCatalogue(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const dedicatedCatalogue: DedicatedCatalogue = /* @__PURE__ */ createDedicatedCatalogue();
