/**
 * The dedicated platform's endpoints: Amazon SageMaker deployment (model, endpoint configuration,
 * endpoint), endpoint state and the operations on it (restart, delete, a guardrail's stop and start
 * again), listing and tags. The catalogue is catalogue.ts; chat (SageMaker runtime) is chat.ts and
 * metrics (CloudWatch) metrics.ts, so that this module bundles the SageMaker client alone.
 *
 * Resources this service creates are named `<endpointName>-<6 hex>` (model and endpoint
 * configuration alike: they are different resource types) and tagged with the service, the stage,
 * the endpoint name and the tracked resource's id (./tags.ts), so an operator can tell them
 * apart from anything else in the account and the reconciler can find an endpoint whose record was
 * never written.
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
  AddTagsCommand,
  ListEndpointsCommand,
  ListTagsCommand,
  SageMakerClient,
  UpdateEndpointCommand,
  type ContainerDefinition,
  type DescribeEndpointCommandOutput,
  type DescribeHubContentCommandOutput,
  type Tag,
} from '@aws-sdk/client-sagemaker';
import { BadRequest, UpstreamError } from '../../errors';
import { logger } from '../../../core/observability';
import { http1ClientConfig, resolveAwsOptions, type AwsPlatformOptions } from '../clients';
import { errorMessage, errorName, guard, toUpstreamError, unreadable } from '../errors';
import { VARIANT_NAME, type DedicatedDeploySpec, type DedicatedEndpoints, type EndpointDescription, type EndpointSummary } from '../types';
import { PLATFORM, describeHubContent, hubDocument, iso, parseHubContentArn } from './sagemaker';
import { ownerTags } from '../tags';
import { traced } from '#tracing';

const asTagList = (tags: Record<string, string>): Tag[] => Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
const SAGEMAKER_NAME_MAX = 63;

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** `<base>-<6 hex>`, cut so the whole stays within SageMaker's 63-character names. */
export function suffixedName(base: string): string {
  const suffix = randomBytes(3).toString('hex');
  return `${base.slice(0, SAGEMAKER_NAME_MAX - suffix.length - 1).replace(/-+$/, '')}-${suffix}`;
}

const isEndpointMissing = (err: unknown) => errorName(err) === 'ValidationException' && /Could not find endpoint/i.test(errorMessage(err));

function endpointNotFound(endpointName: string): UpstreamError {
  return new UpstreamError(PLATFORM, `The dedicated platform has no endpoint named "${endpointName}"`, 'missing', undefined, 400);
}

function description(
  out: DescribeEndpointCommandOutput,
  variant: { instanceType?: string; instanceCount?: number; variantNames?: string[] } = {},
): EndpointDescription {
  const serving = out.ProductionVariants?.[0];
  const pending = out.PendingDeploymentSummary?.ProductionVariants?.[0];
  const variantNames = (out.ProductionVariants ?? []).map((v) => v.VariantName).filter((v): v is string => Boolean(v));
  return {
    name: out.EndpointName ?? '',
    arn: out.EndpointArn ?? '',
    status: out.EndpointStatus ?? 'Creating',
    failureReason: out.FailureReason || undefined,
    configName: out.EndpointConfigName ?? '',
    instanceType: variant.instanceType ?? pending?.InstanceType,
    instanceCount: serving?.CurrentInstanceCount ?? pending?.DesiredInstanceCount ?? variant.instanceCount,
    // An endpoint still Creating reports no variants yet; its configuration names them.
    variantNames: variantNames.length > 0 ? variantNames : (variant.variantNames ?? []),
    createdAt: iso(out.CreationTime),
    lastModifiedAt: iso(out.LastModifiedTime),
  };
}

function summary(e: {
  EndpointName?: string;
  EndpointArn?: string;
  EndpointStatus?: string;
  CreationTime?: Date;
  LastModifiedTime?: Date;
}): EndpointSummary {
  return {
    name: e.EndpointName ?? '',
    arn: e.EndpointArn ?? '',
    status: (e.EndpointStatus ?? 'Creating') as EndpointSummary['status'],
    createdAt: iso(e.CreationTime),
    lastModifiedAt: iso(e.LastModifiedTime),
  };
}

// ---------------------------------------------------------------------------------------------
// The adapter
// ---------------------------------------------------------------------------------------------

export class SageMakerEndpoints implements DedicatedEndpoints {
  readonly region: string;
  private readonly sagemaker: SageMakerClient;
  private readonly runtimeBase: string;
  private readonly variants = new Map<string, Promise<{ instanceType?: string; instanceCount?: number; variantNames?: string[] }>>();

  constructor(options: AwsPlatformOptions) {
    this.region = options.region;
    this.sagemaker = traced(new SageMakerClient(http1ClientConfig(options)));
    this.runtimeBase = options.endpoint ?? `https://runtime.sagemaker.${options.region}.amazonaws.com`;
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
        out = await describeHubContent(this.sagemaker, hub);
      } catch (err) {
        if (errorName(err) === 'ResourceNotFound' || errorName(err) === 'ValidationException') {
          throw new UpstreamError(PLATFORM, `The dedicated platform has no public model "${hub.name}"`, 'failed', undefined, 400);
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
    const tags = asTagList(ownerTags(spec.endpointName, spec.resourceId));
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
      if (created.includes('config')) {
        // CreateEndpoint may have been carried out although its answer was lost (a timeout, a retry
        // that then finds the endpoint "already existing"): an endpoint on our fresh configuration is
        // ours, and the deploy has succeeded. If that cannot be told, the configuration and model stay:
        // an endpoint that may exist needs them, and they cost nothing.
        const outcome = await this.describeRaw(spec.endpointName).then(
          (out) => out ?? ('absent' as const),
          () => 'unknown' as const,
        );
        if (typeof outcome === 'object' && outcome.EndpointConfigName === resourceName) {
          return description(outcome, { instanceType: spec.instanceType, instanceCount: spec.instanceCount, variantNames: [VARIANT_NAME] });
        }
        if (outcome === 'unknown') throw toUpstreamError(PLATFORM, err);
      }
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
        variantNames: [VARIANT_NAME],
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
  private async variantOf(configName: string): Promise<{ instanceType?: string; instanceCount?: number; variantNames?: string[] }> {
    let known = this.variants.get(configName);
    if (!known) {
      known = this.sagemaker
        .send(new DescribeEndpointConfigCommand({ EndpointConfigName: configName }))
        .then((config) => ({
          instanceType: config.ProductionVariants?.[0]?.InstanceType,
          instanceCount: config.ProductionVariants?.[0]?.InitialInstanceCount,
          variantNames: (config.ProductionVariants ?? []).map((v) => v.VariantName).filter((v): v is string => Boolean(v)),
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
    return description(out, variant);
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
          Tags: asTagList(ownerTags(endpointName)),
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
        ...description(current, { instanceType: variant?.InstanceType, instanceCount: variant?.InitialInstanceCount }),
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
    if (current.EndpointConfigName) await this.deleteRetained(current.EndpointConfigName);
  }

  async stop(endpointName: string): Promise<void> {
    try {
      await this.sagemaker.send(new DeleteEndpointCommand({ EndpointName: endpointName }));
    } catch (err) {
      if (isEndpointMissing(err)) throw endpointNotFound(endpointName);
      throw toUpstreamError(PLATFORM, err);
    }
  }

  async recreate(endpointName: string, configName: string, resourceId: string): Promise<EndpointDescription> {
    await guard(PLATFORM, () =>
      this.sagemaker.send(
        new CreateEndpointCommand({
          EndpointName: endpointName,
          EndpointConfigName: configName,
          Tags: asTagList(ownerTags(endpointName, resourceId)),
        }),
      ),
    );
    const now = new Date().toISOString();
    return (
      (await this.describe(endpointName).catch(() => undefined)) ?? {
        name: endpointName,
        arn: '',
        status: 'Creating',
        configName,
        variantNames: [],
        createdAt: now,
        lastModifiedAt: now,
      }
    );
  }

  async deleteRetained(configName: string): Promise<void> {
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

  async listEndpoints(nextToken?: string): Promise<{ endpoints: EndpointSummary[]; nextToken?: string }> {
    const page = await guard(PLATFORM, () =>
      this.sagemaker.send(new ListEndpointsCommand({ MaxResults: 100, SortBy: 'CreationTime', SortOrder: 'Descending', NextToken: nextToken })),
    );
    if (!Array.isArray(page.Endpoints)) throw unreadable(PLATFORM, page.$metadata.httpStatusCode);
    return { endpoints: page.Endpoints.map(summary), nextToken: page.NextToken || undefined };
  }

  async tagsOf(endpointArn: string): Promise<Record<string, string> | undefined> {
    const tags: Record<string, string> = {};
    let NextToken: string | undefined;
    try {
      do {
        const page = await this.sagemaker.send(new ListTagsCommand({ ResourceArn: endpointArn, MaxResults: 100, NextToken }));
        for (const t of page.Tags ?? []) if (t.Key) tags[t.Key] = t.Value ?? '';
        NextToken = page.NextToken || undefined;
      } while (NextToken);
    } catch (err) {
      // "Could not find endpoint ...": it was deleted between the listing and this call.
      if (errorName(err) === 'ValidationException' && /Could not find|does not exist|not found/i.test(errorMessage(err))) return undefined;
      throw toUpstreamError(PLATFORM, err);
    }
    return tags;
  }

  async tag(endpointArn: string, tags: Record<string, string>): Promise<void> {
    await guard(PLATFORM, () => this.sagemaker.send(new AddTagsCommand({ ResourceArn: endpointArn, Tags: asTagList(tags) })));
  }

  endpointUrl(endpointName: string): string {
    return `${this.runtimeBase}/endpoints/${encodeURIComponent(endpointName)}/invocations`;
  }

  destroy(): void {
    this.sagemaker.destroy();
  }
}

export function createDedicatedEndpoints(overrides: Partial<AwsPlatformOptions> = {}): SageMakerEndpoints {
  return new SageMakerEndpoints(resolveAwsOptions(overrides));
}

/** Built once per cold start. */
export const dedicatedEndpoints: DedicatedEndpoints = /* @__PURE__ */ createDedicatedEndpoints();
