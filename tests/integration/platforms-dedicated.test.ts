/**
 * The dedicated adapters (SageMaker: catalogue and endpoints; SageMaker runtime in dedicated/chat;
 * CloudWatch in dedicated/metrics) through the real SDK clients.
 * Catalogue reads use the shared test emulator; deployments use a private emulator in this process,
 * so the tests can read back exactly what the adapter created (tags, containers, variants) and can
 * inject faults without any other test file seeing them.
 */
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { BadRequest, UpstreamError } from '../../lib/errors';
import { createDedicatedCatalogue, dedicatedCatalogue as dedicated } from '../../lib/platforms/dedicated/catalogue';
import { createDedicatedEndpoints, dedicatedEndpoints, type SageMakerEndpoints } from '../../lib/platforms/dedicated/endpoints';
import { createDedicatedChat, type SageMakerEndpointChat } from '../../lib/platforms/dedicated/chat';
import { createDedicatedMetrics, type CloudWatchEndpointMetrics } from '../../lib/platforms/dedicated/metrics';
import type { DedicatedDeploySpec } from '../../lib/platforms/types';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { control, injectFault, rejection } from '../emulator/helpers';

jest.setTimeout(60_000);

const HUB = (name: string, version: string) => `arn:aws:sagemaker:us-east-1:aws:hub-content/SageMakerPublicHub/Model/${name}/${version}`;
const PACKAGE_V1 = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1';
const ROLE = 'arn:aws:iam::123456789012:role/model-ops-test-sagemaker';

describe('dedicated catalogue against the shared emulator', () => {
  test('the public source lists hub models newest first as spec 2.6 dedicated entries', async () => {
    const models = await dedicated.listModels({ source: 'public', max: 20 });
    expect(models.map((m) => m.displayName)).toEqual([
      'Meta Llama 3.2 11B Vision Instruct',
      'Mistral 7B Instruct',
      'Phi-3 Mini 4K Instruct',
      'Meta Llama 3 70B Instruct',
      'Meta Llama 3 8B Instruct',
      'BGE Large EN v1.5',
      'Gemma 2B Instruct',
      'Falcon 7B Instruct BF16',
    ]);
    expect(models[1]).toEqual({
      modelPackageArn: HUB('huggingface-llm-mistral-7b-instruct', '3.1.0'),
      displayName: 'Mistral 7B Instruct',
      creationTime: '2024-06-11T00:00:00.000Z',
      modelApprovalStatus: 'Approved',
      inferenceContainers: [
        {
          image: expect.stringMatching(/^763104351884\.dkr\.ecr\.us-east-1\.amazonaws\.com\/huggingface-pytorch-tgi-inference:2\.1\.1-/),
          modelDataUrl: expect.stringMatching(
            /^s3:\/\/jumpstart-cache-prod-us-east-1\/.+\/huggingface-llm-mistral-7b-instruct\/artifacts\/inference-prepack\/v1\.0\.0\/$/,
          ),
          framework: 'huggingface',
          frameworkVersion: '2.1.1',
        },
      ],
      supportedContentTypes: ['application/json'],
      supportedResponseMIMETypes: ['application/json'],
      supportedRealtimeInferenceInstanceTypes: ['ml.g5.2xlarge', 'ml.g5.4xlarge', 'ml.g5.12xlarge', 'ml.p4d.24xlarge'],
      supportedTransformInstanceTypes: [],
    });
  });

  test('the account source lists registry versions and unversioned packages, with their containers', async () => {
    const models = await dedicated.listModels({ source: 'account', max: 20 });
    expect(models.map((m) => m.displayName)).toEqual([
      'llm-support-bot v2',
      'llm-support-bot v1',
      'fraud-detector-xgboost v3',
      'legacy-sentiment-classifier',
    ]);
    expect(models[1]).toEqual({
      modelPackageArn: PACKAGE_V1,
      displayName: 'llm-support-bot v1',
      creationTime: '2024-07-02T00:00:00.000Z',
      modelApprovalStatus: 'Approved',
      inferenceContainers: [
        {
          image: expect.stringContaining('huggingface-pytorch-tgi-inference'),
          modelDataUrl: 's3://model-ops-artifacts-123456789012/llm-support-bot/v1/model.tar.gz',
          framework: 'PYTORCH',
          frameworkVersion: '2.1.1',
        },
      ],
      supportedContentTypes: ['application/json'],
      supportedResponseMIMETypes: ['application/json'],
      supportedRealtimeInferenceInstanceTypes: ['ml.g5.xlarge', 'ml.g5.2xlarge', 'ml.g5.12xlarge'],
      supportedTransformInstanceTypes: ['ml.g5.2xlarge'],
    });
    expect(models[3]?.modelApprovalStatus).toBe('None');
  });

  test('all merges both sources newest first and max caps the result', async () => {
    const models = await dedicated.listModels({ source: 'all', max: 3 });
    expect(models.map((m) => m.displayName)).toEqual(['Meta Llama 3.2 11B Vision Instruct', 'llm-support-bot v2', 'llm-support-bot v1']);
  });

  test('search filters by name on the platform side', async () => {
    expect((await dedicated.listModels({ source: 'public', max: 20, search: 'llama' })).map((m) => m.displayName)).toEqual([
      'Meta Llama 3.2 11B Vision Instruct',
      'Meta Llama 3 70B Instruct',
      'Meta Llama 3 8B Instruct',
    ]);
    expect((await dedicated.listModels({ source: 'account', max: 20, search: 'fraud' })).map((m) => m.displayName)).toEqual([
      'fraud-detector-xgboost v3',
    ]);
  });

  test('describeModelPackage reads a registry package, a public hub model, or says undefined', async () => {
    expect((await dedicated.describeModelPackage(PACKAGE_V1))?.displayName).toBe('llm-support-bot v1');
    expect((await dedicated.describeModelPackage(HUB('huggingface-llm-gemma-2b-instruct', '1.3.0')))?.displayName).toBe('Gemma 2B Instruct');
    expect(await dedicated.describeModelPackage('arn:aws:sagemaker:us-east-1:123456789012:model-package/nothing/9')).toBeUndefined();
    expect(await dedicated.describeModelPackage(HUB('no-such-model', '1.0.0'))).toBeUndefined();
  });

  test('endpointUrl is the InvokeEndpoint URL on the configured endpoint, or the regional one', () => {
    expect(dedicatedEndpoints.endpointUrl('my-ep')).toBe(`${process.env.SERVICE_CLOUD_ENDPOINT}/endpoints/my-ep/invocations`);
    expect(createDedicatedEndpoints({ endpoint: undefined, region: 'eu-west-1' }).endpointUrl('my-ep')).toBe(
      'https://runtime.sagemaker.eu-west-1.amazonaws.com/endpoints/my-ep/invocations',
    );
  });
});

describe('dedicated deployments, control, metrics and chat (private emulator)', () => {
  let emulator: RunningEmulator;
  let platform: SageMakerEndpoints;
  let catalogue: ReturnType<typeof createDedicatedCatalogue>;
  let chat: SageMakerEndpointChat;
  let metrics: CloudWatchEndpointMetrics;
  const name = () => `plat-${randomUUID().slice(0, 8)}`;
  const spec = (endpointName: string, extra: Partial<DedicatedDeploySpec> = {}): DedicatedDeploySpec => ({
    resourceId: '00000000-0000-4000-8000-00000000c0de',
    endpointName,
    instanceType: 'ml.g5.2xlarge',
    instanceCount: 1,
    executionRoleArn: ROLE,
    subnetIds: ['subnet-1', 'subnet-2'],
    securityGroupIds: ['sg-1'],
    modelPackageArn: PACKAGE_V1,
    ...extra,
  });
  const modelsOf = (prefix: string) => [...emulator.state.models.keys()].filter((n) => n.startsWith(`${prefix}-`));
  const configsOf = (prefix: string) => [...emulator.state.endpointConfigs.keys()].filter((n) => n.startsWith(`${prefix}-`));
  const modelInput = (prefix: string) => emulator.state.models.get(modelsOf(prefix)[0] as string)?.input as Record<string, any>;

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, lifecycleDelayMs: 0 });
    platform = createDedicatedEndpoints({ endpoint: emulator.url, timeoutMs: 500, maxAttempts: 2 });
    catalogue = createDedicatedCatalogue({ endpoint: emulator.url, timeoutMs: 500, maxAttempts: 2 });
    chat = createDedicatedChat({ endpoint: emulator.url, timeoutMs: 500, maxAttempts: 2 });
    metrics = createDedicatedMetrics({ endpoint: emulator.url, timeoutMs: 500, maxAttempts: 2 });
  });
  afterEach(() => control(emulator.url, 'DELETE', '/faults'));
  afterAll(async () => {
    platform.destroy();
    catalogue.destroy();
    chat.destroy();
    metrics.destroy();
    await emulator.close();
  });

  describe('deploy', () => {
    test('creates a model from the package, one AllTraffic variant, and the endpoint, each tagged with the service, stage, endpoint and resource', async () => {
      const ep = name();
      const description = await platform.deploy(spec(ep));
      expect(description).toMatchObject({
        name: ep,
        arn: `arn:aws:sagemaker:us-east-1:123456789012:endpoint/${ep}`,
        status: expect.stringMatching(/^(Creating|InService)$/),
        configName: expect.stringMatching(new RegExp(`^${ep}-[0-9a-f]{6}$`)),
        instanceType: 'ml.g5.2xlarge',
        instanceCount: 1,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      const [model] = modelsOf(ep);
      expect(model).toBe(description.configName);
      expect(modelInput(ep)).toMatchObject({
        ExecutionRoleArn: ROLE,
        PrimaryContainer: { ModelPackageName: PACKAGE_V1 },
        VpcConfig: { Subnets: ['subnet-1', 'subnet-2'], SecurityGroupIds: ['sg-1'] },
      });
      const config = emulator.state.endpointConfigs.get(description.configName);
      expect(config?.variants).toEqual([
        { VariantName: 'AllTraffic', ModelName: model, InitialInstanceCount: 1, InstanceType: 'ml.g5.2xlarge', InitialVariantWeight: 1 },
      ]);
      const expectedTags = {
        'managed-by': 'model-ops',
        'model-ops:stage': process.env.STAGE ?? 'local',
        'model-ops:endpoint': ep,
        'model-ops:resource-id': '00000000-0000-4000-8000-00000000c0de',
      };
      for (const arn of [description.arn, emulator.state.models.get(model as string)?.arn, config?.arn]) {
        expect(await platform.tagsOf(arn as string)).toEqual(expectedTags);
      }
    });

    test('a public hub model is deployed from its image and uncompressed artefacts, the licence accepted only when asked', async () => {
      const gated = HUB('meta-textgeneration-llama-3-8b-instruct', '2.6.0');
      const accepted = name();
      await platform.deploy(spec(accepted, { modelPackageArn: gated, acceptEula: true }));
      expect(modelInput(accepted).PrimaryContainer).toMatchObject({
        Image: expect.stringContaining('djl-inference'),
        Environment: expect.objectContaining({ SAGEMAKER_PROGRAM: 'inference.py' }),
        ModelDataSource: {
          S3DataSource: {
            S3Uri: expect.stringMatching(/^s3:\/\/jumpstart-cache-prod-us-east-1\/gated\//),
            S3DataType: 'S3Prefix',
            CompressionType: 'None',
            ModelAccessConfig: { AcceptEula: true },
          },
        },
      });
      expect(modelInput(accepted).EnableNetworkIsolation).toBe(true);

      const notAccepted = name();
      await platform.deploy(spec(notAccepted, { modelPackageArn: gated }));
      expect(modelInput(notAccepted).PrimaryContainer.ModelDataSource.S3DataSource.ModelAccessConfig).toBeUndefined();
    });

    test('an inference image with model data is deployed as given', async () => {
      const ep = name();
      await platform.deploy(
        spec(ep, { modelPackageArn: undefined, inferenceImage: '111.dkr.ecr.us-east-1.amazonaws.com/img:1', modelDataUrl: 's3://b/model.tar.gz' }),
      );
      expect(modelInput(ep).PrimaryContainer).toEqual({ Image: '111.dkr.ecr.us-east-1.amazonaws.com/img:1', ModelDataUrl: 's3://b/model.tar.gz' });
    });

    test('without a network configuration no VpcConfig is sent', async () => {
      const ep = name();
      await platform.deploy(spec(ep, { subnetIds: [], securityGroupIds: [] }));
      expect(modelInput(ep).VpcConfig).toBeUndefined();
    });

    test('a deployment with neither a package nor an image is refused before any call', async () => {
      await expect(platform.deploy(spec(name(), { modelPackageArn: undefined }))).rejects.toBeInstanceOf(BadRequest);
    });

    test('when CreateEndpoint fails, the model and configuration just created are deleted again', async () => {
      const ep = name();
      await injectFault(emulator.url, { target: 'CreateEndpoint', model: ep, fault: '500' });
      const err = await rejection(platform.deploy(spec(ep)));
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err).toMatchObject({ statusCode: 502, message: 'The dedicated platform failed (status 500)' });
      expect(modelsOf(ep)).toEqual([]);
      expect(configsOf(ep)).toEqual([]);
      expect(await platform.describe(ep)).toBeUndefined();
    });

    test('when CreateEndpointConfig fails, the model just created is deleted again', async () => {
      const ep = name();
      await injectFault(emulator.url, { target: 'CreateEndpointConfig', fault: '429' });
      const err = await rejection(platform.deploy(spec(ep)));
      expect(err).toMatchObject({ statusCode: 503, message: 'The dedicated platform is throttling requests' });
      expect(modelsOf(ep)).toEqual([]);
    });

    test('deploying onto an existing endpoint name is rejected with the platform message, and leaves nothing behind', async () => {
      const ep = name();
      await platform.deploy(spec(ep));
      const err = await rejection(platform.deploy(spec(ep)));
      expect(err).toMatchObject({ statusCode: 502, upstreamStatus: 400, message: 'The dedicated platform rejected the request (status 400)' });
      expect(err.details).toContain('Cannot create already existing endpoint');
      expect(modelsOf(ep)).toHaveLength(1);
      expect(configsOf(ep)).toHaveLength(1);
    });
  });

  describe('describe, restart, delete', () => {
    test('describe of an endpoint that does not exist is undefined', async () => {
      expect(await platform.describe(name())).toBeUndefined();
    });

    test('describe reports status, configuration and instances', async () => {
      const ep = name();
      const { configName } = await platform.deploy(spec(ep));
      expect(await platform.describe(ep)).toMatchObject({
        name: ep,
        status: 'InService',
        configName,
        instanceType: 'ml.g5.2xlarge',
        instanceCount: 1,
      });
    });

    test('restart moves the endpoint onto a fresh copy of its configuration', async () => {
      const ep = name();
      const before = await platform.deploy(spec(ep));
      const after = await platform.restart(ep);
      expect(after.status).toMatch(/^(Updating|InService)$/);
      expect(after.configName).toMatch(new RegExp(`^${ep}-[0-9a-f]{6}$`));
      expect(after.configName).not.toBe(before.configName);
      expect(emulator.state.endpointConfigs.get(after.configName)?.variants).toEqual(emulator.state.endpointConfigs.get(before.configName)?.variants);
      expect((await platform.describe(ep))?.status).toBe('InService');
    });

    test('restart of a missing endpoint is a 404 naming it', async () => {
      const ep = name();
      expect(await rejection(platform.restart(ep))).toMatchObject({
        statusCode: 404,
        message: `The dedicated platform has no endpoint named "${ep}"`,
      });
    });

    test('a failed UpdateEndpoint removes the configuration copy it was given', async () => {
      const ep = name();
      const { configName } = await platform.deploy(spec(ep));
      await injectFault(emulator.url, { target: 'UpdateEndpoint', model: ep, fault: '500' });
      expect(await rejection(platform.restart(ep))).toMatchObject({ statusCode: 502 });
      expect(configsOf(ep)).toEqual([configName]);
    });

    test('delete removes the endpoint, then its configuration and model', async () => {
      const ep = name();
      await platform.deploy(spec(ep));
      await platform.delete(ep);
      expect(await platform.describe(ep)).toBeUndefined();
      expect(modelsOf(ep)).toEqual([]);
      expect(configsOf(ep)).toEqual([]);
    });

    test('delete of a missing endpoint is a 404 naming it', async () => {
      expect(await rejection(platform.delete('never-was-here'))).toMatchObject({ statusCode: 404 });
    });

    test('a platform that never answers DescribeEndpoint is a 504', async () => {
      const ep = name();
      await injectFault(emulator.url, { target: 'DescribeEndpoint', model: ep, fault: 'timeout' });
      expect(await rejection(platform.describe(ep))).toMatchObject({ statusCode: 504, message: 'The dedicated platform did not answer in time' });
    });
  });

  describe('chat and metrics', () => {
    let ep: string;
    let modelName: string;
    beforeAll(async () => {
      ep = name();
      modelName = (await platform.deploy(spec(ep))).configName;
    });

    test('chat invokes the endpoint with an OpenAI-style body and reads the completion and usage', async () => {
      const reply = await chat.chat({ target: ep, system: 'Be brief.', messages: [{ role: 'user', content: 'hello endpoint' }], maxTokens: 100 });
      expect(reply.content).toContain('You said: "hello endpoint"');
      expect(reply.content).toContain('system: yes');
      expect(reply.tokensIn).toBeGreaterThan(0);
      expect(reply.tokensOut).toBeGreaterThan(0);
      expect(reply.modelId).toBe(modelName);
    });

    test('chat on an endpoint that does not exist says it is not available', async () => {
      const err = await rejection(chat.chat({ target: 'no-such-endpoint', messages: [{ role: 'user', content: 'x' }] }));
      expect(err).toMatchObject({
        statusCode: 502,
        message: 'The dedicated endpoint "no-such-endpoint" is not available (not found, or not InService)',
      });
    });

    test.each([
      ['fail', 502, 'The model on the dedicated platform failed (status 500)'],
      ['429', 503, 'The dedicated platform is throttling requests'],
      ['malformed', 502, 'The dedicated platform returned a response that could not be read'],
      ['timeout', 504, 'The dedicated platform did not answer in time'],
    ])('an InvokeEndpoint %s fault is %s "%s"', async (fault, status, message) => {
      await injectFault(emulator.url, { target: 'InvokeEndpoint', model: ep, fault });
      const err = await rejection(chat.chat({ target: ep, messages: [{ role: 'user', content: 'x' }] }));
      expect(err).toMatchObject({ statusCode: status, message });
    });

    test('metrics read invocations, latency, errors and utilisation from CloudWatch', async () => {
      const metricsEp = name();
      await platform.deploy(spec(metricsEp));
      for (let i = 0; i < 3; i++) await chat.chat({ target: metricsEp, messages: [{ role: 'user', content: `m${i}` }] });
      await injectFault(emulator.url, { target: 'InvokeEndpoint', model: metricsEp, fault: 'fail', count: 1 });
      await rejection(chat.chat({ target: metricsEp, messages: [{ role: 'user', content: 'boom' }] }));

      const m = await metrics.metrics(metricsEp, 15);
      expect(Object.keys(m).sort()).toEqual([
        'cpu_utilization',
        'error_rate_percent',
        'memory_utilization',
        'response_time_ms',
        'throughput_per_minute',
      ]);
      expect(m.throughput_per_minute).toBeCloseTo(4 / 15, 2);
      expect(m.error_rate_percent).toBe(25);
      expect(m.response_time_ms).toBeGreaterThanOrEqual(0);
      expect(m.cpu_utilization).toBeGreaterThan(0);
      expect(m.memory_utilization).toBeGreaterThan(0);
    });

    test('metrics of an endpoint with no datapoints are zeros', async () => {
      expect(await metrics.metrics('nothing-published', 15)).toEqual({
        response_time_ms: 0,
        throughput_per_minute: 0,
        error_rate_percent: 0,
        cpu_utilization: 0,
        memory_utilization: 0,
      });
    });

    test('a CloudWatch failure is an UpstreamError naming the platform', async () => {
      await injectFault(emulator.url, { target: 'GetMetricData', model: ep, fault: '500' });
      expect(await rejection(metrics.metrics(ep))).toMatchObject({ statusCode: 502, message: 'The dedicated platform failed (status 500)' });
    });
  });

  describe('catalogue faults', () => {
    test.each([
      ['ListHubContents', '500', 502, 'The dedicated platform failed (status 500)'],
      ['ListHubContents', 'malformed', 502, 'The dedicated platform returned a response that could not be read'],
      ['DescribeHubContent', '429', 503, 'The dedicated platform is throttling requests'],
      ['ListModelPackages', 'timeout', 504, 'The dedicated platform did not answer in time'],
    ])('a %s %s fault fails the listing with %s "%s"', async (target, fault, status, message) => {
      await injectFault(emulator.url, { target, fault });
      const err = await rejection(catalogue.listModels({ source: 'all', max: 20 }));
      expect(err).toMatchObject({ statusCode: status, message, platform: 'dedicated' });
    });
  });
});
