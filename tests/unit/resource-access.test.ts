/**
 * The access decision of lib/calls/access.ts, pure: who may call a resource, and what a resource
 * whose access was never set means. The integration tests (tests/integration/resource-access.test.ts)
 * show it enforced on every entry point.
 */
import { ADMINS_ONLY, EVERYONE, accessOf, defaultAccess, mayUse } from '../../lib/calls/access';
import type { ResourceAccess } from '../../tables/resources';

const user = { id: 'u-1', role: 'user' as const };
const restricted = (over: Partial<ResourceAccess> = {}): ResourceAccess => ({ ...ADMINS_ONLY, ...over });
const teams =
  (...ids: string[]) =>
  () =>
    new Set(ids);

test('a platform billed by the hour defaults to admins only, a platform billed per token to everyone', () => {
  expect(defaultAccess('dedicated')).toEqual(ADMINS_ONLY);
  expect(defaultAccess('managed')).toEqual(EVERYONE);
  expect(defaultAccess('hosted')).toEqual(EVERYONE);
});

test('a resource whose access was never set follows its platform; one that was set keeps its own', () => {
  expect(accessOf({ type: 'dedicated', access: null })).toEqual(ADMINS_ONLY);
  expect(accessOf({ type: 'managed', access: null })).toEqual(EVERYONE);
  expect(accessOf({ type: 'dedicated', access: EVERYONE })).toEqual(EVERYONE);
  expect(accessOf({ type: 'managed', access: ADMINS_ONLY })).toEqual(ADMINS_ONLY);
});

test('admins and super_admins may use a resource restricted to nobody', () => {
  expect(mayUse({ id: 'a', role: 'admin' }, restricted())).toBe(true);
  expect(mayUse({ id: 's', role: 'super_admin' }, restricted())).toBe(true);
  expect(mayUse(user, restricted())).toBe(false);
});

test('a user may use a resource open to everyone, or one that names them', () => {
  expect(mayUse(user, EVERYONE)).toBe(true);
  expect(mayUse(user, restricted({ user_ids: ['u-2', 'u-1'] }))).toBe(true);
  expect(mayUse(user, restricted({ user_ids: ['u-2'] }))).toBe(false);
});

test('a user may use a resource granted to a team they are in, and not one granted to other teams', () => {
  expect(mayUse(user, restricted({ team_ids: ['t-1'] }), teams('t-2', 't-1'))).toBe(true);
  expect(mayUse(user, restricted({ team_ids: ['t-1'] }), teams('t-2'))).toBe(false);
  expect(mayUse(user, restricted({ team_ids: ['t-1'] }))).toBe(false);
});

test("the caller's teams are not asked for when the answer does not depend on them", () => {
  const never = () => {
    throw new Error('teams read');
  };
  expect(mayUse(user, EVERYONE, never)).toBe(true);
  expect(mayUse(user, restricted({ user_ids: ['u-1'], team_ids: ['t-1'] }), never)).toBe(true);
  expect(mayUse(user, restricted(), never)).toBe(false);
});
