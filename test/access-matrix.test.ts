import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ADMIN, startServer, type TestServer } from './helpers/server';

/**
 * The permission matrix. Every operation the router registered (read from the kernel, not a hand
 * list) is called by each kind of caller against targets of each kind of owner, and the answer is
 * compared with an oracle written out here from the README's visibility and unit tables — not
 * with the access module itself:
 * - a target the caller may not see answers 404, one it sees without the level asked 403, a
 *   missing credential 401, whatever the method, before any input is looked at;
 * - a caller who may read gets past the access check (reads only, so fixtures stay intact; a
 *   write collaborator's writes are not sent, its admin operations must be 403);
 * - repository lists (search, a user's and an organization's repositories, issue search) and the
 *   git transport show exactly the repositories the oracle says are readable.
 * It fails when a route is added without an access declaration or declares one that does not fit
 * its path.
 */

type Caller = 'anonymous' | 'stranger' | 'restricted' | 'member' | 'partial' | 'collab' | 'collabWrite' | 'owner' | 'admin' | 'publicOnly';
type OwnerKind = 'pub-org' | 'lim-org' | 'priv-org' | 'pub-user' | 'priv-user';
type Need = 'read' | 'write' | 'admin';
type Access =
  | 'anyone'
  | 'caller'
  | 'site-admin'
  | { repo: { need: Need; unit?: string }; params?: { owner: string; repo: string } }
  | { org: 'visible' | 'member' | 'owner'; param?: string }
  | { user: 'visible' | 'self-or-admin'; param?: string }
  | { team: 'member' | 'owner'; param?: string }
  | { packages: 'read' | 'write'; param?: string };
interface Op {
  method: string;
  path: string;
  auth: string;
  access: Access;
  owner: string;
}

const OWNER_KINDS: OwnerKind[] = ['pub-org', 'lim-org', 'priv-org', 'pub-user', 'priv-user'];
const VISIBILITY: Record<OwnerKind, 'public' | 'limited' | 'private'> = {
  'pub-org': 'public',
  'lim-org': 'limited',
  'priv-org': 'private',
  'pub-user': 'public',
  'priv-user': 'private',
};
const isOrg = (kind: OwnerKind) => kind.endsWith('-org');
const ownerName = (kind: OwnerKind) => `mx-${kind}`;
const ORG_OWNER = 'mx-org-owner';
const LEVEL: Record<Need, number> = { read: 1, write: 2, admin: 3 };

// --- the oracle (README, "Permissions") ---------------------------------------------------------

/** Is the caller the owner of repositories of this kind (the user themself, or in the Owners team)? */
const owns = (caller: Caller, _kind: OwnerKind) => caller === 'owner';
const orgMember = (caller: Caller, kind: OwnerKind) => isOrg(kind) && (caller === 'member' || caller === 'partial' || caller === 'owner');

function ownerVisible(caller: Caller, kind: OwnerKind): boolean {
  if (caller === 'admin' || owns(caller, kind)) return true;
  if (caller === 'anonymous' || caller === 'publicOnly') return VISIBILITY[kind] === 'public';
  if (orgMember(caller, kind)) return true;
  if (caller === 'restricted') return false;
  return VISIBILITY[kind] !== 'private';
}

/** The caller's repository-wide level (0–3) on the fixture repository of this owner kind and privacy. */
function repoLevel(caller: Caller, kind: OwnerKind, isPrivate: boolean): number {
  if (caller === 'admin' || owns(caller, kind)) return 3;
  if (caller === 'anonymous' || caller === 'publicOnly') return !isPrivate && VISIBILITY[kind] === 'public' ? 1 : 0;
  if (caller === 'collab' && isPrivate) return 1; // a read collaborator on every private fixture, even of a private owner
  if (caller === 'collabWrite' && isPrivate) return 2; // a write collaborator on every private fixture
  if (caller === 'partial' && isOrg(kind)) return 1; // its team covers all repositories, with the issues unit only
  if (caller === 'restricted') return 0;
  return ownerVisible(caller, kind) && !isPrivate ? 1 : 0;
}

/** The level on one unit: the issues-only team narrows private repositories; public ones read every other unit. */
function unitLevel(caller: Caller, kind: OwnerKind, isPrivate: boolean, unit: string | undefined): number {
  const level = repoLevel(caller, kind, isPrivate);
  if (!unit || level === 0) return level;
  if (caller === 'partial' && isOrg(kind) && isPrivate) return unit === 'issues' ? 1 : 0;
  return level;
}

/** What an operation must answer before its handler: a status, or 'pass' (the access check lets it through). */
type Verdict = 401 | 403 | 404 | 'pass';

function credentialVerdict(op: Op, caller: Caller): Verdict | null {
  const anonymous = caller === 'anonymous';
  if (anonymous && ['required', 'siteAdmin', 'basic'].includes(op.auth)) return 401;
  if (caller === 'publicOnly' && op.auth === 'basic') return 401;
  if (op.auth === 'siteAdmin' && caller !== 'admin') return 403;
  return null;
}

// --- fixtures -----------------------------------------------------------------------------------

let server: TestServer;
let operations: Op[] = [];
const passwords = new Map<string, string>();
const publicOnlyTokens = new Map<string, string>();
const teamIds: Record<string, number> = {};
const ALL_SCOPES = [
  'delete:admin',
  'delete:repository',
  'delete:issue',
  'delete:organization',
  'delete:user',
  'delete:package',
  'delete:notification',
  'delete:misc',
  'delete:activitypub',
];
const CALLER_USERS: Partial<Record<Caller, string>> = {
  stranger: 'mx-stranger',
  restricted: 'mx-restricted',
  member: 'mx-member',
  partial: 'mx-partial',
  collab: 'mx-collab',
  collabWrite: 'mx-writer',
  admin: ADMIN.name,
};

/** The user a caller kind is, for targets of an owner kind. */
function callerUser(caller: Caller, kind: OwnerKind): string | null {
  if (caller === 'anonymous') return null;
  if (caller === 'owner' || caller === 'publicOnly') return isOrg(kind) ? ORG_OWNER : ownerName(kind);
  return CALLER_USERS[caller]!;
}

async function call(method: string, path: string, caller: Caller, kind: OwnerKind, body?: unknown) {
  const user = callerUser(caller, kind);
  if (user === null) return server.api(method, path, { body });
  if (caller === 'publicOnly') return server.api(method, path, { token: publicOnlyTokens.get(user)!, body });
  return server.api(method, path, { basic: [user, passwords.get(user)!], body });
}

beforeAll(async () => {
  server = await startServer();
  passwords.set(ADMIN.name, ADMIN.password);
  const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };
  const must = async (what: string, reply: Promise<{ status: number; text: string }>, ...ok: number[]) => {
    const r = await reply;
    if (!(ok.length ? ok : [200, 201, 204]).includes(r.status)) throw new Error(`${what}: ${r.status} ${r.text}`);
    return r as { status: number; text: string; body?: any };
  };
  for (const name of [
    ORG_OWNER,
    'mx-stranger',
    'mx-restricted',
    'mx-member',
    'mx-partial',
    'mx-collab',
    'mx-writer',
    ownerName('pub-user'),
  ]) {
    passwords.set(name, (await server.user(name)).password);
  }
  passwords.set(ownerName('priv-user'), (await server.user(ownerName('priv-user'), { visibility: 'private' })).password);
  await must(
    'restrict',
    server.api('PATCH', '/admin/users/mx-restricted', { ...admin, body: { restricted: true, login_name: 'mx-restricted', source_id: 0 } }),
  );
  const as = (name: string) => ({ basic: [name, passwords.get(name)!] as [string, string] });
  for (const kind of OWNER_KINDS) {
    const owner = ownerName(kind);
    if (isOrg(kind)) {
      await must(`org ${kind}`, server.api('POST', '/orgs', { ...as(ORG_OWNER), body: { username: owner, visibility: VISIBILITY[kind] } }));
      for (const name of ['open', 'closed']) {
        await must(
          `repo ${owner}/${name}`,
          server.api('POST', `/orgs/${owner}/repos`, { ...as(ORG_OWNER), body: { name, private: name === 'closed', auto_init: true } }),
        );
      }
      const plain = await must(
        'team plain',
        server.api('POST', `/orgs/${owner}/teams`, {
          ...as(ORG_OWNER),
          body: { name: 'plain', permission: 'read', includes_all_repositories: false, units: ['repo.code', 'repo.issues'] },
        }),
      );
      teamIds[`${kind}:plain`] = (plain as any).body.id;
      const partial = await must(
        'team issues-only',
        server.api('POST', `/orgs/${owner}/teams`, {
          ...as(ORG_OWNER),
          body: { name: 'issues-only', includes_all_repositories: true, units_map: { 'repo.issues': 'read' } },
        }),
      );
      teamIds[`${kind}:issues-only`] = (partial as any).body.id;
      await must('member', server.api('PUT', `/teams/${teamIds[`${kind}:plain`]}/members/mx-member`, as(ORG_OWNER)));
      await must('partial', server.api('PUT', `/teams/${teamIds[`${kind}:issues-only`]}/members/mx-partial`, as(ORG_OWNER)));
    } else {
      for (const name of ['open', 'closed']) {
        await must(
          `repo ${owner}/${name}`,
          server.api('POST', '/user/repos', { ...as(owner), body: { name, private: name === 'closed', auto_init: true } }),
        );
      }
    }
    const creator = isOrg(kind) ? ORG_OWNER : owner;
    await must(
      'collaborator',
      server.api('PUT', `/repos/${owner}/closed/collaborators/mx-collab`, { ...as(creator), body: { permission: 'read' } }),
    );
    await must(
      'writer',
      server.api('PUT', `/repos/${owner}/closed/collaborators/mx-writer`, { ...as(creator), body: { permission: 'write' } }),
    );
    for (const name of ['open', 'closed']) {
      await must(
        'issue',
        server.api('POST', `/repos/${owner}/${name}/issues`, { ...as(creator), body: { title: `issue of ${owner}/${name}` } }),
      );
    }
  }
  for (const user of [ORG_OWNER, ownerName('pub-user'), ownerName('priv-user')]) {
    publicOnlyTokens.set(
      user,
      await server.token({ name: user, password: passwords.get(user)! }, [
        'public-only',
        ...ALL_SCOPES.filter((s) => s !== 'delete:admin'),
      ]),
    );
  }
  operations = server.kernel.apiOperations.map(({ op, owner }) => ({
    method: op.method.toUpperCase(),
    path: op.path,
    auth: op.auth ?? 'optional',
    access: op.access as Access,
    owner,
  }));
}, 180000);
afterAll(() => server?.close());

/**
 * Fill a path: the target's parameters from the fixture, other parameters with values that exist
 * and pass validation (the caller's own name for a user, the target organization or a public one),
 * so that a 404 or 403 can only come from the access check.
 */
function fill(path: string, values: Record<string, string>, self = 'mx-stranger'): string {
  return path.replace(/\{([^}*]+)\*?\}/g, (_, name: string) => {
    if (name in values) return encodeURIComponent(values[name]);
    switch (name) {
      case 'index':
      case 'id':
      case 'position':
      case 'attachment_id':
        return '1';
      case 'username':
      case 'collaborator':
      case 'user':
      case 'target':
        return self;
      case 'org':
        return values.orgName ?? ownerName('pub-org');
      case 'repo':
        return 'open';
      case 'diffType':
        return 'diff';
      case 'team':
        return 'Owners';
      case 'filepath':
        return 'README.md';
      case 'branch':
      case 'ref':
      case 'sha':
      case 'base':
      case 'head':
      case 'name':
      case 'tag':
        return 'main';
      default:
        return 'x';
    }
  });
}

// --- declarations -------------------------------------------------------------------------------

test('every registered operation declares access that fits its path', () => {
  expect(operations.length).toBeGreaterThan(250);
  // Operations whose target is not the path's first object, each for a stated reason.
  const EXCEPTIONS: Record<string, string> = {
    // The recipient of a pending transfer may not read the repository yet; the handler checks they are the recipient.
    'POST /repos/{owner}/{repo}/transfer/accept': 'caller',
    'POST /repos/{owner}/{repo}/transfer/reject': 'caller',
    // The caller must administer the repository; the handler then checks the team (organization
    // owners, or repository admins under repo_admin_change_team_access).
    'PUT /teams/{id}/repos/{org}/{repo}': 'repo',
    'DELETE /teams/{id}/repos/{org}/{repo}': 'repo',
  };
  const problems: string[] = [];
  for (const op of operations) {
    const a = op.access as any;
    const where = `${op.method} ${op.path} (${op.owner})`;
    if (a === undefined) {
      problems.push(`${where}: no access declaration`);
      continue;
    }
    const kind = typeof a === 'string' ? a : Object.keys(a).find((k) => k !== 'params' && k !== 'param');
    const expectKind = (k: string) => {
      if (kind !== (EXCEPTIONS[`${op.method} ${op.path}`] ?? k))
        problems.push(`${where}: declares ${kind}, a path like this one needs ${k}`);
    };
    if (/^\/repos\/\{owner\}\/\{repo\}/.test(op.path)) expectKind('repo');
    else if (/^\/orgs\/\{org\}/.test(op.path)) {
      if (kind !== 'org' && kind !== 'site-admin') expectKind('org');
    } else if (/^\/teams\/\{id\}/.test(op.path)) expectKind('team');
    else if (/^\/admin\//.test(op.path)) expectKind('site-admin');
    else if (/^\/users\/\{username\}/.test(op.path)) expectKind('user');
    else if (/^\/packages\/\{owner\}/.test(op.path)) expectKind('packages');
    else if (/^\/(user|notifications)(\/|$)/.test(op.path) && !op.path.includes('{owner}/{repo}')) expectKind('caller');
  }
  expect(problems).toEqual([]);
});

// --- the matrix ---------------------------------------------------------------------------------

interface Case {
  caller: Caller;
  kind: OwnerKind;
  isPrivate: boolean;
}
const REPO_CASES: Case[] = [
  { caller: 'anonymous', kind: 'priv-org', isPrivate: false },
  { caller: 'stranger', kind: 'priv-org', isPrivate: false },
  { caller: 'anonymous', kind: 'lim-org', isPrivate: false },
  { caller: 'stranger', kind: 'lim-org', isPrivate: false },
  { caller: 'stranger', kind: 'priv-user', isPrivate: false },
  { caller: 'restricted', kind: 'pub-user', isPrivate: false },
  { caller: 'restricted', kind: 'pub-org', isPrivate: false },
  { caller: 'publicOnly', kind: 'pub-user', isPrivate: true },
  { caller: 'publicOnly', kind: 'priv-user', isPrivate: false },
  { caller: 'member', kind: 'priv-org', isPrivate: true },
  { caller: 'member', kind: 'priv-org', isPrivate: false },
  { caller: 'partial', kind: 'pub-org', isPrivate: true },
  { caller: 'partial', kind: 'priv-org', isPrivate: false },
  { caller: 'collab', kind: 'priv-org', isPrivate: true },
  { caller: 'collab', kind: 'priv-user', isPrivate: true },
  { caller: 'collab', kind: 'priv-user', isPrivate: false },
  { caller: 'collabWrite', kind: 'priv-org', isPrivate: true },
  { caller: 'collabWrite', kind: 'pub-user', isPrivate: true },
  { caller: 'stranger', kind: 'pub-org', isPrivate: false },
  { caller: 'owner', kind: 'priv-user', isPrivate: true },
  { caller: 'admin', kind: 'priv-org', isPrivate: true },
];

function repoVerdict(op: Op, c: Case): Verdict {
  const access = op.access as { repo: { need: Need; unit?: string } };
  const credential = credentialVerdict(op, c.caller);
  if (credential) return credential;
  const level = unitLevel(c.caller, c.kind, c.isPrivate, access.repo.unit);
  if (level === 0) return 404;
  if (level < LEVEL[access.repo.need]) return 403;
  return 'pass';
}

/** The message of a 404 from the access check itself (as opposed to a missing issue, branch, …). */
const ACCESS_404 =
  /^(repository does not exist|the \w+ unit of this repository|organization does not exist|user does not exist|team does not exist)/;

async function check(op: Op, verdict: Verdict, path: string, caller: Caller, kind: OwnerKind, failures: string[], label: string) {
  // Writes run only where the caller must be refused: the fixtures stay as they are.
  if (verdict === 'pass' && op.method !== 'GET') return;
  const reply = await call(op.method, path, caller, kind, op.method === 'GET' ? undefined : {});
  const message = typeof reply.body === 'object' && reply.body ? String(reply.body.message ?? '') : '';
  if (verdict === 'pass') {
    if (reply.status === 401 || reply.status === 403 || (reply.status === 404 && ACCESS_404.test(message))) {
      failures.push(`${op.method} ${path} as ${label}: expected to pass the access check, got ${reply.status} ${message}`);
    }
  } else if (reply.status !== verdict) {
    failures.push(`${op.method} ${path} as ${label}: expected ${verdict}, got ${reply.status} ${message || reply.text.slice(0, 120)}`);
  }
}

test('repository operations: 404 when not visible, 403 when the level is missing, through for readers', async () => {
  const failures: string[] = [];
  for (const op of operations.filter((o) => typeof o.access === 'object' && 'repo' in o.access)) {
    const params = (op.access as any).params ?? { owner: 'owner', repo: 'repo' };
    for (const c of REPO_CASES) {
      const path = fill(
        op.path,
        { [params.owner]: ownerName(c.kind), [params.repo]: c.isPrivate ? 'closed' : 'open' },
        callerUser(c.caller, c.kind) ?? 'mx-stranger',
      );
      await check(op, repoVerdict(op, c), path, c.caller, c.kind, failures, `${c.caller} on ${c.kind}/${c.isPrivate ? 'closed' : 'open'}`);
    }
  }
  expect(failures).toEqual([]);
}, 600000);

test('organization, user, team, package, caller and site-admin operations', async () => {
  const failures: string[] = [];
  const orgRole = (caller: Caller, kind: OwnerKind, role: 'visible' | 'member' | 'owner'): Verdict => {
    if (!ownerVisible(caller, kind)) return 404;
    if (role === 'visible' || caller === 'admin') return 'pass';
    if (role === 'member') return orgMember(caller, kind) ? 'pass' : 403;
    return caller === 'owner' ? 'pass' : 403;
  };
  const profileVisible = (caller: Caller, kind: OwnerKind) =>
    isOrg(kind)
      ? ownerVisible(caller, kind)
      : caller === 'admin' ||
        caller === 'owner' ||
        VISIBILITY[kind] === 'public' ||
        (VISIBILITY[kind] === 'limited' && !['anonymous', 'publicOnly', 'restricted'].includes(caller));
  for (const op of operations) {
    const a = op.access as any;
    if (a === 'caller' || a === 'site-admin') {
      for (const caller of ['anonymous', 'stranger'] as Caller[]) {
        const verdict = credentialVerdict(op, caller) ?? (caller === 'anonymous' ? 401 : a === 'site-admin' ? 403 : 'pass');
        await check(op, verdict, fill(op.path, {}, callerUser(caller, 'pub-user') ?? 'mx-stranger'), caller, 'pub-user', failures, caller);
      }
    } else if (typeof a === 'object' && 'org' in a) {
      const cases: Array<[Caller, OwnerKind]> = [
        ['anonymous', 'priv-org'],
        ['stranger', 'priv-org'],
        ['anonymous', 'lim-org'],
        ['restricted', 'pub-org'],
        ['stranger', 'pub-org'],
        ['member', 'priv-org'],
        ['owner', 'priv-org'],
      ];
      for (const [caller, kind] of cases) {
        const verdict = credentialVerdict(op, caller) ?? orgRole(caller, kind, a.org);
        await check(
          op,
          verdict,
          fill(op.path, { [a.param ?? 'org']: ownerName(kind) }, callerUser(caller, kind) ?? 'mx-stranger'),
          caller,
          kind,
          failures,
          `${caller} on ${kind}`,
        );
      }
    } else if (typeof a === 'object' && 'user' in a) {
      const cases: Array<[Caller, OwnerKind]> = [
        ['anonymous', 'priv-user'],
        ['stranger', 'priv-user'],
        ['stranger', 'pub-user'],
        ['restricted', 'priv-user'],
        ['stranger', 'priv-org'],
        ['owner', 'pub-user'],
        ['admin', 'priv-user'],
      ];
      for (const [caller, kind] of cases) {
        let verdict = credentialVerdict(op, caller);
        if (!verdict) {
          if (!profileVisible(caller, kind)) verdict = 404;
          else verdict = a.user === 'self-or-admin' && caller !== 'admin' && !(caller === 'owner' && !isOrg(kind)) ? 403 : 'pass';
        }
        await check(
          op,
          verdict,
          fill(op.path, { [a.param ?? 'username']: ownerName(kind) }),
          caller,
          kind,
          failures,
          `${caller} on ${kind}`,
        );
      }
    } else if (typeof a === 'object' && 'team' in a) {
      const cases: Array<[Caller, string, OwnerKind]> = [
        ['stranger', 'priv-org:plain', 'priv-org'],
        ['anonymous', 'pub-org:plain', 'pub-org'],
        ['partial', 'pub-org:plain', 'pub-org'],
        ['member', 'priv-org:plain', 'priv-org'],
        ['owner', 'priv-org:plain', 'priv-org'],
      ];
      for (const [caller, team, kind] of cases) {
        let verdict = credentialVerdict(op, caller);
        if (!verdict) {
          if (!ownerVisible(caller, kind) || !orgMember(caller, kind)) verdict = caller === 'anonymous' ? 401 : 404;
          else if (caller === 'owner') verdict = 'pass';
          else verdict = a.team === 'member' && caller === 'member' ? 'pass' : 403;
        }
        // An anonymous caller never gets past a team route's credential requirement.
        if (caller === 'anonymous' && verdict === 404) verdict = 401;
        await check(
          op,
          verdict,
          fill(op.path, { [a.param ?? 'id']: String(teamIds[team]), orgName: ownerName(kind) }, callerUser(caller, kind) ?? 'mx-stranger'),
          caller,
          kind,
          failures,
          `${caller} on team ${team}`,
        );
      }
    } else if (typeof a === 'object' && 'packages' in a) {
      const cases: Array<[Caller, OwnerKind]> = [
        ['stranger', 'priv-org'],
        ['anonymous', 'lim-org'],
        ['stranger', 'priv-user'],
        ['stranger', 'pub-user'],
        ['owner', 'pub-user'],
      ];
      for (const [caller, kind] of cases) {
        let verdict = credentialVerdict(op, caller);
        if (!verdict) {
          if (!ownerVisible(caller, kind)) verdict = 404;
          else if (a.packages === 'write' && caller !== 'owner') verdict = caller === 'anonymous' ? 401 : 403;
          else verdict = 'pass';
        }
        await check(
          op,
          verdict,
          fill(op.path, { [a.param ?? 'owner']: ownerName(kind), type: 'generic' }),
          caller,
          kind,
          failures,
          `${caller} on ${kind}`,
        );
      }
    }
  }
  expect(failures).toEqual([]);
}, 600000);

// --- lists and the git transport ------------------------------------------------------------------

const LIST_CALLERS: Caller[] = ['anonymous', 'stranger', 'restricted', 'member', 'partial', 'collab', 'collabWrite', 'admin', 'publicOnly'];
const FIXTURES = OWNER_KINDS.flatMap((kind) =>
  [false, true].map((isPrivate) => ({ kind, isPrivate, fullName: `${ownerName(kind)}/${isPrivate ? 'closed' : 'open'}` })),
);

/** For list checks, 'publicOnly' is the public-only token of the public user (not an owner of the other fixtures). */
const listKind: OwnerKind = 'pub-user';
const readableBy = (caller: Caller) =>
  new Set(
    FIXTURES.filter((f) => {
      if (caller === 'publicOnly') return !f.isPrivate && VISIBILITY[f.kind] === 'public';
      return repoLevel(caller, f.kind, f.isPrivate) > 0;
    }).map((f) => f.fullName),
  );
const fixtureNames = (items: Array<{ full_name: string }>) => new Set(items.map((r) => r.full_name).filter((n) => n.startsWith('mx-')));

test('repository search, user and organization repository lists show exactly the readable repositories', async () => {
  for (const caller of LIST_CALLERS) {
    const expected = readableBy(caller);
    const search = await call('GET', '/repos/search?limit=50', caller, listKind);
    expect(search.status).toBe(200);
    expect([...fixtureNames(search.body.data)].sort()).toEqual([...expected].sort());
    for (const kind of OWNER_KINDS) {
      const owner = ownerName(kind);
      const reply = await call('GET', `${isOrg(kind) ? `/orgs/${owner}` : `/users/${owner}`}/repos?limit=50`, caller, listKind);
      const ownerSeen =
        caller === 'publicOnly'
          ? VISIBILITY[kind] === 'public'
          : isOrg(kind)
            ? ownerVisible(caller, kind)
            : caller === 'admin' ||
              VISIBILITY[kind] === 'public' ||
              (VISIBILITY[kind] === 'limited' && !['anonymous', 'restricted'].includes(caller));
      if (!ownerSeen) {
        expect({ caller, owner, status: reply.status }).toEqual({ caller, owner, status: 404 });
        continue;
      }
      expect({ caller, owner, status: reply.status }).toEqual({ caller, owner, status: 200 });
      const mine = [...expected].filter((n) => n.startsWith(`${owner}/`)).sort();
      expect({ caller, owner, repos: [...fixtureNames(reply.body)].sort() }).toEqual({ caller, owner, repos: mine });
    }
  }
}, 120000);

test('issue search lists issues of exactly the repositories whose issues the caller may read', async () => {
  for (const caller of LIST_CALLERS) {
    const reply = await call('GET', '/repos/issues/search?limit=50&state=all', caller, listKind);
    expect(reply.status).toBe(200);
    const seen = new Set(
      (reply.body as Array<{ repository: { full_name: string } }>).map((i) => i.repository.full_name).filter((n) => n.startsWith('mx-')),
    );
    expect({ caller, repos: [...seen].sort() }).toEqual({ caller, repos: [...readableBy(caller)].sort() });
  }
}, 120000);

const run = promisify(execFile);

// Asynchronous on purpose: the server runs in this process, so a synchronous child would deadlock it.
test('the git transport lets exactly the callers who may read the code list refs', async () => {
  const base = new URL(server.url);
  for (const caller of ['anonymous', 'stranger', 'restricted', 'member', 'partial', 'collab', 'admin'] as Caller[]) {
    for (const f of FIXTURES) {
      const user = callerUser(caller, f.kind);
      const url = new URL(`${f.fullName}.git`, base);
      if (user) {
        url.username = user;
        url.password = passwords.get(user)!;
      }
      const listed = await run('git', ['ls-remote', url.toString()], {
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true' },
      }).then(
        ({ stdout }) => stdout.includes('refs/heads/main'),
        () => false,
      );
      // git sends credentials only when challenged: what anyone may read is read anonymously.
      const readable = unitLevel(caller, f.kind, f.isPrivate, 'code') > 0 || repoLevel('anonymous', f.kind, f.isPrivate) > 0;
      expect({ caller, repo: f.fullName, listed }).toEqual({ caller, repo: f.fullName, listed: readable });
    }
  }
}, 120000);

test('raw files follow the same rule', async () => {
  for (const caller of ['anonymous', 'stranger', 'restricted', 'partial', 'collab'] as Caller[]) {
    for (const f of FIXTURES) {
      const reply = await call('GET', `//${f.fullName}/raw/branch/main/README.md`, caller, f.kind);
      const readable = unitLevel(caller, f.kind, f.isPrivate, 'code') > 0;
      expect({ caller, repo: f.fullName, status: reply.status }).toEqual({ caller, repo: f.fullName, status: readable ? 200 : 404 });
    }
  }
}, 120000);
