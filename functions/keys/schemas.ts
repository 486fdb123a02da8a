import { Type } from '@sinclair/typebox';
import {
  AlertThresholds,
  NullableRpmLimit,
  NullableTpmLimit,
  NullableUsd,
  Pagination,
  RpmLimit,
  ServiceTierList,
  TpmLimit,
  Usd,
  Uuid,
} from '../../lib/http/schemas';

const Name = Type.String({ minLength: 1, maxLength: 100, description: '1 to 100 characters' });
const Budget = Usd(1_000_000, 'USD per calendar month, UTC');
const Expiry = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$',
  description: 'an ISO 8601 date-time with its zone, in the future',
});
const ServiceTiers = ServiceTierList("the processing tiers the key's calls may use: default (Standard), flex, priority (all when absent)");
const ResourceIds = Type.Array(Uuid, { minItems: 1, maxItems: 100, description: 'the resources the key may call (all when absent)' });

export const CreateKeyBody = Type.Object(
  {
    name: Name,
    monthly_budget_usd: Type.Optional(Budget),
    expires_at: Type.Optional(Expiry),
    resource_ids: Type.Optional(ResourceIds),
    team_id: Type.Optional({ ...Uuid, description: 'a team the caller is a member of: the key spends for the team' }),
    rpm_limit: Type.Optional(RpmLimit),
    tpm_limit: Type.Optional(TpmLimit),
    allowed_service_tiers: Type.Optional(ServiceTiers),
    alert_thresholds: Type.Optional(AlertThresholds),
  },
  { additionalProperties: false },
);

/** null removes a budget, an expiry or a resource limit. */
export const UpdateKeyBody = Type.Object(
  {
    name: Type.Optional(Name),
    monthly_budget_usd: Type.Optional(NullableUsd(1_000_000, 'USD per calendar month, UTC')),
    expires_at: Type.Optional(Type.Union([Expiry, Type.Null()])),
    resource_ids: Type.Optional(Type.Union([ResourceIds, Type.Null()])),
    rpm_limit: Type.Optional(NullableRpmLimit),
    tpm_limit: Type.Optional(NullableTpmLimit),
    allowed_service_tiers: Type.Optional(Type.Union([ServiceTiers, Type.Null()])),
    alert_thresholds: Type.Optional(AlertThresholds),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const KeyPath = Type.Object({ keyId: Uuid }, { additionalProperties: false });

export const ListKeysQuery = Type.Object(
  {
    scope: Type.Optional(
      Type.Union([Type.Literal('user'), Type.Literal('all')], { description: "'user' (the caller's keys, default) or 'all' (admins)" }),
    ),
    team_id: Type.Optional({ ...Uuid, description: "one team's keys (its owners and admins); not with scope" }),
    ...Pagination,
  },
  { additionalProperties: false },
);
