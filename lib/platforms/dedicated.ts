/**
 * The dedicated platform's control side: Amazon SageMaker (catalogue: the public model hub and the
 * account's model registry; deployment: model, endpoint configuration, endpoint; endpoint state).
 * Chat (SageMaker runtime) is dedicated-chat.ts and metrics (CloudWatch) dedicated-metrics.ts, so
 * that this module bundles the SageMaker client alone.
 *
 * Resources this service creates are named `<endpointName>-<6 hex>` (model and endpoint
 * configuration alike: they are different resource types) and tagged `managed-by: model-ops`, so an
 * operator can tell them apart from anything else in the account.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DeleteEndpointCommand,
  DeleteEndpointConfigCommand,
  DeleteModelCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeHubContentCommand,
  DescribeModelPackageCommand,
  ListHubContentsCommand,
  ListModelPackagesCommand,
  SageMakerClient,
  UpdateEndpointCommand,
  type ContainerDefinition,
  type DescribeEndpointCommandOutput,
  type DescribeHubContentCommandOutput,
  type DescribeModelPackageCommandOutput,
  type HubContentInfo,
  type ModelPackageSummary,
  type Tag,
} from '@aws-sdk/client-sagemaker';
import { mapLimit } from '../concurrency';
import { BadRequest, UpstreamError } from '../http/errors';
import { logger } from '../../core/observability';
import { http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from './clients';
import { errorMessage, errorName, guard, toUpstreamError, unreadable } from './errors';
import {
  VARIANT_NAME,
  type DedicatedDeploySpec,
  type DedicatedModelEntry,
  type DedicatedPlatform,
  type DedicatedSource,
  type EndpointDescription,
} from './types';
import { traced } from '#tracing';

const PLATFORM = 'dedicated' as const;
export const PUBLIC_HUB = 'SageMakerPublicHub';
export const MANAGED_BY_TAG: Tag = { Key: 'managed-by', Value: 'model-ops' };
/** Describe calls run this many at a time: enough to be quick, few enough not to be throttled. */
const DESCRIBE_CONCURRENCY = 6;
/** A listing never describes more than this many entries per source, whatever `max` asks. */
const LIST_LIMIT = 100;
const SAGEMAKER_NAME_MAX = 63;

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

const iso = (d: Date | undefined) => (d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : new Date(0).toISOString());

/** `<base>-<6 hex>`, cut so the whole stays within SageMaker's 63-character names. */
export function suffixedName(base: string): string {
  const suffix = randomBytes(3).toString('hex');
  return `${base.slice(0, SAGEMAKER_NAME_MAX - suffix.length - 1).replace(/-+$/, '')}-${suffix}`;
}

const isEndpointMissing = (err: unknown) => errorName(err) === 'ValidationException' && /Could not find endpoint/i.test(errorMessage(err));

export function endpointNotFound(endpointName: string): UpstreamError {
  return new UpstreamError(PLATFORM, `The dedicated platform has no endpoint named "${endpointName}"`, 404, undefined, 400);
}

/** The parts of a public-hub content ARN: arn:aws:sagemaker:<region>:aws:hub-content/<hub>/<type>/<name>/<version>. */
function parseHubContentArn(arn: string): { hub: string; type: string; name: string; version?: string } | undefined {
  const m = /^arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[a-z0-9]*:hub-content\/([^/]+)\/([^/]+)\/([^/]+)(?:\/([^/]+))?$/.exec(arn);
  return m ? { hub: m[1] as string, type: m[2] as string, name: m[3] as string, version: m[4] } : undefined;
}

interface HubDocument {
  HostingEcrUri?: string;
  HostingArtifactUri?: string;
  HostingArtifactS3DataType?: string;
  HostingArtifactCompressionType?: string;
  HostingEulaUri?: string;
  GatedBucket?: boolean;
  HostingEcrSpecs?: { Framework?: string; FrameworkVersion?: string };
  Framework?: string;
  InferenceEnvironmentVariables?: { Name?: string; Default?: string }[];
  SupportedInferenceInstanceTypes?: string[];
  SupportedTransformInstanceTypes?: string[];
  SupportedContentTypes?: string[];
  SupportedResponseMIMETypes?: string[];
  InferenceEnableNetworkIsolation?: boolean;
}

function hubDocument(out: DescribeHubContentCommandOutput): HubDocument {
  try {
    const doc = JSON.parse(out.HubContentDocument ?? '{}') as unknown;
    return doc && typeof doc === 'object' ? doc : {};
  } catch {
    return {};
  }
}

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

function description(out: DescribeEndpointCommandOutput, instanceType?: string, configuredCount?: number): EndpointDescription {
  const variant = out.ProductionVariants?.[0];
  const pending = out.PendingDeploymentSummary?.ProductionVariants?.[0];
  return {
    name: out.EndpointName ?? '',
    arn: out.EndpointArn ?? '',
    status: out.EndpointStatus ?? 'Creating',
    failureReason: out.FailureReason || undefined,
    configName: out.EndpointConfigName ?? '',
    instanceType: instanceType ?? pending?.InstanceType,
    instanceCount: variant?.CurrentInstanceCount ?? pending?.DesiredInstanceCount ?? configuredCount,
    createdAt: iso(out.CreationTime),
    lastModifiedAt: iso(out.LastModifiedTime),
  };
}

// ---------------------------------------------------------------------------------------------
// The adapter
// ---------------------------------------------------------------------------------------------

export class SageMakerDedicatedPlatform implements DedicatedPlatform {
  readonly region: string;
  private readonly sagemaker: SageMakerClient;
  private readonly runtimeBase: string;
  private readonly variants = new Map<string, Promise<{ instanceType?: string; instanceCount?: number }>>();

  constructor(options: AwsPlatformOptions) {
    this.region = options.region;
    this.sagemaker = traced(new SageMakerClient(http1ClientConfig(options)));
    this.runtimeBase = options.endpoint ?? `https://runtime.sagemaker.${options.region}.amazonaws.com`;
  }

  // ------------------------------------------------------------------------------- catalogue

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
      if (hub) return hubEntry(await this.describeHubContent(hub));
      return packageEntry(await this.sagemaker.send(new DescribeModelPackageCommand({ ModelPackageName: modelPackageArn })));
    } catch (err) {
      // "ModelPackage … does not exist." / "Hub content … does not exist.", or an ARN the API cannot parse.
      if (errorName(err) === 'ValidationException' || errorName(err) === 'ResourceNotFound') return undefined;
      throw toUpstreamError(PLATFORM, err);
    }
  }

  private describeHubContent(hub: { hub: string; type: string; name: string; version?: string }) {
    return this.sagemaker.send(
      new DescribeHubContentCommand({
        HubName: hub.hub,
        HubContentType: hub.type as 'Model',
        HubContentName: hub.name,
        HubContentVersion: hub.version,
      }),
    );
  }

  // ------------------------------------------------------------------------------- deployment

  /** The model's container: a registry package, a public-hub model, or an image with model data. */
  private async primaryContainer(spec: DedicatedDeploySpec): Promise<{ container: ContainerDefinition; networkIsolation?: boolean }> {
    if (spec.modelPackageArn) {
      const hub = parseHubContentArn(spec.modelPackageArn);
      if (!hub) return { container: { ModelPackageName: spec.modelPackageArn } };
      // Public-hub models are not model packages: deploy the image and artefacts their document names.
      let out: DescribeHubContentCommandOutput;
      try {
        out = await this.describeHubContent(hub);
      } catch (err) {
        if (errorName(err) === 'ResourceNotFound' || errorName(err) === 'ValidationException') {
          throw new UpstreamError(PLATFORM, `The dedicated platform has no public model "${hub.name}"`, 502, undefined, 400);
        }
        throw toUpstreamError(PLATFORM, err);
      }
      const doc = hubDocument(out);
      if (!doc.HostingEcrUri || !doc.HostingArtifactUri) throw unreadable(PLATFORM, 200);
      const gated = Boolean(doc.GatedBucket || doc.HostingEulaUri);
      const environment = Object.fromEntries(
        (doc.InferenceEnvironmentVariables ?? [])
          .filter((v) => v.Name && v.Default !== undefined)
          .map((v) => [v.Name as string, v.Default as string]),
      );
      const s3Object = doc.HostingArtifactS3DataType === 'S3Object' || (doc.HostingArtifactCompressionType ?? 'None') !== 'None';
      return {
        container: {
          Image: doc.HostingEcrUri,
          Environment: Object.keys(environment).length > 0 ? environment : undefined,
          ...(s3Object
            ? { ModelDataUrl: doc.HostingArtifactUri }
            : {
                ModelDataSource: {
                  S3DataSource: {
                    S3Uri: doc.HostingArtifactUri,
                    S3DataType: 'S3Prefix',
                    CompressionType: 'None',
                    ModelAccessConfig: gated && spec.acceptEula ? { AcceptEula: true } : undefined,
                  },
                },
              }),
        },
        networkIsolation: doc.InferenceEnableNetworkIsolation,
      };
    }
    if (spec.inferenceImage) {
      const data = spec.modelDataUrl;
      // An S3 prefix (ending in "/") is uncompressed model data; an object is a model.tar.gz.
      if (data?.endsWith('/')) {
        return {
          container: {
            Image: spec.inferenceImage,
            ModelDataSource: { S3DataSource: { S3Uri: data, S3DataType: 'S3Prefix', CompressionType: 'None' } },
          },
        };
      }
      return { container: { Image: spec.inferenceImage, ModelDataUrl: data } };
    }
    throw new BadRequest('A dedicated deployment needs a modelPackageArn or an inferenceImage');
  }

  async deploy(spec: DedicatedDeploySpec): Promise<EndpointDescription> {
    const { container, networkIsolation } = await this.primaryContainer(spec);
    const resourceName = suffixedName(spec.endpointName);
    const tags: Tag[] = [MANAGED_BY_TAG, { Key: 'model-ops:endpoint', Value: spec.endpointName }];
    const vpc =
      spec.subnetIds.length > 0 && spec.securityGroupIds.length > 0
        ? { Subnets: spec.subnetIds, SecurityGroupIds: spec.securityGroupIds }
        : undefined;
    const created: ('model' | 'config')[] = [];
    try {
      await this.sagemaker.send(
        new CreateModelCommand({
          ModelName: resourceName,
          ExecutionRoleArn: spec.executionRoleArn,
          PrimaryContainer: container,
          VpcConfig: vpc,
          EnableNetworkIsolation: networkIsolation,
          Tags: tags,
        }),
      );
      created.push('model');
      await this.sagemaker.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: resourceName,
          ProductionVariants: [
            {
              VariantName: VARIANT_NAME,
              ModelName: resourceName,
              InitialInstanceCount: spec.instanceCount,
              InstanceType: spec.instanceType as never,
              InitialVariantWeight: 1,
            },
          ],
          Tags: tags,
        }),
      );
      created.push('config');
      await this.sagemaker.send(new CreateEndpointCommand({ EndpointName: spec.endpointName, EndpointConfigName: resourceName, Tags: tags }));
    } catch (err) {
      // Leave nothing behind: what was created for this endpoint is deleted again, newest first.
      if (created.includes('config'))
        await this.bestEffort('DeleteEndpointConfig', () =>
          this.sagemaker.send(new DeleteEndpointConfigCommand({ EndpointConfigName: resourceName })),
        );
      if (created.includes('model'))
        await this.bestEffort('DeleteModel', () => this.sagemaker.send(new DeleteModelCommand({ ModelName: resourceName })));
      throw toUpstreamError(PLATFORM, err);
    }
    const now = new Date().toISOString();
    return (
      (await this.describe(spec.endpointName).catch(() => undefined)) ?? {
        name: spec.endpointName,
        arn: '',
        status: 'Creating',
        configName: resourceName,
        instanceType: spec.instanceType,
        instanceCount: spec.instanceCount,
        createdAt: now,
        lastModifiedAt: now,
      }
    );
  }

  private async bestEffort(what: string, call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (err) {
      logger.warn({ message: 'dedicated platform clean-up step failed', step: what, error: errorName(err) });
    }
  }

  private async describeRaw(endpointName: string): Promise<DescribeEndpointCommandOutput | undefined> {
    try {
      return await this.sagemaker.send(new DescribeEndpointCommand({ EndpointName: endpointName }));
    } catch (err) {
      if (isEndpointMissing(err)) return undefined;
      throw toUpstreamError(PLATFORM, err);
    }
  }

  /**
   * Instance type and count of an endpoint configuration. Configurations are immutable in
   * SageMaker, so each is read once per container; a refused read (a function without
   * DescribeEndpointConfig permission) is remembered too, and the description simply lacks them.
   */
  private async variantOf(configName: string): Promise<{ instanceType?: string; instanceCount?: number }> {
    let known = this.variants.get(configName);
    if (!known) {
      known = this.sagemaker
        .send(new DescribeEndpointConfigCommand({ EndpointConfigName: configName }))
        .then((config) => ({
          instanceType: config.ProductionVariants?.[0]?.InstanceType,
          instanceCount: config.ProductionVariants?.[0]?.InitialInstanceCount,
        }))
        .catch((err: unknown) => {
          // Only a refusal is permanent; anything else is asked again next time.
          if (!/AccessDenied/.test(errorName(err))) this.variants.delete(configName);
          return {};
        });
      if (this.variants.size >= 500) this.variants.clear();
      this.variants.set(configName, known);
    }
    return known;
  }

  async describe(endpointName: string): Promise<EndpointDescription | undefined> {
    const out = await this.describeRaw(endpointName);
    if (!out) return undefined;
    // DescribeEndpoint does not say the instance type; the endpoint's configuration does.
    const variant = out.EndpointConfigName ? await this.variantOf(out.EndpointConfigName) : {};
    return description(out, variant.instanceType, variant.instanceCount);
  }

  async restart(endpointName: string): Promise<EndpointDescription> {
    const current = await this.describeRaw(endpointName);
    if (!current) throw endpointNotFound(endpointName);
    const config = await guard(PLATFORM, () =>
      this.sagemaker.send(new DescribeEndpointConfigCommand({ EndpointConfigName: current.EndpointConfigName })),
    );
    const copyName = suffixedName(endpointName);
    // A fresh copy of the running configuration: SageMaker replaces the instances (blue/green) and
    // keeps serving on the old ones until the new ones pass their health checks.
    await guard(PLATFORM, () =>
      this.sagemaker.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: copyName,
          ProductionVariants: config.ProductionVariants,
          DataCaptureConfig: config.DataCaptureConfig,
          KmsKeyId: config.KmsKeyId,
          AsyncInferenceConfig: config.AsyncInferenceConfig,
          ExplainerConfig: config.ExplainerConfig,
          ShadowProductionVariants: config.ShadowProductionVariants,
          ExecutionRoleArn: config.ExecutionRoleArn,
          VpcConfig: config.VpcConfig,
          EnableNetworkIsolation: config.EnableNetworkIsolation,
          Tags: [MANAGED_BY_TAG, { Key: 'model-ops:endpoint', Value: endpointName }],
        }),
      ),
    );
    try {
      await this.sagemaker.send(new UpdateEndpointCommand({ EndpointName: endpointName, EndpointConfigName: copyName }));
    } catch (err) {
      await this.bestEffort('DeleteEndpointConfig', () => this.sagemaker.send(new DeleteEndpointConfigCommand({ EndpointConfigName: copyName })));
      if (isEndpointMissing(err)) throw endpointNotFound(endpointName);
      throw toUpstreamError(PLATFORM, err);
    }
    const variant = config.ProductionVariants?.[0];
    return (
      (await this.describe(endpointName).catch(() => undefined)) ?? {
        ...description(current, variant?.InstanceType, variant?.InitialInstanceCount),
        status: 'Updating',
      }
    );
  }

  async delete(endpointName: string): Promise<void> {
    const current = await this.describeRaw(endpointName);
    if (!current) throw endpointNotFound(endpointName);
    try {
      await this.sagemaker.send(new DeleteEndpointCommand({ EndpointName: endpointName }));
    } catch (err) {
      if (isEndpointMissing(err)) throw endpointNotFound(endpointName);
      throw toUpstreamError(PLATFORM, err);
    }
    // The endpoint is what costs money; its configuration and model are clean-up, best effort.
    const configName = current.EndpointConfigName;
    if (!configName) return;
    let models: string[] = [];
    try {
      const config = await this.sagemaker.send(new DescribeEndpointConfigCommand({ EndpointConfigName: configName }));
      models = (config.ProductionVariants ?? []).map((v) => v.ModelName).filter((m): m is string => Boolean(m));
    } catch (err) {
      logger.warn({ message: 'dedicated platform clean-up step failed', step: 'DescribeEndpointConfig', error: errorName(err) });
    }
    await this.bestEffort('DeleteEndpointConfig', () => this.sagemaker.send(new DeleteEndpointConfigCommand({ EndpointConfigName: configName })));
    for (const model of new Set(models)) {
      await this.bestEffort('DeleteModel', () => this.sagemaker.send(new DeleteModelCommand({ ModelName: model })));
    }
  }

  endpointUrl(endpointName: string): string {
    return `${this.runtimeBase}/endpoints/${encodeURIComponent(endpointName)}/invocations`;
  }

  destroy(): void {
    this.sagemaker.destroy();
  }
}

export function createDedicatedPlatform(overrides: Partial<AwsPlatformOptions> = {}): SageMakerDedicatedPlatform {
  return new SageMakerDedicatedPlatform(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const dedicated: DedicatedPlatform = /* @__PURE__ */ createDedicatedPlatform();
