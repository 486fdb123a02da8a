import { createChannel } from '../../lib/alerts/channels';
import { auditedEndpoint, reply } from '../../lib/http/endpoint';
import { CreateChannelBody } from '../../generated/checks/alerts';

/** POST /api/alerts/channels (admin): a webhook, SNS topic or e-mail address that alerts go to. */
export const handler = auditedEndpoint(
  { auth: 'admin', body: CreateChannelBody, audit: { action: 'alert_channel.create' } },
  async ({ body, user }) => reply(201, await createChannel(user, body)),
);
