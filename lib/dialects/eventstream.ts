/**
 * AWS's event-stream framing (application/vnd.amazon.eventstream), as Bedrock's ConverseStream sends
 * it and the SDKs' EventStreamCodec reads it: each message is a prelude (total and header lengths and
 * their CRC32), string headers, the payload and the message's CRC32, all big-endian.
 */
import { crc32 } from 'node:zlib';

/** Header value type 7: a string, its length in 2 bytes. */
const STRING_HEADER = 7;

function message(headerValues: Record<string, string>, payload: Buffer): Buffer {
  const headers = Buffer.concat(
    Object.entries(headerValues).map(([name, value]) => {
      const n = Buffer.from(name);
      const v = Buffer.from(value);
      const header = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
      header.writeUInt8(n.length, 0);
      n.copy(header, 1);
      header.writeUInt8(STRING_HEADER, 1 + n.length);
      header.writeUInt16BE(v.length, 2 + n.length);
      v.copy(header, 4 + n.length);
      return header;
    }),
  );
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(12 + headers.length + payload.length + 4, 0);
  prelude.writeUInt32BE(headers.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const body = Buffer.concat([prelude, headers, payload]);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, trailer]);
}

/** One event of the stream (the SDK yields it as `{[eventType]: payload}`). */
export const eventMessage = (eventType: string, payload: unknown): Buffer =>
  message({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify(payload)));

/** An exception of the stream: the SDK throws it, as the error `exceptionType` names, while iterating. */
export const exceptionMessage = (exceptionType: string, payload: unknown): Buffer =>
  message(
    { ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' },
    Buffer.from(JSON.stringify(payload)),
  );
