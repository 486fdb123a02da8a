/**
 * AWS's event stream framing (application/vnd.amazon.eventstream), as Bedrock's ConverseStream and
 * SageMaker's InvokeEndpointWithResponseStream send it and the SDK's EventStreamCodec reads it.
 */

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** One event message: its JSON payload (or raw bytes, for an event whose payload is a blob). */
export function eventFrame(eventType: string, payload: unknown): Buffer {
  const bytes = Buffer.isBuffer(payload);
  return frame(
    { ':event-type': eventType, ':content-type': bytes ? 'application/octet-stream' : 'application/json', ':message-type': 'event' },
    bytes ? payload : Buffer.from(JSON.stringify(payload)),
  );
}

/** One exception message: the SDK throws it as the error named by `:exception-type` while iterating. */
export function exceptionFrame(exceptionType: string, payload: unknown): Buffer {
  return frame(
    { ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' },
    Buffer.from(JSON.stringify(payload)),
  );
}

/** One event-stream message: prelude (lengths + CRC), string headers, payload, message CRC. */
function frame(headerValues: Record<string, string>, body: Buffer): Buffer {
  const headers = Buffer.concat(
    Object.entries(headerValues).map(([name, value]) => {
      const n = Buffer.from(name);
      const v = Buffer.from(value);
      const h = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
      h.writeUInt8(n.length, 0);
      n.copy(h, 1);
      h.writeUInt8(7, 1 + n.length); // 7 = string header value
      h.writeUInt16BE(v.length, 2 + n.length);
      v.copy(h, 4 + n.length);
      return h;
    }),
  );
  const total = 12 + headers.length + body.length + 4;
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headers.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude), 0);
  const message = Buffer.concat([prelude, preludeCrc, headers, body]);
  const messageCrc = Buffer.alloc(4);
  messageCrc.writeUInt32BE(crc32(message), 0);
  return Buffer.concat([message, messageCrc]);
}
