/**
 * The service's shared words: what every layer (tables/, lib/, functions/) may name without
 * depending on another layer. Only types and constant lists live here, no behaviour.
 */

/** The three kinds of model platform (docs/openapi.yaml Platform). */
export type PlatformName = 'managed' | 'dedicated' | 'hosted';
export const PLATFORMS: readonly PlatformName[] = ['managed', 'dedicated', 'hosted'];

/**
 * SageMaker's EndpointStatus values. The first six are also the resource states (docs/architecture.md, Resource lifecycle);
 * the platform's transitional ones (SystemUpdating, RollingBack, UpdateRollbackFailed) are mapped onto
 * those before they are stored (lib/resources/lifecycle.ts).
 */
export type EndpointStatus =
  'Creating' | 'InService' | 'Updating' | 'Deleting' | 'Failed' | 'OutOfService' | 'SystemUpdating' | 'RollingBack' | 'UpdateRollbackFailed';

/** The three roles (README). */
export const ROLES = ['super_admin', 'admin', 'user'] as const;
export type Role = (typeof ROLES)[number];

/** A SageMaker instance type such as ml.g5.xlarge: what price entries and dedicated deploys name. */
export const INSTANCE_TYPE = /^ml\.[a-z0-9]+\.[a-z0-9]+$/;

/**
 * What a model can be asked to do (lib/platforms: a platform's traits say what its models may do at
 * most; a tracked resource stores what its model does). Here because a tracked resource keeps it.
 */
export interface ModelCapabilities {
  chat: boolean;
  /** The answer as it is generated (server-sent events). */
  stream: boolean;
  /** Function calling: tools offered, tool calls answered, tool results sent back. */
  tools: boolean;
  /** An answer that is a JSON document (and, with a schema, one that validates). */
  jsonOutput: boolean;
  /** Images among the input (base64 `data:` bytes). */
  imageInput: boolean;
  /** Vectors for texts instead of a chat answer. */
  embeddings: boolean;
}
