/**
 * Per-unit permissions: AccessPolicy.unitPermission (repos.access) (a team's units_map per unit, as Gitea 1.20)
 * and resolve(…, unit), called on the kernel directly (no route uses them yet).
 */
import { ADMIN, startServer, type TestServer } from './helpers/server';
import type { Principal } from '@hearth/plugin-api';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const repoService = require('@hearth/core/dist/repos/repo-service') as typeof import('../core/kernel/src/repos/repo-service');

type U = { name: string; password: string; id: number };

let server: TestServer;
const tokens: Record<string, string> = {};
const users: Record<string, U> = {};
const SCOPES = ['delete:repository', 'delete:organization', 'write:user'];
const UNITS = ['code', 'issues', 'pulls', 'releases', 'wiki', 'projects', 'packages', 'actions'] as const;
type Unit = (typeof UNITS)[number];

beforeAll(async () => {
  server = await startServer();
  tokens.admin = await server.token({ name: ADMIN.name, password: ADMIN.password }, [...SCOPES, 'write:admin']);
  for (const name of ['boss', 'mixed', 'unitlist', 'admteam', 'collab', 'outsider']) {
    users[name] = await server.user(name);
    tokens[name] = await server.token(users[name], SCOPES);
  }
  const ok = async (method: string, p: string, who: string, body: unknown, status: number) => {
    const res = await server.api(method, p, { token: tokens[who], body });
    if (res.status !== status) throw new Error(`${method} ${p}: ${res.status} ${res.text}`);
    return res.body;
  };
  await ok('POST', '/orgs', 'boss', { username: 'units' }, 201);
  for (const [name, priv] of [
    ['secret', true],
    ['open', false],
    ['nowiki', true],
    ['unlisted', true],
  ] as const)
    await ok('POST', '/orgs/units/repos', 'boss', { name, private: priv }, 201);
  await ok('PATCH', '/repos/units/nowiki', 'boss', { has_wiki: false }, 200);
  const team = async (body: Record<string, unknown>, member: string, repos: string[]) => {
    const t = await ok('POST', '/orgs/units/teams', 'boss', body, 201);
    await ok('PUT', `/teams/${t.id}/members/${member}`, 'boss', undefined, 204);
    for (const r of repos) await ok('PUT', `/teams/${t.id}/repos/units/${r}`, 'boss', undefined, 204);
  };
  // Gitea's example: may read code and write issues; nothing else.
  await team({ name: 'mixed', units_map: { 'repo.code': 'read', 'repo.issues': 'write' } }, 'mixed', ['secret', 'open', 'nowiki']);
  // The older form: one permission for the listed units.
  await team({ name: 'unitlist', permission: 'write', units: ['repo.code', 'repo.wiki'] }, 'unitlist', ['secret', 'nowiki']);
  // Admin teams have admin on every unit whatever their map says.
  await team({ name: 'admteam', permission: 'admin', units_map: { 'repo.code': 'read' } }, 'admteam', ['secret', 'nowiki']);
  // A read collaborator who is also in the mixed team: the collaborator level applies to every unit.
  await team({ name: 'mixed2', units_map: { 'repo.code': 'read', 'repo.issues': 'write' } }, 'collab', ['secret']);
  await ok('PUT', '/repos/units/secret/collaborators/collab', 'boss', { permission: 'read' }, 204);
  // A user's own repository with a write collaborator.
  await ok('POST', '/user/repos', 'boss', { name: 'mine', private: true }, 201);
  await ok('PUT', '/repos/boss/mine/collaborators/collab', 'boss', { permission: 'write' }, 204);
});
afterAll(async () => {
  await server.close();
});

async function principal(name: string | null, publicOnly = false): Promise<Principal | null> {
  if (!name) return null;
  const row = await server.kernel.users.byName(name === 'admin' ? ADMIN.name : name);
  return { user: server.kernel.users.toInfo(row!), method: 'internal', scopes: null, publicOnly };
}

/** Every unit's level for `who` on owner/repo, as { code: 'read', … }. */
async function levels(who: string | null, owner: string, repo: string, publicOnly = false): Promise<Record<Unit, string>> {
  const ownerRow = await server.kernel.users.byName(owner);
  const row = await server.kernel.repos.query().findOne({ owner_id: ownerRow!.id, lower_name: repo });
  const p = await principal(who, publicOnly);
  const out = {} as Record<Unit, string>;
  for (const unit of UNITS) out[unit] = await server.kernel.repos.access.unitPermission(row!, p, unit);
  return out;
}

const all = (level: string, except: Partial<Record<Unit, string>> = {}) => ({
  ...Object.fromEntries(UNITS.map((u) => [u, level])),
  ...except,
});

describe('unitPermission', () => {
  test("site admin, org owner and a user repository's owner: admin on every unit", async () => {
    expect(await levels('admin', 'units', 'secret')).toEqual(all('admin'));
    expect(await levels('boss', 'units', 'secret')).toEqual(all('admin'));
    expect(await levels('boss', 'boss', 'mine')).toEqual(all('admin'));
  });

  test('a switched-off unit is none for everyone, owners included', async () => {
    expect(await levels('boss', 'units', 'nowiki')).toEqual(all('admin', { wiki: 'none' }));
    expect(await levels('unitlist', 'units', 'nowiki')).toEqual(all('none', { code: 'write' }));
    expect(await levels('admteam', 'units', 'nowiki')).toEqual(all('admin', { wiki: 'none' }));
  });

  test('a team with units_map {code: read, issues: write} reads code, writes issues, nothing else (private repo)', async () => {
    expect(await levels('mixed', 'units', 'secret')).toEqual(all('none', { code: 'read', issues: 'write' }));
  });

  test('on a public repository, units the team does not grant are still readable', async () => {
    expect(await levels('mixed', 'units', 'open')).toEqual(all('read', { issues: 'write' }));
    expect(await levels('outsider', 'units', 'open')).toEqual(all('read'));
    expect(await levels(null, 'units', 'open')).toEqual(all('read'));
  });

  test('a team made with `units` and one permission has it on those units only', async () => {
    expect(await levels('unitlist', 'units', 'secret')).toEqual(all('none', { code: 'write', wiki: 'write' }));
  });

  test('an admin team has admin on every unit whatever its map says', async () => {
    expect(await levels('admteam', 'units', 'secret')).toEqual(all('admin'));
  });

  test("a collaborator's level applies to every unit, combined with the team's", async () => {
    expect(await levels('collab', 'units', 'secret')).toEqual(all('read', { issues: 'write' }));
    expect(await levels('collab', 'boss', 'mine')).toEqual(all('write'));
  });

  test('none at all where the repository is not readable', async () => {
    expect(await levels('outsider', 'units', 'secret')).toEqual(all('none'));
    expect(await levels('mixed', 'units', 'unlisted')).toEqual(all('none'));
    expect(await levels(null, 'units', 'secret')).toEqual(all('none'));
    expect(await levels('boss', 'units', 'secret', true)).toEqual(all('none'));
    expect(await levels('outsider', 'boss', 'mine')).toEqual(all('none'));
  });
});

describe('resolveRepo(…, unit)', () => {
  const status = async (who: string, repo: string, need: 'read' | 'write' | 'admin', unit?: Unit) => {
    try {
      await server.kernel.repos.access.resolveRepo('units', repo, await principal(who), need, unit);
      return 200;
    } catch (err) {
      return (err as { status?: number }).status;
    }
  };

  test('the unit level decides when a unit is given; without one, the repository-wide rule as before', async () => {
    expect(await status('mixed', 'secret', 'write', 'issues')).toBe(200);
    expect(await status('mixed', 'secret', 'read', 'code')).toBe(200);
    expect(await status('mixed', 'secret', 'write', 'code')).toBe(403);
    expect(await status('mixed', 'secret', 'read', 'pulls')).toBe(404);
    // The team's overall permission is the lowest of its unit modes (read): no write without a unit.
    expect(await status('mixed', 'secret', 'write')).toBe(403);
    expect(await status('mixed', 'secret', 'read')).toBe(200);
    expect(await status('unitlist', 'secret', 'write', 'code')).toBe(200);
    expect(await status('unitlist', 'secret', 'read', 'issues')).toBe(404);
    expect(await status('unitlist', 'secret', 'admin', 'code')).toBe(403);
    expect(await status('admteam', 'secret', 'admin', 'issues')).toBe(200);
    expect(await status('outsider', 'secret', 'read', 'code')).toBe(404);
  });
});

describe('teamUnitMode', () => {
  test('reads units_map; admin teams and maps naming no unit keep the overall permission', () => {
    const { teamUnitMode } = repoService;
    expect(teamUnitMode({ authorize: 1, units_map: '{"repo.code":"read","repo.issues":"write"}' }, 'issues')).toBe(2);
    expect(teamUnitMode({ authorize: 1, units_map: '{"repo.code":"read","repo.issues":"write"}' }, 'pulls')).toBe(0);
    expect(teamUnitMode({ authorize: 1, units_map: '{"repo.code":"none"}' }, 'code')).toBe(0);
    expect(teamUnitMode({ authorize: 3, units_map: '{"repo.code":"read"}' }, 'wiki')).toBe(3);
    expect(teamUnitMode({ authorize: 4, units_map: '{}' }, 'code')).toBe(3);
    expect(teamUnitMode({ authorize: 2, units_map: '{}' }, 'code')).toBe(2);
    expect(teamUnitMode({ authorize: 2, units_map: 'not json' }, 'code')).toBe(2);
  });
});
