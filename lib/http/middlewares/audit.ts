import { putAuditEntry } from '../../../tables/audit';
import { logger } from '../../../core/observability';
import type { ApiMiddleware, ApiMiddlewareFn } from '../types';

export interface AuditOptions {
  /** What was done, e.g. 'user.update', 'deploy.dedicated', 'credentials.read'. */
  action: string;
  /**
   * What it was done to, from the request; defaults to the path parameters. A handler whose target
   * only its domain can resolve names it in its reply instead (`replyAbout`), which wins.
   */
  target?: (input: { body: any; path: any; query: any }) => string | undefined;
}

/**
 * Records an admin action once its outcome is known: success or the refusal (403s included), with
 * the caller as the actor. Requests that never authenticated have no actor and are not recorded
 * (the request log has them). The entry is written before the response leaves, since a Lambda may be
 * frozen right after; a failed audit write is logged, never turned into a failed request, because
 * the action itself has already happened.
 */
export function audit(options: AuditOptions): ApiMiddleware {
  const record: ApiMiddlewareFn = async (request) => {
    const { event } = request;
    const { user, input: checked, auditTarget } = request.context.state;
    if (!user) return;
    const status = (request.response as { statusCode?: number } | undefined)?.statusCode ?? 500;
    const input = { body: checked?.body ?? {}, path: event.pathParameters ?? {}, query: event.queryStringParameters ?? {} };
    // A refused request's body is whatever the client sent (a number where a name belongs, say):
    // the target is recorded as text, or not at all, and never costs the entry.
    let target: string | undefined;
    try {
      const named: unknown = auditTarget ?? options.target?.(input) ?? (Object.values(event.pathParameters ?? {}).join('/') || undefined);
      target = named == null ? undefined : typeof named === 'string' ? named : JSON.stringify(named);
    } catch {
      target = undefined;
    }
    const error = request.error as { message?: string } | undefined | null;
    try {
      await putAuditEntry({
        at: new Date().toISOString(),
        actor: { id: user.id, username: user.username, role: user.role },
        action: options.action,
        target: target?.slice(0, 256),
        outcome: status < 400 ? 'success' : 'failure',
        status,
        detail: status >= 400 ? error?.message?.slice(0, 500) : undefined,
      });
    } catch (err) {
      logger.error({ message: 'audit write failed', action: options.action, error: err as Error });
    }
  };
  return { after: record, onError: record };
}
