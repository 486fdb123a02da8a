/**
 * `npm run user -- <command> ...`: user management from the shell, for bootstrapping a deployment
 * (the first super_admin of a new stage) and for local work. It talks to the table directly with the
 * same domain code the API uses, so the same rules hold (unique names, password length, the last
 * super_admin).
 *
 *   npm run user -- create --username ada --email ada@example.com --name "Ada" --role super_admin [--password …]
 *   npm run user -- list
 *   npm run user -- set-role <username|email> <super_admin|admin|user>
 *   npm run user -- deactivate <username|email>
 *   npm run user -- activate <username|email>
 *   npm run user -- reset-password <username|email> [--password …]
 *
 * Target: the local table (DynamoDB Local started by `npm start`) by default; `--stage prod
 * [--region eu-west-1]` works on the deployed table `model-ops-prod` with your AWS credentials.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Role } from '../tables/users';
import { targetTable } from './target';

const USAGE = `Usage: npm run user -- <create|list|set-role|deactivate|activate|reset-password> [arguments] [--stage <stage>] [--region <region>]`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stage: { type: 'string' },
    region: { type: 'string' },
    username: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    organization: { type: 'string' },
    'cloud-region': { type: 'string' },
    role: { type: 'string' },
    password: { type: 'string' },
    limit: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

function fail(message: string): never {
  console.error(`✖ ${message}`);
  process.exit(1);
}

const [command, ...args] = positionals;
if (values.help || !command) {
  console.log(USAGE);
  process.exit(values.help ? 0 : 1);
}

// Point the domain code at the right table before it is imported (core/config reads the environment).
targetTable(values);

const users = await import('../tables/users');
const service = await import('../lib/users/service');

async function find(login: string | undefined) {
  if (!login) fail(`Name the user (username or e-mail).\n${USAGE}`);
  const user = await users.getUserByLogin(login);
  if (!user) fail(`No user "${login}"`);
  return user;
}

const generated = () => randomBytes(12).toString('base64url');

try {
  switch (command) {
    case 'create': {
      const { username, email, name, role } = values;
      if (!username || !email || !name || !role) fail('create needs --username, --email, --name and --role');
      if (!users.ROLES.includes(role as Role)) fail(`--role must be one of ${users.ROLES.join(', ')}`);
      const password = values.password ?? generated();
      const user = await service.createUser({
        username,
        email,
        name,
        organization: values.organization,
        cloud_region: values['cloud-region'],
        role: role as Role,
        password,
      });
      console.log(`✔ Created ${user.role} "${user.username}" (${user.id})`);
      if (!values.password) console.log(`  Generated password (shown this once): ${password}`);
      break;
    }
    case 'list': {
      let cursor: string | undefined;
      do {
        const page = await users.listUsers(Math.min(Number(values.limit ?? 100), 100), cursor);
        for (const u of page.users) {
          console.log(`${u.id}  ${u.role.padEnd(11)}  ${u.is_active ? 'active  ' : 'inactive'}  ${u.username}  <${u.email}>`);
        }
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      break;
    }
    case 'set-role': {
      const user = await find(args[0]);
      const role = args[1] as Role;
      if (!users.ROLES.includes(role)) fail(`The role must be one of ${users.ROLES.join(', ')}`);
      await service.updateUser(user.id, { role });
      console.log(`✔ ${user.username} is now ${role}`);
      break;
    }
    case 'deactivate':
    case 'activate': {
      const user = await find(args[0]);
      await service.updateUser(user.id, { is_active: command === 'activate' });
      console.log(`✔ ${user.username} is ${command === 'activate' ? 'active' : 'deactivated'}`);
      break;
    }
    case 'reset-password': {
      const user = await find(args[0]);
      const password = values.password ?? generated();
      await service.updateUser(user.id, { password });
      console.log(`✔ Password of ${user.username} reset`);
      if (!values.password) console.log(`  New password (shown this once): ${password}`);
      break;
    }
    default:
      fail(`Unknown command "${command}".\n${USAGE}`);
  }
} catch (err) {
  const e = err as Error & { statusCode?: number };
  if ((e as { kind?: string }).kind === 'DatabaseUnavailable') {
    fail(
      values.stage
        ? `The table of stage ${values.stage} did not answer: ${e.message}`
        : 'DynamoDB Local is not running: start the service with `npm start` first.',
    );
  }
  if (e.name === 'ResourceNotFoundException')
    fail(`Table ${process.env.TABLE_NAME} does not exist${values.stage ? '' : ': start the service once with `npm start`'}.`);
  fail(e.message);
}
process.exit(0);
