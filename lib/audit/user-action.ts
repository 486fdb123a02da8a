import { putAuditEntry } from '../../tables/audit';
import type { User } from '../../tables/users';
import { logger } from '../../core/observability';

/**
 * An action a user's own request caused outside an audited endpoint: what single sign-on did on
 * their login (provisioning, a role re-applied from their groups, teams joined or left). The actor is
 * the user signing in. As with every audit write, a failure is logged, never thrown: the action has
 * happened.
 */
export async function recordUserAction(
  actor: Pick<User, 'id' | 'username' | 'role'>,
  entry: { action: string; target?: string; outcome?: 'success' | 'failure'; status?: number; detail?: string },
  at = new Date(),
): Promise<void> {
  const outcome = entry.outcome ?? 'success';
  try {
    await putAuditEntry({
      at: at.toISOString(),
      actor: { id: actor.id, username: actor.username, role: actor.role },
      action: entry.action,
      target: entry.target?.slice(0, 256),
      outcome,
      status: entry.status ?? (outcome === 'success' ? 200 : 409),
      detail: entry.detail?.slice(0, 500),
    });
  } catch (err) {
    logger.error({ message: 'audit write failed', action: entry.action, error: err as Error });
  }
}
