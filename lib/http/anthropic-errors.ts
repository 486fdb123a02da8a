/**
 * Anthropic's error body, `{"type": "error", "error": {"type", "message"}}`, with the type its
 * documentation gives each status (docs.claude.com/en/api/errors): the official clients raise their
 * exception classes by status and expose the type. Its own module, so that the error responder (in
 * every function) bundles only this, not the dialect.
 */

/** Anthropic's error type of a status. */
function anthropicErrorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      // Anthropic's "overloaded" (529): a platform that throttled, a model not in service. Worth a retry.
      return 'overloaded_error';
    default:
      // "We may also use this error type for other 4XX status codes not listed."
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The body of an error answer; `details` (what a client can act on) joins the message below 500, as in OpenAI's shape. */
export function anthropicErrorBody(status: number, text: string, details?: string) {
  const message = details && status < 500 ? `${text}: ${details}` : text;
  return { type: 'error', error: { type: anthropicErrorType(status), message } };
}
