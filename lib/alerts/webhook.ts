import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { config } from '../../core/config';
import { BadRequest } from '../errors';

/**
 * Webhooks without SSRF: a channel's URL must be https and every address its host resolves to must be
 * public. The check runs when the channel is created and again on every connection (the socket's own
 * DNS lookup is replaced by one that refuses a private answer), so a name that later resolves to an
 * internal address (DNS rebinding) reaches nothing. Under the local stage (npm start, the tests)
 * http://127.0.0.1 is accepted too, and only that.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the instance metadata service (169.254.169.254) and ECS's (169.254.170.2)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local (the EC2 IPv6 metadata address fd00:ec2::254 is one)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64, which can reach IPv4 private space
  ['2001:db8::', 32],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

const LOOPBACK_HOST = '127.0.0.1';
const loopbackAllowed = () => config.alerts.loopbackWebhooks;

/** Whether an address may be called: public, or the local stage's loopback. */
function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const v4 = mapped ?? (isIP(address) === 4 ? address : undefined);
  if (v4) return !blocked.check(v4, 'ipv4');
  return isIP(address) === 6 && !blocked.check(address, 'ipv6');
}

const addressAllowed = (address: string, url: URL) =>
  isPublicAddress(address) || (loopbackAllowed() && url.protocol === 'http:' && url.hostname === LOOPBACK_HOST && address === LOOPBACK_HOST);

/** Checks a webhook URL as a channel is created: the form, then what its host resolves to now. */
export async function checkWebhookUrl(raw: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadRequest("Invalid field 'url': not a URL");
  }
  const loopback = loopbackAllowed() && url.protocol === 'http:' && url.hostname === LOOPBACK_HOST;
  if (url.protocol !== 'https:' && !loopback)
    throw new BadRequest(`Invalid field 'url': must be https${loopbackAllowed() ? ' (or http://127.0.0.1 under the local stage)' : ''}`);
  if (url.username || url.password) throw new BadRequest("Invalid field 'url': must not carry credentials");
  const addresses = await resolveAll(url.hostname).catch(() => {
    throw new BadRequest(`Invalid field 'url': ${url.hostname} does not resolve`);
  });
  const refused = addresses.find((a) => !addressAllowed(a.address, url));
  if (refused) throw new BadRequest(`Invalid field 'url': ${url.hostname} resolves to ${refused.address}, which is not a public address`);
  return url;
}

const resolveAll = (host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host.replace(/^\[|\]$/g, ''), { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** The socket's DNS lookup, refusing any answer that is not allowed for this URL. */
function guardedLookup(url: URL): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses;
      const refused = list.find((a) => !addressAllowed(a.address, url));
      if (refused || list.length === 0)
        return callback(new Error(`${hostname} resolves to ${refused?.address ?? 'nothing'}, not a public address`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`: the x-model-ops-signature header. */
const signature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * POSTs a signed body. Resolves when the receiver answered 2xx; otherwise rejects saying how it failed.
 * Redirects are not followed (a 3xx is a failure): a public URL must not bounce the call inward.
 */
export function postSigned(rawUrl: string, body: string, secret: string, eventId: string): Promise<void> {
  const url = new URL(rawUrl);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        lookup: guardedLookup(url),
        timeout: config.alerts.webhookTimeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'model-ops-alerts/1',
          'x-model-ops-event-id': eventId,
          'x-model-ops-signature': signature(secret, body),
        },
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`the receiver answered ${status}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${config.alerts.webhookTimeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}
