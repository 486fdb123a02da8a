import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { signingKey } from '../auth/secret';

/**
 * A webhook channel's signing secret at rest. It cannot be hashed (the deliverer needs it to sign each
 * event), so it is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from the service's
 * signing secret, which lives in SSM in deployed stages and never in the table: a copy of the table
 * alone reveals no channel's secret. Lists show only a masked hint.
 *
 *   v1.<iv base64url>.<tag base64url>.<ciphertext base64url>
 */
const INFO = 'model-ops alert channel secret v1';

let derived: Promise<Buffer> | undefined;
const sealingKey = () => (derived ??= signingKey().then((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), INFO, 32))));

export async function sealSecret(secret: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await sealingKey(), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), sealed].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export async function openSecret(sealed: string): Promise<string> {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !data) throw new Error('a sealed alert secret of an unknown form');
  const decipher = createDecipheriv('aes-256-gcm', await sealingKey(), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** A new secret for a webhook created without one: 256 random bits, shown once. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** What lists show of a secret: a fixed-width mask and its last four characters. */
export const secretHint = (secret: string) => `************${secret.slice(-4)}`;
