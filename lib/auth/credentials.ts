import { config, type SecretSetting } from '../../core/config';

/**
 * The admin credential views (docs/openapi.yaml). Secrets are masked to at most their last four characters,
 * and the example calls never contain a secret: they read it from the caller's environment, so they
 * can be copied as they are and run against the configured region and endpoints.
 */
export function mask(setting: SecretSetting | string | undefined): string | null {
  if (!setting) return null;
  // Kept in SSM: nothing of it is in this function, and nothing of it is shown.
  if (typeof setting === 'object' && setting.kind === 'ssm') return '****************';
  const secret = typeof setting === 'string' ? setting : setting.value;
  // A fixed-width mask so that the length of the secret is not revealed either.
  return secret.length >= 16 ? `************${secret.slice(-4)}` : '****************';
}

const HOSTED_EXAMPLE_MODEL = 'meta/llama-3.1-8b-instruct';

export function cloudCredentials() {
  const { region, accessKeyId, secretAccessKey, endpoint } = config.cloud;
  const controlEndpoint = endpoint ?? `https://bedrock.${region}.amazonaws.com`;
  const configured = Boolean(accessKeyId && secretAccessKey);
  const endpointOption = endpoint ? `, endpoint: '${endpoint}'` : '';
  const pyEndpoint = endpoint ? `, endpoint_url='${endpoint}'` : '';
  return {
    region,
    accessKeyId: mask(accessKeyId),
    secretAccessKey: mask(secretAccessKey),
    configured,
    note: configured
      ? 'Access key configured (SERVICE_CLOUD_ACCESS_KEY_ID). The examples read your own keys from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.'
      : 'No access key is configured: the service uses the default AWS credential chain (its IAM role). The examples use your own credentials from the environment.',
    endpoint: controlEndpoint,
    runtimeEndpoint: endpoint ?? `https://bedrock-runtime.${region}.amazonaws.com`,
    authMethod: 'AWS Signature Version 4 (SigV4)',
    curlExample: [
      `curl --aws-sigv4 "aws:amz:${region}:bedrock" \\`,
      `  --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \\`,
      `  "${controlEndpoint}/foundation-models?byOutputModality=TEXT"`,
    ].join('\n'),
    nodeExample: [
      `import { BedrockClient, ListFoundationModelsCommand } from '@aws-sdk/client-bedrock';`,
      ``,
      `const client = new BedrockClient({ region: '${region}'${endpointOption} });`,
      `const { modelSummaries } = await client.send(new ListFoundationModelsCommand({ byOutputModality: 'TEXT' }));`,
      `console.log(modelSummaries?.map((m) => m.modelId));`,
    ].join('\n'),
    pythonExample: [
      `import boto3`,
      ``,
      `client = boto3.client('bedrock', region_name='${region}'${pyEndpoint})`,
      `models = client.list_foundation_models(byOutputModality='TEXT')['modelSummaries']`,
      `print([m['modelId'] for m in models])`,
    ].join('\n'),
  };
}

export function hostedCredentials() {
  const { apiKey, baseUrl } = config.hosted;
  const endpoint = `${baseUrl}/chat/completions`;
  const body = JSON.stringify({ model: HOSTED_EXAMPLE_MODEL, messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 64 });
  return {
    apiKey: mask(apiKey),
    configured: Boolean(apiKey),
    note: apiKey
      ? 'API key configured (HOSTED_API_KEY). The examples read it from the HOSTED_API_KEY environment variable.'
      : 'No hosted API key is configured: set HOSTED_API_KEY to use the hosted platform.',
    baseUrl,
    endpoint,
    curlExample: [
      `curl -X POST "${endpoint}" \\`,
      `  -H "Authorization: Bearer $HOSTED_API_KEY" \\`,
      `  -H "Content-Type: application/json" \\`,
      `  -d '${body}'`,
    ].join('\n'),
    nodeExample: [
      `const response = await fetch('${endpoint}', {`,
      `  method: 'POST',`,
      `  headers: { Authorization: \`Bearer \${process.env.HOSTED_API_KEY}\`, 'Content-Type': 'application/json' },`,
      `  body: JSON.stringify(${body}),`,
      `});`,
      `console.log((await response.json()).choices[0].message.content);`,
    ].join('\n'),
    pythonExample: [
      `import os, requests`,
      ``,
      `response = requests.post(`,
      `    '${endpoint}',`,
      `    headers={'Authorization': f"Bearer {os.environ['HOSTED_API_KEY']}"},`,
      `    json=${body.replaceAll('"', "'")},`,
      `    timeout=60,`,
      `)`,
      `print(response.json()['choices'][0]['message']['content'])`,
    ].join('\n'),
  };
}
