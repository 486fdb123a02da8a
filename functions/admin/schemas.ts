import { Type, type Static } from '@sinclair/typebox';
import { AlertThresholds, Limit, NullableUsd, Pagination, Region, Uuid } from '../../lib/http/schemas';

export const Username = Type.String({ pattern: '^[A-Za-z0-9._-]{3,64}$', description: '3 to 64 letters, digits, dots, dashes or underscores' });
export const Email = Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', description: 'an e-mail address' });
export const RoleSchema = Type.Union([Type.Literal('super_admin'), Type.Literal('admin'), Type.Literal('user')], {
  description: 'super_admin, admin or user',
});
// bcrypt only reads the first 72 bytes; longer passwords are refused rather than silently cut. JSON
// Schema counts characters, not bytes: the byte limit is in the description and checked by the domain
// (lib/users/service.ts; tests/integration/admin-users.test.ts pins it).
export const Password = Type.String({
  minLength: 8,
  maxLength: 72,
  description: '8 to 72 characters and at most 72 bytes in UTF-8 (bcrypt reads no more): 72 ASCII characters, fewer when some take several bytes',
});
const Text = Type.String({ minLength: 1, maxLength: 200 });

export const CreateUserBody = Type.Object(
  {
    username: Username,
    email: Email,
    name: Text,
    organization: Type.Optional(Type.String({ maxLength: 200 })),
    cloud_region: Type.Optional(Region),
    role: RoleSchema,
    password: Password,
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    role: Type.Optional(RoleSchema),
    is_active: Type.Optional(Type.Boolean()),
    name: Type.Optional(Text),
    organization: Type.Optional(Type.String({ maxLength: 200 })),
    cloud_region: Type.Optional(Region),
    password: Type.Optional(Password),
    monthly_budget_usd: Type.Optional(NullableUsd(1_000_000, 'USD per calendar month, UTC')),
    alert_thresholds: Type.Optional(AlertThresholds),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UserPath = Type.Object({ userId: Uuid }, { additionalProperties: false });
export const ListUsersQuery = Type.Object(Pagination, { additionalProperties: false });

export const ListAuditQuery = Type.Object({ ...Pagination, limit: Limit(50) }, { additionalProperties: false });
