/**
 * AWS Price List Query API GetProducts (awsJson1.1, X-Amz-Target AWSPriceListService.GetProducts).
 * Like the real service, each PriceList entry is a whole product document serialised as a string.
 *
 * Bedrock products carry the model's display name in `model` (the same string GetFoundationModel
 * returns as modelName), so adapters look prices up by that name, not by model id; current Claude
 * models are under AmazonBedrockFoundationModels, by `servicename` (marketplaceProducts below).
 */
import { createHash } from 'node:crypto';
import { FOUNDATION_MODELS, REGION_NAMES, SAGEMAKER_INSTANCES, type FoundationModel } from './catalogue';
import { EmulatorError, compact, jsonReply, paginate, parseJson, type Ctx, type Reply, type ServiceDef } from './shared';

const CONTENT_TYPE = 'application/x-amz-json-1.1';
const ON_DEMAND = 'JRTCKXETXF';
const RATE = '6YS6EN2CT7';
const PUBLICATION = '2024-10-01T00:00:00Z';

interface Product {
  productFamily: string;
  attributes: Record<string, string>;
  unit: string;
  usd: number;
  description: string;
}

/** SKUs look like the real 16-character ones and stay stable between runs. */
function sku(seed: string): string {
  return createHash('sha1')
    .update(seed)
    .digest('base64')
    .replace(/[^A-Z0-9]/gi, '')
    .toUpperCase()
    .slice(0, 16);
}

function regionAttributes(region: string, service: string, serviceName: string) {
  return {
    regionCode: region,
    servicecode: service,
    servicename: serviceName,
    location: REGION_NAMES[region] ?? region,
    locationType: 'AWS Region',
  };
}

function usagePrefix(region: string): string {
  const [area = 'us', zone = 'east', num = '1'] = region.split('-');
  return `${area.toUpperCase()}${zone.charAt(0).toUpperCase()}${num}`;
}

function sagemakerProducts(region: string): Product[] {
  return SAGEMAKER_INSTANCES.map((i) => ({
    productFamily: 'ML Instance',
    unit: 'Hrs',
    usd: i.hourly,
    description: `$${i.hourly} per On Demand Hosting ${i.instanceType} instance hour in ${REGION_NAMES[region] ?? region}`,
    attributes: {
      ...regionAttributes(region, 'AmazonSageMaker', 'Amazon SageMaker'),
      usagetype: `${usagePrefix(region)}-Host:${i.instanceType}`,
      operation: 'RunInstance',
      component: 'Hosting',
      instanceName: i.instanceType,
      instanceType: i.instanceType,
      vCpu: String(i.vCpu),
      memory: `${i.memoryGiB} GiB`,
      gpu: String(i.gpu),
      currentGeneration: 'Yes',
    },
  }));
}

/**
 * The prompt cache's prices of a model that caches, per 1k tokens, as Bedrock's pricing page has them:
 * Claude reads at a tenth of the input price and writes at 1.25 times it (5 minutes) or twice it (1
 * hour); Amazon Nova reads at a quarter of it and writes at the input price, with no 1-hour TTL.
 */
function cachePrices(m: FoundationModel, input: number): { read: number; write: number; write1h?: number } | undefined {
  if (!m.caching) return undefined;
  const times = (k: number) => Math.round(input * k * 1e9) / 1e9;
  if (m.providerName === 'Anthropic') return { read: times(0.1), write: times(1.25), write1h: times(2) };
  return { read: times(0.25), write: input, ...(m.caching.ttls.includes('1h') ? { write1h: input } : {}) };
}

/**
 * Current Claude models are sold through the AWS Marketplace: their prices are under the service code
 * AmazonBedrockFoundationModels, named by `servicename` ("Claude Sonnet 4.5 (Amazon Bedrock Edition)"),
 * with no inferenceType. The kind of token is in the usagetype (`USE1-MP:USE1_InputTokenCount-Units`,
 * `..._CacheReadInputTokenCount`, `..._CacheWriteInputTokenCount`, `..._CacheWrite1hInputTokenCount`),
 * `_Global` for calls through the global profile (the base price) and without it for the Region and its
 * geographic profiles; prices are per million tokens. The rest (Nova, Titan, Llama, older Claude) are
 * under AmazonBedrock, by `model` and `inferenceType`, per 1K tokens, their cache rows named
 * "Prompt cache read input tokens" and "Prompt cache write input tokens".
 */
const isMarketplace = (m: FoundationModel) => m.providerName === 'Anthropic' && m.caching !== undefined;

function marketplaceProducts(region: string): Product[] {
  const prefix = usagePrefix(region);
  return FOUNDATION_MODELS.filter(isMarketplace).flatMap((m) => {
    const servicename = `${m.modelName} (Amazon Bedrock Edition)`;
    const scopes = [
      ['_Global', { input: m.inputPrice, output: m.outputPrice }],
      ['', m.geographicPrice ?? { input: m.inputPrice, output: m.outputPrice }],
    ] as const;
    return scopes.flatMap(([scope, price]) => {
      const cache = cachePrices(m, price.input);
      const rows: [string, number | undefined][] = [
        ['InputTokenCount', price.input],
        ['OutputTokenCount', price.output],
        ['CacheReadInputTokenCount', cache?.read],
        ['CacheWriteInputTokenCount', cache?.write],
        ['CacheWrite1hInputTokenCount', cache?.write1h],
      ];
      return rows
        .filter((row): row is [string, number] => row[1] !== undefined)
        .map(([component, per1k]) => ({
          productFamily: '',
          unit: 'Units',
          usd: Math.round(per1k * 1000 * 1e6) / 1e6,
          description: `${servicename} ${component}${scope} per million tokens`,
          attributes: {
            ...regionAttributes(region, 'AmazonBedrockFoundationModels', servicename),
            usagetype: `${prefix}-MP:${prefix}_${component}${scope}-Units`,
            operation: 'Usage',
          },
        }));
    });
  });
}

function bedrockProducts(region: string): Product[] {
  return FOUNDATION_MODELS.filter((m) => !isMarketplace(m)).flatMap((m) => {
    const cache = cachePrices(m, m.inputPrice);
    const name = m.modelName.replace(/[^A-Za-z0-9.]/g, '');
    return (
      [
        ['Input tokens', 'input-tokens', m.inputPrice],
        ['Output tokens', 'output-tokens', m.outputPrice],
        ['Prompt cache read input tokens', 'cache-read-input-token-count', cache?.read ?? 0],
        ['Prompt cache write input tokens', 'cache-write-input-token-count', cache?.write ?? 0],
      ] as const
    )
      .filter(([, , price]) => price > 0)
      .map(([inferenceType, suffix, price]) => ({
        productFamily: 'Amazon Bedrock',
        unit: '1K tokens',
        usd: price,
        description: `$${price} per 1K ${inferenceType.toLowerCase()} for ${m.modelName} in ${REGION_NAMES[region] ?? region}`,
        attributes: {
          ...regionAttributes(region, 'AmazonBedrock', 'Amazon Bedrock'),
          usagetype: `${usagePrefix(region)}-${name}-${suffix}`,
          operation: 'Usage',
          model: m.modelName,
          provider: m.providerName,
          inferenceType,
          feature: 'On-demand Inference',
        },
      }));
  });
}

function priceDocument(service: string, p: Product): string {
  const code = sku(`${service}:${p.attributes.usagetype}`);
  return JSON.stringify({
    product: { productFamily: p.productFamily, attributes: p.attributes, sku: code },
    serviceCode: service,
    terms: {
      OnDemand: {
        [`${code}.${ON_DEMAND}`]: {
          priceDimensions: {
            [`${code}.${ON_DEMAND}.${RATE}`]: {
              unit: p.unit,
              endRange: 'Inf',
              description: p.description,
              appliesTo: [],
              rateCode: `${code}.${ON_DEMAND}.${RATE}`,
              beginRange: '0',
              pricePerUnit: { USD: p.usd.toFixed(10) },
            },
          },
          sku: code,
          effectiveDate: PUBLICATION,
          offerTermCode: ON_DEMAND,
          termAttributes: {},
        },
      },
    },
    version: '20241001000000',
    publicationDate: PUBLICATION,
  });
}

interface Filter {
  Type?: string;
  Field?: string;
  Value?: string;
}

function matches(p: Product, f: Filter): boolean {
  const actual = f.Field === 'productFamily' ? p.productFamily : p.attributes[f.Field ?? ''];
  if (actual === undefined) return false;
  const value = (f.Value ?? '').toLowerCase();
  const have = actual.toLowerCase();
  switch (f.Type) {
    case 'TERM_MATCH':
    case 'EQUALS':
      return have === value;
    case 'CONTAINS':
      return have.includes(value);
    case 'ANY_OF':
      return value
        .split(',')
        .map((v) => v.trim())
        .includes(have);
    case 'NONE_OF':
      return !value
        .split(',')
        .map((v) => v.trim())
        .includes(have);
    default:
      throw new EmulatorError(400, 'InvalidParameterException', `Invalid filter type: ${f.Type}`);
  }
}

async function getProducts(ctx: Ctx): Promise<Reply> {
  const input = parseJson<{ ServiceCode?: string; Filters?: Filter[]; MaxResults?: number; NextToken?: string; FormatVersion?: string }>(ctx);
  if (!input.ServiceCode) {
    throw new EmulatorError(400, 'InvalidParameterException', 'Input parameters are invalid: ServiceCode is required.');
  }
  const catalogue: Record<string, () => Product[]> = {
    AmazonSageMaker: () => sagemakerProducts(ctx.opts.region),
    AmazonBedrock: () => bedrockProducts(ctx.opts.region),
    AmazonBedrockFoundationModels: () => marketplaceProducts(ctx.opts.region),
  };
  const products = catalogue[input.ServiceCode]?.() ?? [];
  const filtered = products.filter((p) => (input.Filters ?? []).every((f) => matches(p, f)));
  const { page, nextToken } = paginate(
    filtered,
    input.MaxResults,
    100,
    input.NextToken,
    () => new EmulatorError(400, 'InvalidNextTokenException', 'The pagination token is invalid. Try again without a pagination token.'),
  );
  return jsonReply(
    compact({
      FormatVersion: input.FormatVersion ?? 'aws_v1',
      PriceList: page.map((p) => priceDocument(input.ServiceCode as string, p)),
      NextToken: nextToken,
    }),
    CONTENT_TYPE,
  );
}

export const pricing: ServiceDef = {
  name: 'pricing',
  errorStyle: { kind: 'awsJson', contentType: CONTENT_TYPE, messageKey: 'Message' },
  internalError: () => new EmulatorError(500, 'InternalErrorException', 'An error on the server occurred during the processing of your request.'),
  throttlingError: () => new EmulatorError(429, 'ThrottlingException', 'Rate exceeded'),
  route(ctx) {
    const target = String(ctx.headers['x-amz-target'] ?? '');
    if (ctx.method !== 'POST' || target !== 'AWSPriceListService.GetProducts') return undefined;
    const input = parseJson<{ Filters?: Filter[] }>(ctx);
    const keys = (input.Filters ?? []).map((f) => f.Value).filter((v): v is string => typeof v === 'string');
    return { op: 'GetProducts', keys, run: () => getProducts(ctx) };
  },
};
