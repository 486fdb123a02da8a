/**
 * AWS Price List Query API GetProducts (awsJson1.1, X-Amz-Target AWSPriceListService.GetProducts).
 * Like the real service, each PriceList entry is a whole product document serialised as a string.
 *
 * Bedrock products carry the model's display name in `model` (the same string GetFoundationModel
 * returns as modelName), so adapters look prices up by that name, not by model id.
 */
import { createHash } from 'node:crypto';
import { FOUNDATION_MODELS, REGION_NAMES, SAGEMAKER_INSTANCES } from './catalogue';
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

function bedrockProducts(region: string): Product[] {
  return FOUNDATION_MODELS.flatMap((m) =>
    (
      [
        ['Input tokens', 'input-tokens', m.inputPrice],
        ['Output tokens', 'output-tokens', m.outputPrice],
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
          usagetype: `${usagePrefix(region)}-${m.modelName.replace(/[^A-Za-z0-9.]/g, '')}-${suffix}`,
          operation: 'Usage',
          model: m.modelName,
          provider: m.providerName,
          inferenceType,
          feature: 'On-demand Inference',
        },
      })),
  );
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
