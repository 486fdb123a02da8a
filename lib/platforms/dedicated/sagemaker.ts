/**
 * What the dedicated platform's two SageMaker modules share (catalogue.ts: the public model hub and
 * the account's model registry; endpoints.ts: deployment and endpoint state): the platform's name,
 * the public hub, its content ARNs and documents, and the one DescribeHubContent call both make.
 */
import { DescribeHubContentCommand, type DescribeHubContentCommandOutput, type SageMakerClient } from '@aws-sdk/client-sagemaker';

export const PLATFORM = 'dedicated' as const;
export const PUBLIC_HUB = 'SageMakerPublicHub';

export const iso = (d: Date | undefined) => (d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString() : new Date(0).toISOString());

/** The parts of a public-hub content ARN: arn:aws:sagemaker:<region>:aws:hub-content/<hub>/<type>/<name>/<version>. */
export function parseHubContentArn(arn: string): { hub: string; type: string; name: string; version?: string } | undefined {
  const m = /^arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[a-z0-9]*:hub-content\/([^/]+)\/([^/]+)\/([^/]+)(?:\/([^/]+))?$/.exec(arn);
  return m ? { hub: m[1] as string, type: m[2] as string, name: m[3] as string, version: m[4] } : undefined;
}

export interface HubDocument {
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

export function hubDocument(out: DescribeHubContentCommandOutput): HubDocument {
  try {
    const doc = JSON.parse(out.HubContentDocument ?? '{}') as unknown;
    return doc && typeof doc === 'object' ? doc : {};
  } catch {
    return {};
  }
}

export type HubContentRef = NonNullable<ReturnType<typeof parseHubContentArn>>;

export function describeHubContent(sagemaker: SageMakerClient, hub: HubContentRef): Promise<DescribeHubContentCommandOutput> {
  return sagemaker.send(
    new DescribeHubContentCommand({
      HubName: hub.hub,
      HubContentType: hub.type as 'Model',
      HubContentName: hub.name,
      HubContentVersion: hub.version,
    }),
  );
}
