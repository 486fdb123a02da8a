import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import {
  getChannel,
  insertChannel,
  listChannels,
  listDeliveries,
  putAlertEvent,
  removeChannel,
  type AlertChannel,
  type AlertEvent,
} from '../../tables/alerts';
import type { User } from '../../tables/users';
import { BadRequest, NotFound } from '../errors';
import { newSecret, sealSecret, secretHint } from './secrets';
import { checkWebhookUrl } from './webhook';

/**
 * Alert channels (admins): where budget, endpoint and orphan events go. A webhook's secret signs every
 * delivery; it is sealed at rest (lib/alerts/secrets.ts), shown once when the service generated it,
 * and afterwards only as a masked hint.
 */
export interface NewChannel {
  name: string;
  type: 'webhook' | 'sns' | 'email';
  url?: string;
  secret?: string;
  format?: 'json' | 'slack';
  topic_arn?: string;
  address?: string;
}

const ONLY: Record<NewChannel['type'], (keyof NewChannel)[]> = {
  webhook: ['url', 'secret', 'format'],
  sns: ['topic_arn'],
  email: ['address'],
};
const OPTIONAL_FIELDS = ['url', 'secret', 'format', 'topic_arn', 'address'] as const;

/** A channel as responses show it: never its secret. */
function channelView(c: AlertChannel) {
  const { secret_sealed: _sealed, ...view } = c;
  return view;
}

function checkFields(input: NewChannel): void {
  for (const field of OPTIONAL_FIELDS) {
    if (input[field] !== undefined && !ONLY[input.type].includes(field))
      throw new BadRequest(`Invalid field '${field}': not used by a ${input.type} channel`);
  }
  const required = { webhook: 'url', sns: 'topic_arn', email: 'address' } as const;
  if (input[required[input.type]] === undefined) throw new BadRequest(`Missing required field '${required[input.type]}'`);
}

export async function createChannel(admin: User, input: NewChannel, now = new Date()) {
  checkFields(input);
  let generated: string | undefined;
  const channel: AlertChannel = {
    id: randomUUID(),
    name: input.name,
    type: input.type,
    created_at: now.toISOString(),
    created_by: admin.id,
    url: null,
    format: null,
    topic_arn: null,
    address: null,
    secret_sealed: null,
    secret_hint: null,
  };
  if (input.type === 'webhook') {
    channel.url = (await checkWebhookUrl(input.url as string)).toString();
    channel.format = input.format ?? 'json';
    const secret = input.secret ?? (generated = newSecret());
    channel.secret_sealed = await sealSecret(secret);
    channel.secret_hint = secretHint(secret);
  } else if (input.type === 'sns') {
    const prefix = config.alerts.topicPrefix;
    // The deliverer may publish only to topics so named (its grant, serverless.yml): any other topic
    // would be refused by IAM at the first alert, so it is refused now.
    if (prefix && !(input.topic_arn as string).split(':')[5]?.startsWith(prefix))
      throw new BadRequest(`Invalid field 'topic_arn': this service publishes only to topics whose name starts with ${prefix}`);
    channel.topic_arn = input.topic_arn as string;
  } else {
    if (!config.alerts.emailFrom)
      throw new BadRequest('E-mail channels need the service to have a sender: set ALERTS_EMAIL_FROM (a verified SES identity)');
    channel.address = input.address as string;
  }
  await insertChannel(channel);
  return { channel: { ...channelView(channel), ...(generated ? { secret: generated } : {}) } };
}

export async function listAlertChannels() {
  return { channels: (await listChannels()).map(channelView) };
}

export async function deleteChannel(id: string) {
  if (!(await removeChannel(id))) throw new NotFound('Alert channel not found');
  return {};
}

/**
 * Sends a test event to one channel through the same path as every event (the table's stream, the
 * deliverer): answered 202 with the event's id; GET /api/alerts/deliveries shows how it went.
 */
export async function testChannel(id: string, now = new Date()) {
  const channel = await getChannel(id);
  if (!channel) throw new NotFound('Alert channel not found');
  const event: AlertEvent = { id: randomUUID(), event: 'alert.test', channel_id: channel.id, channel_name: channel.name, at: now.toISOString() };
  await putAlertEvent(event);
  return { event };
}

export async function listAlertDeliveries(limit: number, cursor?: string) {
  const page = await listDeliveries(limit, cursor);
  return { deliveries: page.deliveries, nextCursor: page.nextCursor };
}
