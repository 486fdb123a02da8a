import { Field } from './ui';

/**
 * A budget's alert thresholds as people write them: percentages, comma-separated ("80, 100"). The API
 * takes fractions (`alert_thresholds`: 1 to 5 distinct numbers in (0, 1]); it checks them and its 400
 * says what is wrong, so the console only converts.
 */
export const thresholdsText = (fractions: readonly number[] | null | undefined) =>
  (fractions ?? []).map((f) => String(Math.round(f * 10_000) / 100)).join(', ');

/** The field's text as `alert_thresholds`: fractions, or null (the default) when it is empty. */
export function thresholdsOf(text: string): number[] | null {
  const parts = text
    .split(',')
    .map((p) => p.trim().replace(/%$/, ''))
    .filter(Boolean);
  // Not a number stays NaN: the API refuses it with a 400 the form shows.
  return parts.length === 0 ? null : parts.map((p) => Math.round(Number(p) * 100) / 10_000);
}

/** Beside a budget field: the percentages of the budget at which it alerts (empty: 80 and 100). */
export function AlertThresholdsField(props: { value: string; onChange: (v: string) => void; label?: string }) {
  return (
    <Field
      label={props.label ?? 'Alert at (% of budget)'}
      hint="Comma-separated percentages, up to five, e.g. 50, 80, 100; each alerts once a month. Empty for 80, 100."
    >
      {(id, hint) => (
        <input
          id={id}
          aria-describedby={hint}
          inputMode="decimal"
          placeholder="80, 100"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}
