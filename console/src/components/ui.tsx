import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { errorText } from '../api/client';

/** A spinner with words, announced politely to screen readers. */
export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="spinner" role="status" aria-live="polite">
      <span className="spinner-wheel" aria-hidden="true" />
      {label}
    </p>
  );
}

/** An API error in words, next to what caused it. */
export function ErrorText({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  return (
    <p className="error" role="alert" id={id}>
      {errorText(error)}
    </p>
  );
}

/** A labelled form control: the label is visible and names the control. */
export function Field(props: { label: string; hint?: ReactNode; children: (id: string, describedBy?: string) => ReactNode; className?: string }) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div className={`field ${props.className ?? ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children(id, hintId)}
      {props.hint ? (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

/** A price or a budget in USD, typed as a decimal number (empty where it is optional). */
export function UsdField(props: {
  label: string;
  hint?: ReactNode;
  value: string;
  onChange: (value: string) => void;
  required?: boolean;
  min?: number;
}) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(id, hint) => (
        <input
          id={id}
          aria-describedby={hint}
          type="number"
          min={props.min ?? 0}
          step="any"
          value={props.value}
          required={props.required}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

export function PageTitle({ children, actions }: { children: string; actions?: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · Model Operations`;
  }, [children]);
  // After following a link, keyboard and screen-reader users land on the new page's heading rather
  // than at the top of the document (focus was on the link, now gone, or in the menu).
  useEffect(() => {
    const active = document.activeElement;
    if (!active || active === document.body || active.closest('header')) heading.current?.focus({ preventScroll: true });
  }, []);
  return (
    <div className="page-title">
      <h1 ref={heading} tabIndex={-1}>
        {children}
      </h1>
      {actions ? <div className="actions">{actions}</div> : null}
    </div>
  );
}

/** A modal confirmation (the native dialog: focus stays inside, Escape cancels). */
/**
 * The confirmation of a dangerous action on one item of a list (delete, revoke): open while `item` is
 * set, closed by Cancel or once `run` has succeeded; its failure stays shown in the dialog.
 */
export function DangerDialog<T>(props: {
  item: T | undefined;
  title: string;
  confirmLabel: string;
  pending?: boolean;
  error?: unknown;
  run: (item: T) => Promise<unknown>;
  onClose: () => void;
  children: ReactNode;
}) {
  const { item, run, onClose } = props;
  return (
    <ConfirmDialog
      open={item !== undefined}
      title={props.title}
      confirmLabel={props.confirmLabel}
      danger
      pending={props.pending}
      error={props.error}
      onCancel={onClose}
      onConfirm={async () => {
        if (item !== undefined && (await run(item))) onClose();
      }}
    >
      {props.children}
    </ConfirmDialog>
  );
}

export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  pending?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onCancel={(e) => (e.preventDefault(), props.onCancel())}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
        <ErrorText error={props.error} />
        <div className="buttons">
          <button type="button" onClick={props.onCancel} disabled={props.pending}>
            Cancel
          </button>
          <button type="submit" className={props.danger ? 'danger' : 'primary'} disabled={props.pending}>
            {props.pending ? 'Working…' : props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const id = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(id);
  }, [state]);
  return (
    <button
      type="button"
      className="small"
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        )
      }
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
      <span className="visually-hidden" aria-live="polite">
        {state === 'copied' ? ' to the clipboard' : ''}
      </span>
    </button>
  );
}

const STATUS_CLASS: Record<string, string> = {
  InService: 'ok',
  healthy: 'ok',
  Creating: 'busy',
  Updating: 'busy',
  Deleting: 'busy',
  Failed: 'bad',
  OutOfService: 'bad',
  unhealthy: 'bad',
  LEGACY: 'busy',
  delivered: 'ok',
  failed: 'bad',
};

export function Badge({ value }: { value: string }) {
  // A word that says more than the status ("LEGACY, end of life …") takes the status's colour.
  return <span className={`badge ${STATUS_CLASS[value] ?? STATUS_CLASS[value.split(',')[0] ?? ''] ?? 'neutral'}`}>{value}</span>;
}

/** A definition list of label/value pairs. */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="facts">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A table in a box of its own. On a narrow screen (a phone) each row becomes a card, every cell under
 * its column's name (styles.css, `.table-box.reflow`), so no column is cut off; a table still wider
 * than its box scrolls inside it, with shadows on the edges where there is more.
 */
export function TableBox({ label, columns, children }: { label: string; columns: string[]; children: ReactNode }) {
  const table = useRef<HTMLTableElement>(null);
  // Each cell carries its column's name for the narrow layout; rows come and go with every render.
  useLayoutEffect(() => {
    for (const row of Array.from(table.current?.tBodies[0]?.rows ?? [])) {
      Array.from(row.cells).forEach((cell, i) => cell.setAttribute('data-label', columns[i] ?? ''));
    }
  });
  return (
    <div className="table-box reflow" role="region" aria-label={label} tabIndex={0}>
      <table ref={table}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
