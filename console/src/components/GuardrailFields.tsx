import { Field, UsdField } from './ui';

/**
 * The two guardrails of a dedicated endpoint as form fields (the deploy form and the resource page):
 * text as typed, empty meaning none. The caller turns them into its request (left out, or null).
 */
export function GuardrailFields(props: { idle: string; onIdle: (v: string) => void; budget: string; onBudget: (v: string) => void }) {
  return (
    <div className="row">
      <Field label="Idle timeout (minutes)" hint="Stop the endpoint after this long without invocations (1 to 10080); empty for none.">
        {(id, hint) => (
          <input
            id={id}
            aria-describedby={hint}
            type="number"
            min={1}
            max={10080}
            value={props.idle}
            onChange={(e) => props.onIdle(e.target.value)}
          />
        )}
      </Field>
      <UsdField
        label="Monthly budget (USD)"
        hint="Stop the endpoint when this month's cost reaches it; empty for none."
        min={0.01}
        value={props.budget}
        onChange={props.onBudget}
      />
    </div>
  );
}
