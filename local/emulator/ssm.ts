/**
 * SSM Parameter Store GetParameter (awsJson1.1, X-Amz-Target AmazonSSM.GetParameter): the signing
 * secret of deployed stages is read this way (lib/auth/secret.ts). Parameters are given to the
 * emulator as options (`parameters: { name: value }`); every one is a SecureString, returned
 * decrypted only when WithDecryption is true, as SSM does.
 */
import { EmulatorError, jsonReply, parseJson, type ServiceDef } from './shared';

const CONTENT_TYPE = 'application/x-amz-json-1.1';

export const ssm: ServiceDef = {
  name: 'ssm',
  errorStyle: { kind: 'awsJson', contentType: CONTENT_TYPE, messageKey: 'message' },
  internalError: () =>
    new EmulatorError(500, 'InternalServerError', 'An error occurred (InternalServerError) when calling the GetParameter operation.'),
  throttlingError: () => new EmulatorError(400, 'ThrottlingException', 'Rate exceeded'),
  route(ctx) {
    const target = String(ctx.headers['x-amz-target'] ?? '');
    if (ctx.method !== 'POST' || target !== 'AmazonSSM.GetParameter') return undefined;
    const input = parseJson<{ Name?: unknown; WithDecryption?: unknown }>(ctx);
    const name = typeof input.Name === 'string' ? input.Name : '';
    return {
      op: 'GetParameter',
      keys: [name],
      run: async () => {
        if (!name)
          throw new EmulatorError(
            400,
            'ValidationException',
            "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null",
          );
        const value = ctx.opts.parameters[name];
        if (value === undefined) throw new EmulatorError(400, 'ParameterNotFound', '');
        const decrypted = input.WithDecryption === true;
        return jsonReply(
          {
            Parameter: {
              Name: name,
              Type: 'SecureString',
              Value: decrypted ? value : Buffer.from(`kms:${value}`).toString('base64'),
              Version: 1,
              LastModifiedDate: 1_700_000_000,
              ARN: `arn:aws:ssm:${ctx.opts.region}:${ctx.opts.accountId}:parameter${name.startsWith('/') ? '' : '/'}${name}`,
              DataType: 'text',
            },
          },
          CONTENT_TYPE,
        );
      },
    };
  },
};
