/**
 * The two ways the service sends alerts besides webhooks (lib/alerts/senders.ts), as the SDK's
 * service models define them:
 *
 *   SNS Publish     awsQuery: a form-encoded POST (Action=Publish, Version=2010-03-31, TopicArn,
 *                   Message, Subject, MessageAttributes.entry.N.*), answered in XML; errors are an XML
 *                   ErrorResponse (InvalidParameter 400, NotFound 404 "Topic does not exist").
 *   SES v2 SendEmail restJson: POST /v2/email/outbound-emails with FromEmailAddress, Destination and
 *                   Content.Simple, answered { MessageId }; a bad request is BadRequestException.
 *
 * A topic exists when its ARN is in the emulator's region and account (any name), as if every topic
 * the service is configured with had been created. What arrives is kept in the state (published,
 * emails) for tests and `GET /_emulator/state`.
 */
import { randomUUID } from 'node:crypto';
import { EmulatorError, jsonReply, parseJson, type Reply, type ServiceDef } from './shared';

const SNS_NAMESPACE = 'http://sns.amazonaws.com/doc/2010-03-31/';
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:([a-z0-9-]+):(\d{12}):[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

const xml = (body: string): Reply => ({ status: 200, headers: { 'content-type': 'text/xml' }, body: Buffer.from(body) });
const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** The MessageAttributes.entry.N.{Name,Value.DataType,Value.StringValue} members of a query request. */
function messageAttributes(form: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (let n = 1; form.has(`MessageAttributes.entry.${n}.Name`); n++) {
    out[form.get(`MessageAttributes.entry.${n}.Name`) as string] = form.get(`MessageAttributes.entry.${n}.Value.StringValue`) ?? '';
  }
  return out;
}

export const sns: ServiceDef = {
  name: 'sns',
  errorStyle: { kind: 'awsQueryXml', namespace: SNS_NAMESPACE },
  internalError: () => new EmulatorError(500, 'InternalError', 'Internal Error', { queryFault: 'Receiver' }),
  throttlingError: () => new EmulatorError(400, 'Throttled', 'Rate exceeded'),
  route(ctx) {
    if (ctx.method !== 'POST') return undefined;
    const form = new URLSearchParams(ctx.body.toString('utf8'));
    if (form.get('Action') !== 'Publish') return undefined;
    const topicArn = form.get('TopicArn') ?? '';
    return {
      op: 'Publish',
      keys: [topicArn],
      run: async () => {
        const message = form.get('Message') ?? '';
        if (!message) throw new EmulatorError(400, 'InvalidParameter', 'Invalid parameter: Empty message');
        const arn = TOPIC_ARN.exec(topicArn);
        if (!arn) throw new EmulatorError(400, 'InvalidParameter', 'Invalid parameter: TopicArn');
        if (arn[1] !== ctx.opts.region || arn[2] !== ctx.opts.accountId) throw new EmulatorError(404, 'NotFound', 'Topic does not exist');
        const messageId = randomUUID();
        const subject = form.get('Subject') ?? undefined;
        ctx.state.published.push({ messageId, topicArn, subject, message, attributes: messageAttributes(form) });
        return xml(
          `<PublishResponse xmlns="${SNS_NAMESPACE}"><PublishResult><MessageId>${messageId}</MessageId></PublishResult>` +
            `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
        );
      },
    };
  },
};

/** An awsQuery error as SNS sends it. */
export function queryErrorXml(namespace: string, err: EmulatorError): string {
  const fault = err.details.queryFault ?? (err.status >= 500 ? 'Receiver' : 'Sender');
  return (
    `<ErrorResponse xmlns="${namespace}"><Error><Type>${fault}</Type><Code>${escapeXml(err.code)}</Code>` +
    `<Message>${escapeXml(err.message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`
  );
}

interface SendEmailInput {
  FromEmailAddress?: unknown;
  Destination?: { ToAddresses?: unknown };
  Content?: { Simple?: { Subject?: { Data?: unknown }; Body?: { Text?: { Data?: unknown }; Html?: { Data?: unknown } } } };
}

export const ses: ServiceDef = {
  name: 'ses',
  errorStyle: { kind: 'restJson', messageKey: 'message' },
  internalError: () => new EmulatorError(500, 'InternalServiceErrorException', 'Internal service error'),
  throttlingError: () => new EmulatorError(429, 'TooManyRequestsException', 'Too many requests'),
  route(ctx) {
    if (ctx.method !== 'POST' || ctx.path !== '/v2/email/outbound-emails') return undefined;
    return {
      op: 'SendEmail',
      keys: [],
      run: async () => {
        const input = parseJson<SendEmailInput>(ctx);
        const to = input.Destination?.ToAddresses;
        const simple = input.Content?.Simple;
        if (!simple) throw new EmulatorError(400, 'BadRequestException', 'Content is required');
        if (typeof input.FromEmailAddress !== 'string' || !input.FromEmailAddress.includes('@'))
          throw new EmulatorError(400, 'BadRequestException', 'FromEmailAddress is required');
        if (!Array.isArray(to) || to.length === 0 || !to.every((a) => typeof a === 'string' && a.includes('@')))
          throw new EmulatorError(400, 'BadRequestException', 'Destination.ToAddresses must name at least one address');
        const subject = simple.Subject?.Data;
        const text = simple.Body?.Text?.Data ?? simple.Body?.Html?.Data;
        if (typeof subject !== 'string' || typeof text !== 'string')
          throw new EmulatorError(400, 'BadRequestException', 'Content.Simple needs a Subject and a Body');
        const messageId = `${Date.now().toString(16)}-${randomUUID()}-000000`;
        ctx.state.emails.push({ messageId, from: input.FromEmailAddress, to: to as string[], subject, text });
        return jsonReply({ MessageId: messageId });
      },
    };
  },
};
