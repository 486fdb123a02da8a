import { deleteChannel } from '../../lib/alerts/channels';
import { auditedEndpoint } from '../../lib/http/endpoint';
import { ChannelPath } from '../../generated/checks/alerts';

/** DELETE /api/alerts/channels/{channelId} (admin). */
export const handler = auditedEndpoint(
  { auth: 'admin', path: ChannelPath, audit: { action: 'alert_channel.delete', target: ({ path }) => path.channelId } },
  async ({ path }) => deleteChannel(path.channelId),
);
