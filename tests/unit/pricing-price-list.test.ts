import { instancePrices, parseProduct, tokenPricesByModelName } from '../../lib/pricing/price-list';

/** Documents shaped like the AWS Price List API's (and the emulator's) GetProducts entries. */
function doc(productFamily: string, attributes: Record<string, string>, unit: string, usd: string) {
  return JSON.stringify({
    product: { productFamily, attributes, sku: 'SKU1' },
    serviceCode: 'X',
    terms: { OnDemand: { 'SKU1.T': { priceDimensions: { 'SKU1.T.R': { unit, pricePerUnit: { USD: usd } } } } } },
  });
}

test('a product document gives its first on-demand USD price and unit', () => {
  expect(parseProduct(doc('ML Instance', { instanceName: 'ml.g5.xlarge' }, 'Hrs', '1.4080000000'))).toEqual({
    productFamily: 'ML Instance',
    attributes: { instanceName: 'ml.g5.xlarge' },
    usd: 1.408,
    unit: 'Hrs',
  });
});

test('a document without an on-demand price, or not JSON, is skipped', () => {
  expect(parseProduct(JSON.stringify({ product: { attributes: {} }, terms: {} }))).toBeUndefined();
  expect(parseProduct('{not json')).toBeUndefined();
});

test('instance prices keep SageMaker hosting instances only', () => {
  const products = [
    doc('ML Instance', { instanceName: 'ml.m5.xlarge', component: 'Hosting' }, 'Hrs', '0.23'),
    doc('ML Instance', { instanceName: 'ml.m5.xlarge', component: 'Training' }, 'Hrs', '0.9'),
    doc('ML Instance', { instanceType: 'ml.g5.xlarge', usagetype: 'USE1-Host:ml.g5.xlarge' }, 'Hrs', '1.408'),
    doc('Storage', { volumeType: 'gp2' }, 'GB-Mo', '0.14'),
  ].map((d) => parseProduct(d)!);
  expect([...instancePrices(products)]).toEqual([
    ['ml.m5.xlarge', 0.23],
    ['ml.g5.xlarge', 1.408],
  ]);
});

test('token prices are per 1k tokens by model display name; per-1M prices are converted', () => {
  const products = [
    doc('Amazon Bedrock', { model: 'Claude 3 Haiku', inferenceType: 'Input tokens' }, '1K tokens', '0.00025'),
    doc('Amazon Bedrock', { model: 'Claude 3 Haiku', inferenceType: 'Output tokens' }, '1K tokens', '0.00125'),
    doc('Amazon Bedrock', { model: 'Nova Lite', inferenceType: 'Input tokens' }, '1M tokens', '0.06'),
  ].map((d) => parseProduct(d)!);
  const prices = tokenPricesByModelName(products);
  expect(prices.get('Claude 3 Haiku')).toEqual({ input_per_1k: 0.00025, output_per_1k: 0.00125 });
  expect(prices.get('Nova Lite')).toEqual({ input_per_1k: 0.00006 });
});
