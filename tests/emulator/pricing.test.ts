import { GetProductsCommand, PricingClient, type GetProductsCommandInput } from '@aws-sdk/client-pricing';
import { startEmulator, type RunningEmulator } from '../../local/emulator/server';
import { clientConfig, control, injectFault, rejection } from './helpers';

let emulator: RunningEmulator;
let pricing: PricingClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  pricing = new PricingClient(clientConfig(emulator.url));
});

afterAll(async () => {
  pricing.destroy();
  await emulator.close();
});

afterEach(async () => {
  await control(emulator.url, 'DELETE', '/faults');
});

/** PriceList entries are JSON documents serialised as strings, as the real service sends them. */
async function products(input: GetProductsCommandInput) {
  const out = await pricing.send(new GetProductsCommand(input));
  const docs: any[] = (out.PriceList ?? []).map((p: unknown) => JSON.parse(String(p)));
  return { out, docs };
}

function onDemandUsd(doc: any): number {
  const term = Object.values(doc.terms.OnDemand)[0] as any;
  const dimension = Object.values(term.priceDimensions)[0] as any;
  return Number(dimension.pricePerUnit.USD);
}

describe('Price List GetProducts', () => {
  it('prices SageMaker hosting for one instance type through a TERM_MATCH filter', async () => {
    const { out, docs } = await products({
      ServiceCode: 'AmazonSageMaker',
      Filters: [
        { Type: 'TERM_MATCH', Field: 'instanceType', Value: 'ml.g5.xlarge' },
        { Type: 'TERM_MATCH', Field: 'regionCode', Value: 'us-east-1' },
      ],
    });
    expect(out.FormatVersion).toBe('aws_v1');
    expect(docs).toHaveLength(1);
    expect(docs[0].serviceCode).toBe('AmazonSageMaker');
    expect(docs[0].product.attributes).toMatchObject({ instanceType: 'ml.g5.xlarge', component: 'Hosting', location: 'US East (N. Virginia)' });
    expect(onDemandUsd(docs[0])).toBe(1.408);
    const dimension = Object.values((Object.values(docs[0].terms.OnDemand)[0] as any).priceDimensions)[0] as any;
    expect(dimension.unit).toBe('Hrs');
  });

  it('returns the shipped hourly prices for every hosting instance type', async () => {
    const { docs } = await products({ ServiceCode: 'AmazonSageMaker' });
    const prices = Object.fromEntries(docs.map((d) => [d.product.attributes.instanceType, onDemandUsd(d)]));
    expect(prices).toMatchObject({
      'ml.g5.xlarge': 1.408,
      'ml.g5.2xlarge': 1.515,
      'ml.g5.12xlarge': 7.09,
      'ml.p4d.24xlarge': 37.688,
      'ml.m5.xlarge': 0.23,
      'ml.t2.medium': 0.056,
    });
  });

  it('pages with MaxResults and NextToken until every product is seen once', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const { out, docs } = await products({ ServiceCode: 'AmazonSageMaker', MaxResults: 3, NextToken: token });
      expect(docs.length).toBeLessThanOrEqual(3);
      seen.push(...docs.map((d) => d.product.attributes.instanceType));
      token = out.NextToken;
    } while (token);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(8);
  });

  it('prices Bedrock input and output tokens per 1K by model display name', async () => {
    const { docs } = await products({
      ServiceCode: 'AmazonBedrock',
      Filters: [{ Type: 'TERM_MATCH', Field: 'model', Value: 'Claude 3 Haiku' }],
    });
    const byType = Object.fromEntries(docs.map((d) => [d.product.attributes.inferenceType, onDemandUsd(d)]));
    expect(byType).toEqual({ 'Input tokens': 0.00025, 'Output tokens': 0.00125 });
    expect(docs[0].product.attributes.provider).toBe('Anthropic');
  });

  it('ships the real-like token prices of every managed chat model', async () => {
    const { docs } = await products({
      ServiceCode: 'AmazonBedrock',
      Filters: [{ Type: 'TERM_MATCH', Field: 'inferenceType', Value: 'Output tokens' }],
    });
    const prices = Object.fromEntries(docs.map((d) => [d.product.attributes.model, onDemandUsd(d)]));
    // Current Claude models are sold through the Marketplace: their prices are under AmazonBedrockFoundationModels.
    expect(prices).toEqual({
      'Claude 3 Haiku': 0.00125,
      'Titan Text G1 - Express': 0.0006,
      'Nova Lite': 0.00024,
      'Llama 4 Maverick 17B Instruct': 0.00097,
      'gpt-oss-120b': 0.0006,
      'Llama 3 8B Instruct': 0.0006,
      'Mistral 7B Instruct': 0.0002,
      'Command R': 0.0015,
    });
  });

  it('prices the prompt cache of a Bedrock model by inferenceType: Nova reads at a quarter of the input price, writes at it', async () => {
    const { docs } = await products({ ServiceCode: 'AmazonBedrock', Filters: [{ Type: 'TERM_MATCH', Field: 'model', Value: 'Nova Lite' }] });
    const byType = Object.fromEntries(docs.map((d) => [d.product.attributes.inferenceType, onDemandUsd(d)]));
    expect(byType).toEqual({
      'Input tokens': 0.00006,
      'Output tokens': 0.00024,
      'Prompt cache read input tokens': 0.000015,
      'Prompt cache write input tokens': 0.00006,
    });
    expect(docs.map((d) => d.product.attributes.usagetype)).toContain('USE1-NovaLite-cache-read-input-token-count');
  });

  it('prices current Claude under AmazonBedrockFoundationModels by servicename and usagetype, per million tokens, global and regional', async () => {
    const { docs } = await products({
      ServiceCode: 'AmazonBedrockFoundationModels',
      Filters: [{ Type: 'TERM_MATCH', Field: 'servicename', Value: 'Claude Sonnet 4.5 (Amazon Bedrock Edition)' }],
    });
    const byUsage = Object.fromEntries(docs.map((d) => [d.product.attributes.usagetype, onDemandUsd(d)]));
    expect(byUsage).toEqual({
      'USE1-MP:USE1_InputTokenCount_Global-Units': 3,
      'USE1-MP:USE1_OutputTokenCount_Global-Units': 15,
      'USE1-MP:USE1_CacheReadInputTokenCount_Global-Units': 0.3,
      'USE1-MP:USE1_CacheWriteInputTokenCount_Global-Units': 3.75,
      'USE1-MP:USE1_CacheWrite1hInputTokenCount_Global-Units': 6,
      'USE1-MP:USE1_InputTokenCount-Units': 3.3,
      'USE1-MP:USE1_OutputTokenCount-Units': 16.5,
      'USE1-MP:USE1_CacheReadInputTokenCount-Units': 0.33,
      'USE1-MP:USE1_CacheWriteInputTokenCount-Units': 4.125,
      'USE1-MP:USE1_CacheWrite1hInputTokenCount-Units': 6.6,
    });
  });

  it('returns an empty list for a service it has no prices for', async () => {
    const { docs } = await products({ ServiceCode: 'AmazonEC2' });
    expect(docs).toEqual([]);
  });

  it('refuses a NextToken it did not issue', async () => {
    const err = await rejection(pricing.send(new GetProductsCommand({ ServiceCode: 'AmazonSageMaker', NextToken: 'garbage' })));
    expect(err.name).toBe('InvalidNextTokenException');
  });

  it('answers a 500 fault with InternalErrorException', async () => {
    await injectFault(emulator.url, { target: 'GetProducts', fault: '500', count: 1 });
    const err = await rejection(pricing.send(new GetProductsCommand({ ServiceCode: 'AmazonSageMaker' })));
    expect(err.name).toBe('InternalErrorException');
    expect(err.$fault).toBe('server');
  });

  it('answers a 429 fault with ThrottlingException', async () => {
    await injectFault(emulator.url, { target: 'GetProducts', fault: '429', count: 1 });
    const err = await rejection(pricing.send(new GetProductsCommand({ ServiceCode: 'AmazonSageMaker' })));
    expect(err.name).toBe('ThrottlingException');
  });
});
