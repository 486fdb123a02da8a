import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { useAction, usePaged } from '../../api/hooks';
import { getSession, type Role } from '../../api/session';
import { AlertThresholdsField, thresholdsOf, thresholdsText } from '../../components/AlertThresholdsField';
import { ConfirmDialog, ErrorText, Field, PageTitle, Spinner, TableBox, UsdField } from '../../components/ui';
import { dateTime, usd } from '../../format';

type User = Schemas['User'];
const ROLES: Role[] = ['user', 'admin', 'super_admin'];

export default function Users() {
  const list = usePaged(async (cursor?: string) => {
    const res = await unwrap(api.GET('/api/admin/users', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } }));
    return { items: res.users, nextCursor: res.nextCursor };
  });
  return (
    <section>
      <PageTitle>Users</PageTitle>
      <CreateUser onCreated={() => void list.first.reload()} />
      <h2>All users</h2>
      {list.first.loading && !list.first.data ? <Spinner label="Loading users…" /> : null}
      <ErrorText error={list.first.error} />
      {list.items.length ? (
        <TableBox label="Users" columns={['Username', 'Name and e-mail', 'Role', 'State', 'Monthly budget', 'Last login', 'Actions']}>
          {list.items.map((u) => (
            <UserRow key={u.id} user={u} onChange={(changed) => list.replace((x) => x.id === changed.id, changed)} />
          ))}
        </TableBox>
      ) : null}
      {list.hasMore ? (
        <button type="button" onClick={() => void list.more.run()} disabled={list.more.pending}>
          {list.more.pending ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
      <ErrorText error={list.more.error} />
    </section>
  );
}

function CreateUser({ onCreated }: { onCreated: () => void }) {
  const empty = { username: '', email: '', name: '', organization: '', role: 'user' as Role, password: '' };
  const [form, setForm] = useState(empty);
  const [created, setCreated] = useState<string>();
  const create = useAction(() =>
    unwrap(
      api.POST('/api/admin/users', {
        body: {
          username: form.username.trim(),
          email: form.email.trim(),
          name: form.name.trim(),
          role: form.role,
          password: form.password,
          ...(form.organization.trim() ? { organization: form.organization.trim() } : {}),
        },
      }),
    ),
  );
  const set = (key: keyof typeof empty) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value }));
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setCreated(undefined);
    const res = await create.run();
    if (res) {
      setCreated(res.user.username);
      setForm(empty);
      onCreated();
    }
  };
  return (
    <form className="form panel" onSubmit={submit} aria-labelledby="create-user">
      <h2 id="create-user">Create a user</h2>
      <div className="row">
        <Field label="New username" hint="3 to 64 letters, digits, dots, dashes or underscores.">
          {(id, hint) => (
            <input
              id={id}
              aria-describedby={hint}
              value={form.username}
              onChange={set('username')}
              required
              pattern="[A-Za-z0-9._\-]{3,64}"
              autoComplete="off"
            />
          )}
        </Field>
        <Field label="E-mail">{(id) => <input id={id} type="email" value={form.email} onChange={set('email')} required autoComplete="off" />}</Field>
      </div>
      <div className="row">
        <Field label="Display name">{(id) => <input id={id} value={form.name} onChange={set('name')} required />}</Field>
        <Field label="Organization (optional)">{(id) => <input id={id} value={form.organization} onChange={set('organization')} />}</Field>
      </div>
      <div className="row">
        <Field label="Role">
          {(id) => (
            <select id={id} value={form.role} onChange={set('role')}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Initial password" hint="8 to 72 characters; tell it to the person, who should change it.">
          {(id, hint) => (
            <input
              id={id}
              aria-describedby={hint}
              type="password"
              value={form.password}
              onChange={set('password')}
              required
              minLength={8}
              maxLength={72}
              autoComplete="new-password"
            />
          )}
        </Field>
      </div>
      <ErrorText error={create.error} />
      {created ? (
        <p className="success" role="status">
          User {created} created.
        </p>
      ) : null}
      <button type="submit" className="primary" disabled={create.pending}>
        {create.pending ? 'Creating…' : 'Create user'}
      </button>
    </form>
  );
}

function UserRow({ user, onChange }: { user: User; onChange: (u: User) => void }) {
  const [role, setRole] = useState<Role>(user.role);
  const [resetting, setResetting] = useState(false);
  const [password, setPassword] = useState('');
  const [budgeting, setBudgeting] = useState(false);
  const [budget, setBudget] = useState({ amount: '', alertAt: '' });
  const [done, setDone] = useState<string>();
  const me = getSession()?.user.id === user.id;
  const update = useAction(async (body: Schemas['UpdateUserRequest'], what: string) => {
    const res = await unwrap(api.PATCH('/api/admin/users/{userId}', { params: { path: { userId: user.id } }, body }));
    onChange(res.user);
    setRole(res.user.role);
    setDone(what);
    return res;
  });
  return (
    <tr>
      <th scope="row">{user.username}</th>
      <td>
        {user.name}
        <br />
        <span className="hint">{user.email}</span>
      </td>
      <td>
        <div className="inline-form">
          <label className="visually-hidden" htmlFor={`role-${user.id}`}>
            Role of {user.username}
          </label>
          <select id={`role-${user.id}`} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="small"
            disabled={role === user.role || update.pending}
            onClick={() => void update.run({ role }, `Role changed to ${role}.`)}
          >
            Save role
          </button>
        </div>
      </td>
      <td>{user.is_active ? 'active' : 'deactivated'}</td>
      <td>
        {user.monthly_budget_usd == null ? 'none' : usd(user.monthly_budget_usd)}
        <br />
        <span className="hint">Alerts at {thresholdsText(user.alert_thresholds)} %</span>
        <br />
        <button
          type="button"
          className="small"
          onClick={() => {
            setBudget({
              amount: user.monthly_budget_usd == null ? '' : String(user.monthly_budget_usd),
              alertAt: thresholdsText(user.alert_thresholds),
            });
            setBudgeting(true);
          }}
        >
          Set budget…
        </button>
      </td>
      <td>{dateTime(user.last_login)}</td>
      <td>
        <div className="buttons">
          <button
            type="button"
            className="small"
            disabled={update.pending || (me && user.is_active)}
            onClick={() => void update.run({ is_active: !user.is_active }, user.is_active ? 'Deactivated.' : 'Activated.')}
          >
            {user.is_active ? `Deactivate ${user.username}` : `Activate ${user.username}`}
          </button>
          <button type="button" className="small" onClick={() => setResetting(true)}>
            Reset password
          </button>
        </div>
        <ErrorText error={update.error} />
        {done && !update.error ? (
          <p className="hint" role="status">
            {done}
          </p>
        ) : null}
        <ConfirmDialog
          open={resetting}
          title={`New password for ${user.username}`}
          confirmLabel="Set password"
          pending={update.pending}
          error={update.error}
          onCancel={() => (setResetting(false), setPassword(''))}
          onConfirm={async () => {
            const res = await update.run({ password }, 'Password changed.');
            if (res) {
              setResetting(false);
              setPassword('');
            }
          }}
        >
          <Field label="New password" hint="8 to 72 characters.">
            {(id, hint) => (
              <input
                id={id}
                aria-describedby={hint}
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                autoComplete="new-password"
                minLength={8}
                maxLength={72}
              />
            )}
          </Field>
        </ConfirmDialog>
        <ConfirmDialog
          open={budgeting}
          title={`Monthly budget of ${user.username}`}
          confirmLabel="Save budget"
          pending={update.pending}
          error={update.error}
          onCancel={() => setBudgeting(false)}
          onConfirm={async () => {
            // Empty clears: no budget (null), and the default thresholds (null: 80, 100).
            const amount = budget.amount.trim() === '' ? null : Number(budget.amount);
            const res = await update.run({ monthly_budget_usd: amount, alert_thresholds: thresholdsOf(budget.alertAt) }, 'Budget saved.');
            if (res) setBudgeting(false);
          }}
        >
          <UsdField
            label="Monthly budget (USD)"
            hint="Their chat and API calls together; refused once this month's spend would pass it. Empty for none."
            value={budget.amount}
            onChange={(amount) => setBudget((b) => ({ ...b, amount }))}
          />
          <AlertThresholdsField value={budget.alertAt} onChange={(alertAt) => setBudget((b) => ({ ...b, alertAt }))} />
        </ConfirmDialog>
      </td>
    </tr>
  );
}
