import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { config } from '../../core/config';
import type { AlertChannel, AlertEvent } from '../../tables/alerts';
import { openSecret } from './secrets';
import { postSigned } from './webhook';

/**
 * Sends one event to one channel: a signed webhook POST, an SNS Publish to the channel's topic, or an
 * SES e-mail to its address. Resolves when the channel took it; rejects with what went wrong. The
 * clients are built once per cold start, with the emulator's endpoint under npm start and in tests.
 */
const { region, endpoint } = config.cloud;
/**
 * The function's own role in AWS, which the template grants Publish on the alerts topics and SendEmail
 * on the identity; not the platform access key (SERVICE_CLOUD_ACCESS_KEY_ID), which is for the model
 * platforms and may belong to another account. Under npm start and in tests the emulator takes any key.
 */
const clientConfig = {
  region,
  endpoint,
  maxAttempts: 3,
  ...(endpoint ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
};
const sns = new SNSClient(clientConfig);
const ses = new SESv2Client(clientConfig);

const usd = (n: unknown) => `$${Number(n).toFixed(2)}`;

/** One line a person reads: the subject of an e-mail, the text of a Slack message. */
function summary(event: AlertEvent): string {
  const scope = event.scope as { kind: string; name: string } | undefined;
  switch (event.event) {
    case 'budget.threshold':
      return `Budget alert: ${scope?.kind} ${scope?.name} has spent ${usd(event.spent_usd)} of ${usd(event.budget_usd)} in ${String(event.period)} (${Math.round(Number(event.threshold) * 100)} % threshold)`;
    case 'endpoint.stopped':
      return `Endpoint stopped: ${String(event.endpoint_name ?? event.resource_id)} (${String(event.reason)})`;
    case 'orphan.found':
      return `Orphan endpoint found: ${String(event.endpoint_name)}`;
    case 'alert.test':
      return `Test alert from model-ops: channel ${String(event.channel_name)} works`;
  }
}

export async function sendToChannel(channel: AlertChannel, event: AlertEvent): Promise<void> {
  const json = JSON.stringify(event);
  switch (channel.type) {
    case 'webhook': {
      const body = channel.format === 'slack' ? JSON.stringify({ text: summary(event), event }) : json;
      await postSigned(channel.url as string, body, await openSecret(channel.secret_sealed as string), event.id);
      return;
    }
    case 'sns':
      await sns.send(
        new PublishCommand({
          TopicArn: channel.topic_arn as string,
          // SNS subjects are at most 100 characters (e-mail subscriptions show them).
          Subject: summary(event).slice(0, 100),
          Message: json,
          MessageAttributes: { event: { DataType: 'String', StringValue: event.event }, id: { DataType: 'String', StringValue: event.id } },
        }),
      );
      return;
    case 'email':
      if (!config.alerts.emailFrom) throw new Error('ALERTS_EMAIL_FROM is not set: e-mail alerts cannot be sent');
      await ses.send(
        new SendEmailCommand({
          FromEmailAddress: config.alerts.emailFrom,
          Destination: { ToAddresses: [channel.address as string] },
          Content: {
            Simple: {
              Subject: { Data: summary(event) },
              Body: { Text: { Data: `${summary(event)}\n\n${JSON.stringify(event, null, 2)}\n` } },
            },
          },
        }),
      );
  }
}
