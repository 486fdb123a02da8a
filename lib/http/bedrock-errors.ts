/**
 * Bedrock's error answers (the /bedrock door): the error's name in the `x-amzn-errortype` header and
 * `{"message": "..."}` as the body, which the AWS SDKs read into the service's exception classes
 * (ValidationException, AccessDeniedException, ...). Its own module, so that the error responder (in
 * every function) bundles only this, not the dialect.
 *
 * The status follows what Bedrock answers for each, and what the SDKs' retry strategies do with it:
 * they retry a 429 (and any ThrottlingException) and 5xx with backoff, and nothing else. So a rate
 * limit is 429 ThrottlingException (its window opens again), while a spent budget is 403
 * AccessDeniedException: it does not pass by waiting seconds, and retrying it would only delay the
 * refusal. A missing or unknown key is 403 AccessDeniedException too, as Bedrock answers a bad
 * bearer token.
 */

export interface BedrockError {
  status: number;
  type: string;
  body: { message: string };
}

function typeAndStatus(status: number, code: string | undefined): [string, number] {
  switch (status) {
    case 401:
    case 403:
      return ['AccessDeniedException', 403];
    case 404:
      return ['ResourceNotFoundException', 404];
    case 409:
      return ['ConflictException', 409];
    case 429:
      return code === 'budget_exceeded' ? ['AccessDeniedException', 403] : ['ThrottlingException', 429];
    case 503:
      return ['ServiceUnavailableException', 503];
    case 504:
      return ['ModelTimeoutException', 504];
    default:
      // A request refused as sent (400, 413 too large, 415 not JSON) keeps its status.
      return [status >= 500 ? 'InternalServerException' : 'ValidationException', status];
  }
}

/** The answer to an error of `status` (and domain `code`); `details` (what a client can act on) joins the message below 500. */
export function bedrockError(status: number, code: string | undefined, text: string, details?: string): BedrockError {
  const [type, answered] = typeAndStatus(status, code);
  return { status: answered, type, body: { message: details && status < 500 ? `${text}: ${details}` : text } };
}

/** The exception event of a ConverseStream member name (`throttlingException`) for an error answered mid-stream. */
export const streamExceptionType = (type: string) =>
  ({
    ThrottlingException: 'throttlingException',
    ValidationException: 'validationException',
    ServiceUnavailableException: 'serviceUnavailableException',
  })[type] ?? 'internalServerException';
