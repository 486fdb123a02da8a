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
  DescribeModelCommand,
  DescribeModelPackageCommand,
  AddTagsCommand,
  ListEndpointsCommand,
  ListHubContentsCommand,
  ListTagsCommand,
  ListModelPackagesCommand,
  SageMakerClient,
  UpdateEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
  waitUntilEndpointDeleted,
  waitUntilEndpointInService,
  type DescribeEndpointCommandOutput,
} from '@aws-sdk/client-sagemaker';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, control, createModelAndConfig, deployEndpoint, injectFault, pollUntil, rejection } from './helpers';

const LIFECYCLE_MS = 50;
const ARN_PREFIX = 'arn:aws:sagemaker:us-east-1:123456789012';

let emulator: RunningEmulator;
let sm: SageMakerClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, lifecycleDelayMs: LIFECYCLE_MS });
  sm = new SageMakerClient(clientConfig(emulator.url));
});

afterAll(async () => {
  sm.destroy();
  await emulator.close();
});

beforeEach(async () => {
  await control(emulator.url, 'POST', '/reset');
});

/**
 * Runs `fn` with transitions frozen, so an intermediate status is observed however slowly the test
 * machine runs; the lifecycle then resumes from the original start time.
 */
async function frozen<T>(fn: () => Promise<T>): Promise<T> {
  emulator.options.lifecycleDelayMs = 60_000;
  try {
    return await fn();
  } finally {
    emulator.options.lifecycleDelayMs = LIFECYCLE_MS;
  }
}

const describe_ = (name: string) => sm.send(new DescribeEndpointCommand({ EndpointName: name }));
const statusOf = (out: DescribeEndpointCommandOutput) => out.EndpointStatus;

describe('SageMaker public hub', () => {
  it('lists the public hub models with Date creation times', async () => {
    const out = await sm.send(new ListHubContentsCommand({ HubName: 'SageMakerPublicHub', HubContentType: 'Model' }));
    const names = out.HubContentSummaries?.map((h) => h.HubContentName);
    expect(names).toHaveLength(8);
    expect(names).toEqual(
      expect.arrayContaining([
        'huggingface-llm-mistral-7b-instruct',
        'meta-textgeneration-llama-3-8b-instruct',
        'huggingface-sentencesimilarity-bge-large-en-v1-5',
      ]),
    );
    const first = out.HubContentSummaries?.[0];
    expect(first?.CreationTime).toBeInstanceOf(Date);
    expect(first?.HubContentStatus).toBe('Available');
    expect(first?.HubContentArn).toMatch(/^arn:aws:sagemaker:us-east-1:aws:hub-content\/SageMakerPublicHub\/Model\//);
  });

  it('pages through the hub with MaxResults and NextToken', async () => {
    const first = await sm.send(new ListHubContentsCommand({ HubName: 'SageMakerPublicHub', HubContentType: 'Model', MaxResults: 4 }));
    const second = await sm.send(
      new ListHubContentsCommand({ HubName: 'SageMakerPublicHub', HubContentType: 'Model', MaxResults: 4, NextToken: first.NextToken }),
    );
    expect(first.HubContentSummaries).toHaveLength(4);
    expect(second.HubContentSummaries).toHaveLength(4);
    expect(second.NextToken).toBeUndefined();
  });

  it('describes a hub model with a document naming its container image, artifacts and instance types', async () => {
    const out = await sm.send(
      new DescribeHubContentCommand({
        HubName: 'SageMakerPublicHub',
        HubContentType: 'Model',
        HubContentName: 'huggingface-llm-mistral-7b-instruct',
      }),
    );
    const doc = JSON.parse(out.HubContentDocument ?? '{}');
    expect(doc.HostingEcrUri).toMatch(/^763104351884\.dkr\.ecr\.us-east-1\.amazonaws\.com\/huggingface-pytorch-tgi-inference:/);
    expect(doc.HostingArtifactUri).toMatch(/^s3:\/\/jumpstart-cache-prod-us-east-1\//);
    expect(doc.DefaultInferenceInstanceType).toBe('ml.g5.2xlarge');
    expect(doc.SupportedInferenceInstanceTypes).toContain('ml.p4d.24xlarge');
    expect(out.HubArn).toBe('arn:aws:sagemaker:us-east-1:aws:hub/SageMakerPublicHub');
  });

  it('answers an unknown hub model with ResourceNotFound', async () => {
    const err = await rejection(
      sm.send(new DescribeHubContentCommand({ HubName: 'SageMakerPublicHub', HubContentType: 'Model', HubContentName: 'nope' })),
    );
    expect(err.name).toBe('ResourceNotFound');
    expect(err.message).toBe('Hub content with name nope does not exist.');
  });
});

describe('SageMaker model registry', () => {
  it('lists only unversioned packages by default, as the service does', async () => {
    const out = await sm.send(new ListModelPackagesCommand({}));
    expect(out.ModelPackageSummaryList?.map((p) => p.ModelPackageName)).toEqual(['legacy-sentiment-classifier']);
  });

  it('lists the versions of a group with ARNs of the form group/version', async () => {
    const out = await sm.send(new ListModelPackagesCommand({ ModelPackageGroupName: 'llm-support-bot' }));
    expect(out.ModelPackageSummaryList?.map((p) => p.ModelPackageArn)).toEqual([
      `${ARN_PREFIX}:model-package/llm-support-bot/1`,
      `${ARN_PREFIX}:model-package/llm-support-bot/2`,
    ]);
    expect(out.ModelPackageSummaryList?.[0]?.CreationTime).toBeInstanceOf(Date);
  });

  it('filters every package by approval status', async () => {
    const out = await sm.send(new ListModelPackagesCommand({ ModelPackageType: 'Both', ModelApprovalStatus: 'Approved' }));
    expect(out.ModelPackageSummaryList?.map((p) => `${p.ModelPackageGroupName}/${p.ModelPackageVersion}`).sort()).toEqual([
      'fraud-detector-xgboost/3',
      'llm-support-bot/1',
    ]);
  });

  it('describes a package with its inference specification', async () => {
    const out = await sm.send(new DescribeModelPackageCommand({ ModelPackageName: `${ARN_PREFIX}:model-package/fraud-detector-xgboost/3` }));
    expect(out.InferenceSpecification?.Containers?.[0]).toMatchObject({
      Image: '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1',
      ModelDataUrl: 's3://model-ops-artifacts-123456789012/fraud-detector-xgboost/v3/model.tar.gz',
      Framework: 'XGBOOST',
      FrameworkVersion: '1.7-1',
    });
    expect(out.InferenceSpecification?.SupportedRealtimeInferenceInstanceTypes).toEqual(['ml.m5.xlarge', 'ml.t2.medium']);
    expect(out.InferenceSpecification?.SupportedContentTypes).toEqual(['text/csv']);
    expect(out.ModelApprovalStatus).toBe('Approved');
    expect(out.CreationTime).toBeInstanceOf(Date);
  });

  it('answers an unknown package with a ValidationException', async () => {
    const arn = `${ARN_PREFIX}:model-package/nope/1`;
    const err = await rejection(sm.send(new DescribeModelPackageCommand({ ModelPackageName: arn })));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(`ModelPackage ${arn} does not exist.`);
  });
});

describe('SageMaker models and endpoint configs', () => {
  it('creates, describes and deletes a model', async () => {
    const created = await sm.send(
      new CreateModelCommand({ ModelName: 'My-Model', PrimaryContainer: { Image: 'img', ModelDataUrl: 's3://b/m.tar.gz' } }),
    );
    expect(created.ModelArn).toBe(`${ARN_PREFIX}:model/my-model`);
    const described = await sm.send(new DescribeModelCommand({ ModelName: 'My-Model' }));
    expect(described.PrimaryContainer?.Image).toBe('img');
    expect(described.CreationTime).toBeInstanceOf(Date);
    await sm.send(new DeleteModelCommand({ ModelName: 'My-Model' }));
    const err = await rejection(sm.send(new DescribeModelCommand({ ModelName: 'My-Model' })));
    expect(err.message).toBe(`Could not find model "${ARN_PREFIX}:model/my-model".`);
  });

  it('refuses a model name that already exists', async () => {
    const input = { ModelName: 'dup', PrimaryContainer: { Image: 'img' } };
    await sm.send(new CreateModelCommand(input));
    const err = await rejection(sm.send(new CreateModelCommand(input)));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(`Cannot create already existing model "${ARN_PREFIX}:model/dup".`);
  });

  it('refuses a name that breaks the SageMaker name pattern', async () => {
    const err = await rejection(sm.send(new CreateModelCommand({ ModelName: 'bad_name', PrimaryContainer: { Image: 'img' } })));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(
      "1 validation error detected: Value 'bad_name' at 'modelName' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}",
    );
  });

  it('refuses an endpoint config whose model does not exist', async () => {
    const err = await rejection(
      sm.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: 'cfg',
          ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: 'ghost', InitialInstanceCount: 1, InstanceType: 'ml.m5.xlarge' }],
        }),
      ),
    );
    expect(err.message).toBe(`Could not find model "${ARN_PREFIX}:model/ghost".`);
  });

  it('describes and deletes an endpoint config, then reports it missing', async () => {
    await createModelAndConfig(sm, 'one', 'ml.g5.xlarge');
    const out = await sm.send(new DescribeEndpointConfigCommand({ EndpointConfigName: 'one-config' }));
    expect(out.EndpointConfigArn).toBe(`${ARN_PREFIX}:endpoint-config/one-config`);
    expect(out.ProductionVariants?.[0]).toMatchObject({ ModelName: 'one-model', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 });
    await sm.send(new DeleteEndpointConfigCommand({ EndpointConfigName: 'one-config' }));
    const err = await rejection(sm.send(new DescribeEndpointConfigCommand({ EndpointConfigName: 'one-config' })));
    expect(err.message).toBe(`Could not find endpoint configuration "${ARN_PREFIX}:endpoint-config/one-config".`);
  });

  it('refuses an endpoint config name that already exists', async () => {
    await createModelAndConfig(sm, 'two');
    const err = await rejection(
      sm.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: 'two-config',
          ProductionVariants: [{ VariantName: 'AllTraffic', ModelName: 'two-model', InitialInstanceCount: 1, InstanceType: 'ml.m5.xlarge' }],
        }),
      ),
    );
    expect(err.message).toBe(`Cannot create already existing endpoint configuration "${ARN_PREFIX}:endpoint-config/two-config".`);
  });
});

describe('SageMaker endpoint lifecycle', () => {
  it('goes Creating then InService, and only then reports its production variants', async () => {
    await createModelAndConfig(sm, 'life');
    const during = await frozen(async () => {
      const created = await sm.send(new CreateEndpointCommand({ EndpointName: 'Life', EndpointConfigName: 'life-config' }));
      expect(created.EndpointArn).toBe(`${ARN_PREFIX}:endpoint/life`);
      return describe_('Life');
    });
    expect(during.EndpointStatus).toBe('Creating');
    expect(during.ProductionVariants).toBeUndefined();

    const final = (
      await pollUntil(
        () => describe_('Life'),
        (o) => statusOf(o) === 'InService',
      )
    ).at(-1) as DescribeEndpointCommandOutput;
    expect(final).toMatchObject({ EndpointName: 'Life', EndpointConfigName: 'life-config', EndpointStatus: 'InService' });
    expect(final.CreationTime).toBeInstanceOf(Date);
    expect(final.LastModifiedTime!.getTime()).toBeGreaterThanOrEqual(final.CreationTime!.getTime() + LIFECYCLE_MS);
    expect(final.ProductionVariants).toEqual([
      expect.objectContaining({
        VariantName: 'AllTraffic',
        CurrentInstanceCount: 1,
        DesiredInstanceCount: 1,
        CurrentWeight: 1,
      }),
    ]);
  });

  it('satisfies the SDK waiter for InService', async () => {
    await createModelAndConfig(sm, 'wait');
    await sm.send(new CreateEndpointCommand({ EndpointName: 'wait', EndpointConfigName: 'wait-config' }));
    const result = await waitUntilEndpointInService({ client: sm, maxWaitTime: 10, minDelay: 1, maxDelay: 1 }, { EndpointName: 'wait' });
    expect(result.state).toBe('SUCCESS');
  });

  it('goes Updating then InService on the new config', async () => {
    await deployEndpoint(sm, 'upd');
    await createModelAndConfig(sm, 'upd-2', 'ml.g5.12xlarge');
    const during = await frozen(async () => {
      await sm.send(new UpdateEndpointCommand({ EndpointName: 'upd', EndpointConfigName: 'upd-2-config' }));
      return describe_('upd');
    });
    expect(during.EndpointStatus).toBe('Updating');
    expect(during.EndpointConfigName).toBe('upd-config');
    expect(during.PendingDeploymentSummary?.EndpointConfigName).toBe('upd-2-config');

    const final = (
      await pollUntil(
        () => describe_('upd'),
        (o) => statusOf(o) === 'InService',
      )
    ).at(-1);
    expect(final?.EndpointConfigName).toBe('upd-2-config');
    expect(final?.PendingDeploymentSummary).toBeUndefined();
  });

  it('goes Deleting then disappears, and the SDK waiter for deletion accepts that', async () => {
    await deployEndpoint(sm, 'del');
    const during = await frozen(async () => {
      await sm.send(new DeleteEndpointCommand({ EndpointName: 'del' }));
      return describe_('del');
    });
    expect(during.EndpointStatus).toBe('Deleting');
    const result = await waitUntilEndpointDeleted({ client: sm, maxWaitTime: 10, minDelay: 1, maxDelay: 1 }, { EndpointName: 'del' });
    expect(result.state).toBe('SUCCESS');
    const err = await rejection(describe_('del'));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(`Could not find endpoint "${ARN_PREFIX}:endpoint/del".`);
  });

  it('refuses to update an endpoint that is still Creating', async () => {
    await createModelAndConfig(sm, 'busy');
    const err = await frozen(async () => {
      await sm.send(new CreateEndpointCommand({ EndpointName: 'busy', EndpointConfigName: 'busy-config' }));
      return rejection(sm.send(new UpdateEndpointCommand({ EndpointName: 'busy', EndpointConfigName: 'busy-config' })));
    });
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(`Cannot update in-progress endpoint "${ARN_PREFIX}:endpoint/busy".`);
  });

  it('refuses to delete an endpoint that is still Creating', async () => {
    await createModelAndConfig(sm, 'busy2');
    const err = await frozen(async () => {
      await sm.send(new CreateEndpointCommand({ EndpointName: 'busy2', EndpointConfigName: 'busy2-config' }));
      return rejection(sm.send(new DeleteEndpointCommand({ EndpointName: 'busy2' })));
    });
    expect(err.message).toBe(`Cannot update in-progress endpoint "${ARN_PREFIX}:endpoint/busy2".`);
  });

  it('refuses an endpoint name that already exists', async () => {
    await deployEndpoint(sm, 'twice');
    const err = await rejection(sm.send(new CreateEndpointCommand({ EndpointName: 'twice', EndpointConfigName: 'twice-config' })));
    expect(err.message).toBe(`Cannot create already existing endpoint "${ARN_PREFIX}:endpoint/twice".`);
  });

  it('refuses an endpoint whose config does not exist', async () => {
    const err = await rejection(sm.send(new CreateEndpointCommand({ EndpointName: 'orphan', EndpointConfigName: 'no-config' })));
    expect(err.message).toBe(`Could not find endpoint configuration "${ARN_PREFIX}:endpoint-config/no-config".`);
  });

  it('answers DescribeEndpoint for an unknown endpoint with "Could not find endpoint"', async () => {
    const err = await rejection(describe_('ghost'));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(`Could not find endpoint "${ARN_PREFIX}:endpoint/ghost".`);
    expect(err.$metadata.httpStatusCode).toBe(400);
  });

  it('goes Failed with a FailureReason when a fail fault targets the endpoint on create', async () => {
    await createModelAndConfig(sm, 'doomed');
    await injectFault(emulator.url, { target: 'CreateEndpoint', model: 'doomed', fault: 'fail' });
    await sm.send(new CreateEndpointCommand({ EndpointName: 'doomed', EndpointConfigName: 'doomed-config' }));
    const seen = await pollUntil(
      () => describe_('doomed'),
      (o) => statusOf(o) !== 'Creating',
    );
    const final = seen.at(-1);
    expect(final?.EndpointStatus).toBe('Failed');
    expect(final?.FailureReason).toBe(
      'The primary container for production variant AllTraffic did not pass the ping health check. Please check CloudWatch logs for this endpoint.',
    );
    // A Failed endpoint can be deleted.
    await sm.send(new DeleteEndpointCommand({ EndpointName: 'doomed' }));
  });

  it('goes Failed when the fail fault names the model behind the endpoint', async () => {
    await createModelAndConfig(sm, 'bw');
    await injectFault(emulator.url, { target: 'CreateEndpoint', model: 'bw-model', fault: 'fail' });
    await sm.send(new CreateEndpointCommand({ EndpointName: 'bw', EndpointConfigName: 'bw-config' }));
    const seen = await pollUntil(
      () => describe_('bw'),
      (o) => statusOf(o) !== 'Creating',
    );
    expect(seen.at(-1)?.EndpointStatus).toBe('Failed');
  });

  it('rolls a failed update back to InService on the old config with a FailureReason', async () => {
    await deployEndpoint(sm, 'roll');
    await createModelAndConfig(sm, 'roll-2');
    await injectFault(emulator.url, { target: 'UpdateEndpoint', model: 'roll', fault: 'fail' });
    await sm.send(new UpdateEndpointCommand({ EndpointName: 'roll', EndpointConfigName: 'roll-2-config' }));
    const seen = await pollUntil(
      () => describe_('roll'),
      (o) => statusOf(o) === 'InService',
    );
    expect(seen.at(-1)?.EndpointConfigName).toBe('roll-config');
    expect(seen.at(-1)?.FailureReason).toMatch(/did not pass the ping health check/);
  });

  it('lists endpoints with their current status', async () => {
    await deployEndpoint(sm, 'listed');
    const out = await sm.send(new ListEndpointsCommand({ NameContains: 'listed' }));
    expect(out.Endpoints).toEqual([expect.objectContaining({ EndpointName: 'listed', EndpointStatus: 'InService' })]);
  });
});

describe('SageMaker tags, listing and changes made outside the service', () => {
  const tagsOf = async (resourceArn: string) =>
    Object.fromEntries(((await sm.send(new ListTagsCommand({ ResourceArn: resourceArn }))).Tags ?? []).map((t) => [t.Key, t.Value]));

  it('keeps the tags given at CreateEndpoint, adds or overwrites by key with AddTags, and forgets them with the endpoint', async () => {
    await createModelAndConfig(sm, 'tagged');
    const { EndpointArn } = await sm.send(
      new CreateEndpointCommand({ EndpointName: 'tagged', EndpointConfigName: 'tagged-config', Tags: [{ Key: 'team', Value: 'a' }] }),
    );
    expect(await tagsOf(EndpointArn as string)).toEqual({ team: 'a' });
    await sm.send(
      new AddTagsCommand({
        ResourceArn: EndpointArn,
        Tags: [
          { Key: 'team', Value: 'b' },
          { Key: 'owner', Value: 'ops' },
        ],
      }),
    );
    expect(await tagsOf(EndpointArn as string)).toEqual({ team: 'b', owner: 'ops' });
    await pollUntil(
      () => describe_('tagged'),
      (o) => statusOf(o) === 'InService',
    );
    await sm.send(new DeleteEndpointCommand({ EndpointName: 'tagged' }));
    await waitUntilEndpointDeleted({ client: sm, maxWaitTime: 10, minDelay: 1, maxDelay: 1 }, { EndpointName: 'tagged' });
    const err = await rejection(tagsOf(EndpointArn as string));
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe(`Could not find endpoint "${ARN_PREFIX}:endpoint/tagged".`);
  });

  it('refuses tag keys in the aws: namespace', async () => {
    await createModelAndConfig(sm, 'awstag');
    const err = await rejection(
      sm.send(new CreateEndpointCommand({ EndpointName: 'awstag', EndpointConfigName: 'awstag-config', Tags: [{ Key: 'aws:x', Value: '1' }] })),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe("System prefix 'aws:' reserved for AWS usage in tag key: aws:x");
  });

  it('pages ListEndpoints with MaxResults and NextToken, and refuses MaxResults over 100', async () => {
    for (const name of ['page-a', 'page-b', 'page-c']) await deployEndpoint(sm, name);
    const first = await sm.send(new ListEndpointsCommand({ MaxResults: 2 }));
    const second = await sm.send(new ListEndpointsCommand({ MaxResults: 2, NextToken: first.NextToken }));
    expect(first.Endpoints).toHaveLength(2);
    expect(second.Endpoints).toHaveLength(1);
    expect(second.NextToken).toBeUndefined();
    expect([...(first.Endpoints ?? []), ...(second.Endpoints ?? [])].map((e) => e.EndpointName).sort()).toEqual(['page-a', 'page-b', 'page-c']);
    const err = await rejection(sm.send(new ListEndpointsCommand({ MaxResults: 101 })));
    expect(err.name).toBe('ValidationException');
  });

  it('changes the instance count with UpdateEndpointWeightsAndCapacities: Updating, then InService with the new count', async () => {
    await deployEndpoint(sm, 'scaled');
    const before = await describe_('scaled');
    const during = await frozen(async () => {
      await sm.send(
        new UpdateEndpointWeightsAndCapacitiesCommand({
          EndpointName: 'scaled',
          DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 3 }],
        }),
      );
      return describe_('scaled');
    });
    expect(during.EndpointStatus).toBe('Updating');
    expect(during.ProductionVariants?.[0]).toMatchObject({ CurrentInstanceCount: 1, DesiredInstanceCount: 3 });
    const final = (
      await pollUntil(
        () => describe_('scaled'),
        (o) => statusOf(o) === 'InService',
      )
    ).at(-1);
    expect(final?.ProductionVariants?.[0]).toMatchObject({ CurrentInstanceCount: 3, DesiredInstanceCount: 3 });
    expect(final?.LastModifiedTime?.getTime()).toBeGreaterThan(before.LastModifiedTime?.getTime() ?? 0);
  });

  it('refuses a capacity change for a variant the endpoint does not have', async () => {
    await deployEndpoint(sm, 'novariant');
    const err = await rejection(
      sm.send(
        new UpdateEndpointWeightsAndCapacitiesCommand({
          EndpointName: 'novariant',
          DesiredWeightsAndCapacities: [{ VariantName: 'Blue', DesiredInstanceCount: 2 }],
        }),
      ),
    );
    expect(err.name).toBe('ValidationException');
    expect(err.message).toBe('The variant name(s) "Blue" is/are not present in the endpoint.');
  });

  it("creates an endpoint behind the service's back through the control API, tagged as asked, on the normal lifecycle", async () => {
    const res = await control(emulator.url, 'POST', '/endpoints', { name: 'stray', instanceType: 'ml.g5.2xlarge', tags: { owner: 'someone' } });
    expect(res.status).toBe(201);
    expect(res.body.EndpointArn).toBe(`${ARN_PREFIX}:endpoint/stray`);
    expect(await tagsOf(res.body.EndpointArn)).toEqual({ owner: 'someone' });
    const final = (
      await pollUntil(
        () => describe_('stray'),
        (o) => statusOf(o) === 'InService',
      )
    ).at(-1);
    expect(final?.ProductionVariants?.[0]).toMatchObject({ VariantName: 'AllTraffic', CurrentInstanceCount: 1 });
    const listed = await sm.send(new ListEndpointsCommand({ NameContains: 'stray' }));
    expect(listed.Endpoints?.map((e) => e.EndpointName)).toEqual(['stray']);
    expect((await control(emulator.url, 'POST', '/endpoints', { name: 'stray' })).status).toBe(400);
  });
});
