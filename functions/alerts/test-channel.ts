import { testChannel } from '../../lib/alerts/channels';
import { auditedEndpoint, reply } from '../../lib/http/endpoint';
import { ChannelPath } from '../../generated/checks/alerts';

/** POST /api/alerts/channels/{channelId}/test (admin): a test event, delivered like every event (202). */
export const handler = auditedEndpoint(
  { auth: 'admin', path: ChannelPath, audit: { action: 'alert_channel.test', target: ({ path }) => path.channelId } },
  async ({ path }) => reply(202, await testChannel(path.channelId)),
);
