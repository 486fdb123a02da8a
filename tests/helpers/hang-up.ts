/**
 * A client that drops its connection without a word, as a closed browser tab or a killed script does:
 * it sends a POST (all of its body, or only the first half), waits for `until`, then destroys the socket.
 */
import { connect } from 'node:net';

export interface HangUp {
  path: string;
  body: string;
  headers?: Record<string, string>;
  /** Send only the first half of the body. */
  halfBody?: boolean;
  /** Milliseconds to wait after sending, or until the first bytes of the answer arrive, or until `when` settles. */
  until: number | 'first-bytes' | Promise<unknown>;
}

export async function hangUp(url: string, o: HangUp): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  const received = new Promise((resolve) => socket.once('data', resolve));
  const headers = { host: 'localhost', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(o.body)), ...o.headers };
  socket.write(
    `POST ${o.path} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
  );
  socket.write(o.halfBody ? o.body.slice(0, Math.floor(o.body.length / 2)) : o.body);
  await (o.until === 'first-bytes' ? received : typeof o.until === 'number' ? new Promise((r) => setTimeout(r, o.until as number)) : o.until);
  socket.destroy();
}
