import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';

/**
 * The group-mapping service (`plugins/group-mapping`), called as the identity plugins call it — by
 * a fixture plugin that requires it — against real organizations and teams, with the kernel's new
 * contracts underneath (team seats with their organization membership, site flags). Runs on every
 * database.
 */

const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };
const MAP = {
  developers: { acme: ['devs'], beta: ['builders'] },
  operators: { acme: ['ops', 'devs'] },
  // Names compare in any case, as the forge's organization and team names do.
  auditors: { ACME: ['AUDIT'] },
  ghosts: { 'no-such-org': ['x'], acme: ['no-such-team'] },
};

interface Report {
  user: { name: string; isAdmin: boolean; isRestricted: boolean };
  added: Array<{ org: string; team: string }>;
  removed: Array<{ org: string; team: string }>;
  problems: string[];
}

let server: TestServer;
const teams: Record<string, number> = {};
const logLines: string[] = [];

async function sync(input: Record<string, unknown>): Promise<Report> {
  const lines: string[] = [];
  await server.kernel
    .commandsOf('group-probe')
    .get('sync')!
    .run([JSON.stringify({ map: MAP, removal: false, ...input })], (l) => lines.push(l));
  return JSON.parse(lines[0]) as Report;
}

async function teamsOf(user: string): Promise<string[]> {
  const names: string[] = [];
  for (const [key, id] of Object.entries(teams)) {
    if ((await server.api('GET', `/teams/${id}/members/${user}`, admin)).status === 200) names.push(key);
  }
  return names.sort();
}

const isMemberOf = async (org: string, user: string) => (await server.api('GET', `/orgs/${org}/members/${user}`, admin)).status === 204;

beforeAll(async () => {
  server = await startServer(
    {
      plugins: {
        'group-mapping': { enabled: true },
        'group-probe': { package: path.join(__dirname, 'fixtures', 'plugins', 'group-probe') },
      },
    },
    { logLines },
  );
  for (const org of ['acme', 'beta']) expect((await server.api('POST', '/orgs', { ...admin, body: { username: org } })).status).toBe(201);
  for (const [org, team] of [
    ['acme', 'devs'],
    ['acme', 'ops'],
    ['acme', 'audit'],
    ['acme', 'unmapped'],
    ['beta', 'builders'],
  ]) {
    const res = await server.api('POST', `/orgs/${org}/teams`, {
      ...admin,
      body: { name: team, permission: 'read', units: ['repo.code'] },
    });
    expect(res.status).toBe(201);
    teams[`${org}/${team}`] = res.body.id;
  }
  const acmeTeams = await server.api('GET', '/orgs/acme/teams', admin);
  teams['acme/Owners'] = acmeTeams.body.find((t: { name: string }) => t.name === 'Owners').id;
});

afterAll(() => server.close());

test('adds the user to the teams of their groups, and to the organizations with them; names compare in any case', async () => {
  await server.user('hana');
  const report = await sync({ user: 'hana', groups: ['developers', 'auditors', 'not-in-the-map'] });
  expect(report.added).toEqual([
    { org: 'acme', team: 'devs' },
    { org: 'beta', team: 'builders' },
    { org: 'ACME', team: 'AUDIT' },
  ]);
  expect(await teamsOf('hana')).toEqual(['acme/audit', 'acme/devs', 'beta/builders']);
  expect(await isMemberOf('acme', 'hana')).toBe(true);
  expect(await isMemberOf('beta', 'hana')).toBe(true);
  // Nothing to do the second time.
  const again = await sync({ user: 'hana', groups: ['developers', 'auditors'] });
  expect([again.added, again.removed]).toEqual([[], []]);
});

test('unknown organizations and teams are reported and logged; the rest is applied', async () => {
  await server.user('ivan');
  const report = await sync({ user: 'ivan', groups: ['ghosts', 'operators'] });
  expect(report.problems).toEqual([
    'the organization "no-such-org" in the group map does not exist',
    'the team "no-such-team" of the organization "acme" in the group map does not exist',
  ]);
  expect(await teamsOf('ivan')).toEqual(['acme/devs', 'acme/ops']);
  expect(logLines.some((l) => l.includes('group mapping: not everything was applied') && l.includes('ivan'))).toBe(true);
});

test('without removal nothing is taken away; with it only mapped teams of lost groups go, never unmapped ones', async () => {
  await server.user('jo');
  await sync({ user: 'jo', groups: ['developers', 'operators'] });
  expect((await server.api('PUT', `/teams/${teams['acme/unmapped']}/members/jo`, admin)).status).toBe(204);
  expect(await teamsOf('jo')).toEqual(['acme/devs', 'acme/ops', 'acme/unmapped', 'beta/builders']);

  expect((await sync({ user: 'jo', groups: [] })).removed).toEqual([]);
  expect(await teamsOf('jo')).toEqual(['acme/devs', 'acme/ops', 'acme/unmapped', 'beta/builders']);

  // devs stays: operators maps to it too.
  const lostDevelopers = await sync({ user: 'jo', groups: ['operators'], removal: true });
  expect(lostDevelopers.removed).toEqual([{ org: 'beta', team: 'builders' }]);
  expect(await teamsOf('jo')).toEqual(['acme/devs', 'acme/ops', 'acme/unmapped']);
  // The organization membership goes with the last team in it, as through the team member API.
  expect(await isMemberOf('beta', 'jo')).toBe(false);

  const lostAll = await sync({ user: 'jo', groups: [], removal: true });
  expect(lostAll.removed).toEqual([
    { org: 'acme', team: 'devs' },
    { org: 'acme', team: 'ops' },
  ]);
  expect(await teamsOf('jo')).toEqual(['acme/unmapped']);
  expect(await isMemberOf('acme', 'jo')).toBe(true);
});

test('the admin and restricted groups set and clear the flags; a flag the source decided itself wins', async () => {
  await server.user('kai');
  const groups = { adminGroup: 'forge-admins', restrictedGroup: 'guests' };
  expect((await sync({ user: 'kai', groups: ['forge-admins'], ...groups })).user).toMatchObject({ isAdmin: true, isRestricted: false });
  expect((await sync({ user: 'kai', groups: ['guests'], ...groups })).user).toMatchObject({ isAdmin: false, isRestricted: true });
  expect((await sync({ user: 'kai', groups: [], ...groups })).user).toMatchObject({ isAdmin: false, isRestricted: false });
  // No admin group: the flag is not managed.
  await sync({ user: 'kai', groups: ['forge-admins'], ...groups });
  expect((await sync({ user: 'kai', groups: [] })).user).toMatchObject({ isAdmin: true });
  expect((await sync({ user: 'kai', groups: ['forge-admins'], ...groups, isAdmin: false })).user).toMatchObject({ isAdmin: false });
});

test('what the forge refuses (the last owner, the last site administrator) is reported, not fatal', async () => {
  const ownersMap = { owners: { acme: ['Owners'] }, developers: { acme: ['devs'] } };
  const report = await sync({ user: ADMIN.name, groups: ['developers'], map: ownersMap, removal: true, adminGroup: 'forge-admins' });
  expect(report.added).toEqual([{ org: 'acme', team: 'devs' }]);
  expect(report.removed).toEqual([]);
  expect(report.problems).toEqual([
    `removing ${ADMIN.name} from acme/Owners: the last member of the Owners team cannot be removed`,
    `setting the flags of ${ADMIN.name}: the last site administrator cannot be removed or demoted`,
  ]);
  expect(report.user.isAdmin).toBe(true);
  expect(await teamsOf(ADMIN.name)).toEqual(['acme/Owners', 'acme/devs']);
});
