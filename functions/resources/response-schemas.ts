// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/resources/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { BudgetAlertThresholds, Resource, Timestamp, Uuid } from '../system/response-schemas';

/** A resource's access (ResourceAccessSetting) with the names of the users and teams listed. */
export const ResourceAccess = Named(
  'ResourceAccess',
  Type.Object(
    {
      everyone: Type.Boolean(),
      user_ids: Type.Array(Ref(Uuid)),
      team_ids: Type.Array(Ref(Uuid)),
      default: Type.Boolean({
        description: "true: no admin has set it, and the platform's default applies (managed and hosted: everyone; dedicated: admins only).",
      }),
      updated_at: OneOf([Ref(Timestamp), Type.Null()], { description: 'When an admin last set it; null for the default.' }),
      updated_by: Type.Unsafe<string | null>({
        description: 'The admin who last set it (username); null for the default.',
        type: ['string', 'null'],
      }),
      users: Type.Array(
        Type.Object({ id: Ref(Uuid), username: Type.Unsafe<string | null>({ type: ['string', 'null'] }) }, { additionalProperties: false }),
        { description: 'The users listed, in order; `username` null for a user deleted since (it grants nothing).' },
      ),
      teams: Type.Array(
        Type.Object({ id: Ref(Uuid), name: Type.Unsafe<string | null>({ type: ['string', 'null'] }) }, { additionalProperties: false }),
        { description: 'The teams listed, in order; `name` null for a team deleted since (it grants nothing).' },
      ),
    },
    { description: "A resource's access (ResourceAccessSetting) with the names of the users and teams listed.", additionalProperties: false },
  ),
);

/** Dedicated resources: all five figures (CloudWatch, last 15 minutes). Managed and hosted: response_time_ms only (mean latency of this service's chat turns). */
export const Metrics = Named(
  'Metrics',
  OneOf(
    [
      Type.Object(
        {
          response_time_ms: Type.Number({ minimum: 0 }),
          throughput_per_minute: Type.Number({ minimum: 0 }),
          error_rate_percent: Type.Number({ minimum: 0 }),
          cpu_utilization: Type.Number({ description: 'Percent.', minimum: 0 }),
          memory_utilization: Type.Number({ description: 'Percent.', minimum: 0 }),
        },
        { title: 'DedicatedMetrics', additionalProperties: false },
      ),
      Type.Object({ response_time_ms: Type.Number({ minimum: 0 }) }, { title: 'ManagedMetrics', additionalProperties: false }),
    ],
    {
      description:
        "Dedicated resources: all five figures (CloudWatch, last 15 minutes). Managed and hosted: response_time_ms only (mean latency of this service's chat turns).",
    },
  ),
);

/** USD. pricing_model hourly (dedicated, billed until deleted; the hourly figures are 0 while it bills nothing - OutOfService, Failed, Deleting - and month_to_date_usd is what it has cost this month) or token (managed, hosted; hourly, daily and monthly are 0 and the per-1K prices are given). */
export const Costs = Named(
  'Costs',
  Type.Object(
    {
      hourly_cost: Type.Number({ minimum: 0 }),
      daily_cost: Type.Number({ minimum: 0 }),
      monthly_estimate: Type.Number({ minimum: 0 }),
      last_updated: Ref(Timestamp),
      pricing_model: Type.Unsafe<'hourly' | 'token'>({ type: 'string', enum: ['hourly', 'token'] }),
      per_1k_input_tokens_usd: Type.Optional(Type.Number({ minimum: 0 })),
      per_1k_output_tokens_usd: Type.Optional(Type.Number({ minimum: 0 })),
      month_to_date_usd: Type.Optional(
        Type.Number({ description: 'Hourly pricing: billable instance-hours this month (UTC) x the hourly price of one instance.', minimum: 0 }),
      ),
    },
    {
      description:
        'USD. pricing_model hourly (dedicated, billed until deleted; the hourly figures are 0 while it bills nothing - OutOfService, Failed, Deleting - and month_to_date_usd is what it has cost this month) or token (managed, hosted; hourly, daily and monthly are 0 and the per-1K prices are given).',
      additionalProperties: false,
      if: { required: ['pricing_model'], properties: { pricing_model: { const: 'token' } } },
      then: {
        required: ['per_1k_input_tokens_usd', 'per_1k_output_tokens_usd'],
        properties: { hourly_cost: { const: 0 }, daily_cost: { const: 0 }, monthly_estimate: { const: 0 } },
        not: { required: ['month_to_date_usd'] },
      },
      else: {
        required: ['month_to_date_usd'],
        not: { anyOf: [{ required: ['per_1k_input_tokens_usd'] }, { required: ['per_1k_output_tokens_usd'] }] },
      },
    },
  ),
);

/** The idle timeout and monthly budget of a dedicated resource, and where it stands against them. */
export const Guardrails = Named(
  'Guardrails',
  Type.Object(
    {
      idle_timeout_minutes: Type.Unsafe<number | null>({ description: 'Null when none is set.', type: ['integer', 'null'] }),
      monthly_budget_usd: Type.Unsafe<number | null>({ description: 'Null when none is set.', type: ['number', 'null'] }),
      alert_thresholds: Ref(BudgetAlertThresholds),
      month_to_date_usd: Type.Number({ description: 'What the endpoint has cost this month (UTC) so far.', minimum: 0 }),
      billable_instance_hours_this_month: Type.Number({ minimum: 0 }),
      budget_remaining_usd: Type.Unsafe<number | null>({
        description: 'Budget less month to date, never below 0; null without a budget.',
        type: ['number', 'null'],
        minimum: 0,
      }),
      billing: Type.Boolean({ description: 'Whether the endpoint bills now (Creating, Updating, InService).' }),
      last_chat_at: OneOf([Ref(Timestamp), Type.Null()], {
        description:
          "This service's last model call with it, a session chat turn or a /v1 gateway call (counted from the table's stream, about a second after the answer); null when none was seen.",
      }),
      idle_activity: Type.Array(
        Type.Unsafe<'session_chat' | 'gateway' | 'direct_invocations'>({ type: 'string', enum: ['session_chat', 'gateway', 'direct_invocations'] }),
        {
          description: `What counts as activity for the idle timeout (each resets the idle clock): session chat
turns, /v1 gateway calls, and invocations that bypass the service (CloudWatch's
\`Invocations\`, which counts every call of the endpoint). Gateway traffic counts because it
is use; only the callers the resource's access admits can make it, and a refused call
reaches no model and counts for nothing.
`,
        },
      ),
      idle_stop_not_before: OneOf([Ref(Timestamp), Type.Null()], {
        description: 'While InService with an idle timeout, the earliest time an idle stop can happen if no traffic comes; null otherwise.',
      }),
      stopped: OneOf(
        [
          Type.Null(),
          Type.Object(
            { reason: Type.Unsafe<'idle' | 'budget'>({ type: 'string', enum: ['idle', 'budget'] }), at: Ref(Timestamp), detail: Type.String() },
            { additionalProperties: false },
          ),
        ],
        {
          description:
            'Set while a guardrail holds the resource OutOfService (its endpoint deleted, model and configuration kept); action start brings it back.',
        },
      ),
    },
    { description: 'The idle timeout and monthly budget of a dedicated resource, and where it stands against them.', additionalProperties: false },
  ),
);

export const ResourceStatusResponse = Named(
  'ResourceStatusResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      resource: Ref(Resource),
      metrics: Ref(Metrics),
      costs: Ref(Costs),
      guardrails: Type.Optional(Ref(Guardrails, { description: 'Dedicated resources only.' })),
      access: Type.Optional(
        Ref(ResourceAccess, { description: 'For admins only. Who may use the resource (PUT /api/resources/{resourceId}/access sets it).' }),
      ),
      failure_reason: Type.Optional(Type.String({ description: "The platform's reason, when the resource failed or vanished." })),
      warnings: Type.Optional(
        Type.Array(Type.String(), { description: 'e.g. that metrics are temporarily unavailable (the figures are zeros then).' }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const ControlResponse = Named(
  'ControlResponse',
  Type.Object(
    {
      success: Type.Unsafe<true>({ const: true }),
      message: Type.String(),
      action: Type.Unsafe<'start' | 'stop' | 'restart' | 'delete'>({
        description: 'Echoes the action.',
        type: 'string',
        enum: ['start', 'stop', 'restart', 'delete'],
      }),
      status: Type.Unsafe<'updating' | 'creating' | 'deleting'>({
        description:
          'Lowercase: updating (start, restart of a dedicated resource), creating (start of a dedicated resource a guardrail stopped: its endpoint is created again), deleting (delete: a dedicated endpoint being deleted, or a resource already removed from tracking).',
        type: 'string',
        enum: ['updating', 'creating', 'deleting'],
      }),
      resourceId: Ref(Uuid),
    },
    { additionalProperties: false },
  ),
);
