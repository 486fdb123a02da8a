// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/admin/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, Ref } from '../../lib/http/contract';
import { Role, Timestamp, User, Uuid } from '../system/response-schemas';

export const UserResponse = Named(
  'UserResponse',
  Type.Object({ success: Type.Unsafe<true>({ const: true }), user: Ref(User) }, { additionalProperties: false }),
);

export const AuditEntry = Named(
  'AuditEntry',
  Type.Object(
    {
      id: Ref(Uuid),
      at: Ref(Timestamp),
      actor: Type.Object(
        { id: Ref(Uuid), username: Type.String(), role: Type.Union([Ref(Role), Type.Unsafe<'system'>({ const: 'system' })]) },
        {
          description:
            'The admin who acted, or the system for automatic actions: role `system`, id the nil UUID, username `reconciler` (the scheduled pass) or `status-sync` (a status read or control call noticed it first).',
          additionalProperties: false,
        },
      ),
      action: Type.String({
        description:
          'What was done, e.g. user.create, user.update, user.login_failures.clear, credentials.read.cloud, models.sync, resource.guardrails, orphan.adopt, orphan.delete; automatic: resource.idle_stop, resource.budget_stop, resource.operation_completed, resource.operation_started, resource.start_failed, resource.failed, resource.vanished, resource.removed, resource.changed_outside, orphan.found.',
      }),
      target: Type.Optional(Type.String()),
      outcome: Type.Unsafe<'success' | 'failure'>({ type: 'string', enum: ['success', 'failure'] }),
      status: Type.Integer({ description: 'The HTTP status of the response.' }),
      detail: Type.Optional(Type.String({ description: 'The error text of a failure.' })),
      reason: Type.Optional(Type.String({ description: 'Why the system acted (automatic actions).' })),
    },
    { additionalProperties: false },
  ),
);
