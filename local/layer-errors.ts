/**
 * Errors that the local HTTP layer answers by itself, before or instead of a function: hapi inside
 * serverless-offline (malformed percent-encoding, odd Content-Type lists, unknown methods: Boom's
 * `{"statusCode":400,"error":"Bad Request","message":...}`), serverless-offline's own failures
 * (a function that crashed or could not be loaded, with a stack in the body), and Node's HTTP parser
 * in front of both (oversize headers, a malformed request line). The local front door rewrites them
 * into the service's error shapes, so that no client of the local stack sees another shape than the
 * document's: `{success: false, error, details}` on /api, OpenAI's `{error: {...}}` on /v1.
 *
 * An answer already in one of those shapes came from the service's own error responder and passes
 * untouched.
 */

const TEXT: Record<number, string> = {
  400: 'Bad request',
  404: 'Route not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  411: 'Length required',
  413: 'Request body too large',
  414: 'Request URI too long',
  415: 'Content-Type must be application/json',
  431: 'Request headers too large',
  502: 'The API is not reachable',
  504: 'The API did not answer in time',
};

/** The error text for a status the local layer answered with. */
function layerErrorText(status: number): string {
  return TEXT[status] ?? (status >= 500 ? 'Internal server error' : 'Bad request');
}

/** True when `body` is already in the shape of the service's error responder for `path`. */
export function inServiceShape(path: string, body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  // The /bedrock door answers as Bedrock does: `{"message": ...}` (its name in x-amzn-errortype).
  if (isBedrockDoor(path)) return typeof b.message === 'string';
  if (isGateway(path)) {
    const e = b.error as Record<string, unknown> | undefined;
    return !!e && typeof e === 'object' && typeof e.message === 'string' && typeof e.type === 'string';
  }
  return b.success === false && (typeof b.error === 'string' || typeof b.message === 'string');
}

function isGateway(path: string): boolean {
  return path === '/v1' || path.startsWith('/v1/');
}

function isBedrockDoor(path: string): boolean {
  return path === '/bedrock' || path.startsWith('/bedrock/');
}

/**
 * The body a client gets for an error the layer answered. Client errors keep the layer's own reason
 * in `details` (hapi's messages name the fault, never an internal); server errors say nothing more,
 * as the service's 5xx bodies do: what failed is in the local stack's output.
 */
export function layerErrorBody(path: string, status: number, reason?: string): Record<string, unknown> {
  const text = layerErrorText(status);
  const details = status < 500 && reason && reason.toLowerCase() !== text.toLowerCase() ? reason.slice(0, 300) : undefined;
  if (isBedrockDoor(path)) return { message: details ? `${text}: ${details}` : text };
  if (isGateway(path)) {
    const message = details ? `${text}: ${details}` : text;
    // OpenAI's code for an unknown URL, which the service's own 404 route answers too (lib/http/unknown-route.ts).
    const code = status === 404 ? 'unknown_url' : null;
    return { error: { message, type: status >= 500 ? 'api_error' : 'invalid_request_error', code, param: null } };
  }
  return details ? { success: false, error: text, details } : { success: false, error: text };
}

/** The reason the layer gave, from a Boom body or plain text. */
export function layerReason(raw: string): string | undefined {
  try {
    const parsed = JSON.parse(raw) as { message?: unknown };
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    // plain text
  }
  const text = raw.trim();
  return text && text.length < 300 && !text.includes('\n') ? text : undefined;
}
