import { ADMIN, type TestServer } from './helpers/server';
import { WebClient, textOf, webServer, mustCall } from './helpers/web';

/**
 * Organizations and site administration over plain HTTP, on one server (neither part depends on the
 * other's data: distinct users and organizations, counts read from the API).
 */
const SECRET_KEY = 'do-not-show-this-secret-key-1234567890';
const suite = webServer({ security: { SECRET_KEY } });

/**
 * The organization pages over plain HTTP: creating an organization, its settings and typed-confirmation
 * delete, people (public/private membership, removal), teams (create with unit permissions, members,
 * repositories, edit, the Owners team's rules, typed-confirmation delete). Non-owners are refused on
 * every page and form (403, or 404 where they may not see the organization; anonymous visitors sign in
 * first), forms need the CSRF token, and markup in descriptions renders inert.
 */
describe('organizations', () => {
  type User = { name: string; password: string; id: number };
  let server: TestServer;
  const users: Record<string, User> = {};
  const web: Record<string, WebClient> = {};

  const XSS = '<script>alert("org")</script><img src=x onerror=alert(1)>';

  function expectInert(html: string) {
    expect(html).not.toContain('<script>alert');
    expect(html).not.toMatch(/<img[^>]*onerror/);
  }

  async function api(user: User, method: string, path: string, body?: unknown) {
    return server.api(method, path, { basic: [user.name, user.password], body });
  }

  const must = (user: User, method: string, path: string, body?: unknown): Promise<any> =>
    mustCall(
      () => server,
      () => user,
    )(method, path, body);

  beforeAll(async () => {
    server = suite.server;
    for (const name of ['owner', 'member', 'stranger']) users[name] = await server.user(name);
    users.admin = { ...ADMIN, id: 0 };
    for (const name of ['owner', 'member', 'stranger', 'admin']) {
      web[name] = new WebClient(server);
      await web[name].signIn(users[name]);
    }
    web.anonymous = new WebClient(server);
    // A private organization the stranger may not see, with a team.
    await must(users.owner, 'POST', '/orgs', { username: 'hidden', visibility: 'private' });
    await must(users.owner, 'POST', '/orgs/hidden/teams', { name: 'crew', permission: 'read' });
  });

  describe('creating an organization', () => {
    test('anonymous visitors sign in first; the form creates it and leads to its page', async () => {
      const anon = await web.anonymous.get('/org/create');
      expect(anon.status).toBe(303);
      expect(anon.headers.get('location')).toBe('/user/login?redirect_to=%2Forg%2Fcreate');

      const form = await web.owner.get('/org/create');
      expect(form.status).toBe(200);
      expect(form.html).toContain('<label for="org_name">Organization name</label>');
      const res = await web.owner.post(
        '/org/create',
        { org_name: 'acme', full_name: 'Acme Corp', visibility: 'public', repo_admin_change_team_access: 'on' },
        { csrfFrom: '/org/create' },
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/acme');
      const org = await must(users.owner, 'GET', '/orgs/acme');
      expect(org).toMatchObject({ full_name: 'Acme Corp', visibility: 'public', repo_admin_change_team_access: true });
      const profile = await web.owner.get('/acme');
      expect(profile.status).toBe(200);
      expect(textOf(profile.html)).toContain('Acme Corp');
      expect(profile.html).toContain('href="/org/acme/members"');
      // A private organization's page is its members' only.
      expect((await web.owner.get('/hidden')).status).toBe(200);
      expect((await web.stranger.get('/hidden')).status).toBe(404);
      expect((await web.anonymous.get('/hidden')).status).toBe(404);
      // The creator is its owner: the Owners team holds them.
      const perms = await must(users.owner, 'GET', '/users/owner/orgs/acme/permissions');
      expect(perms.is_owner).toBe(true);
    });

    test('a taken or reserved name comes back with the API’s message and the values kept; no CSRF token is a 403', async () => {
      const taken = await web.owner.post(
        '/org/create',
        { org_name: 'acme', full_name: 'Again', visibility: 'limited' },
        { csrfFrom: '/org/create' },
      );
      expect(taken.status).toBe(422);
      expect(textOf(taken.html)).toContain('user already exists');
      expect(taken.html).toContain('value="Again"');
      expect(taken.html).toMatch(/id="visibility-limited"[^>]*checked/);
      const reserved = await web.owner.post('/org/create', { org_name: 'admin' }, { csrfFrom: '/org/create' });
      expect(reserved.status).toBe(422);
      expect(textOf(reserved.html)).toContain('reserved');
      const noCsrf = await web.owner.post('/org/create', { org_name: 'sneaky' }, { csrf: null });
      expect(noCsrf.status).toBe(403);
      expect((await api(users.owner, 'GET', '/orgs/sneaky')).status).toBe(404);
    });
  });

  describe('teams', () => {
    test('an owner creates a team with unit permissions, adds a member and a repository', async () => {
      await must(users.owner, 'POST', '/orgs/acme/repos', { name: 'anvil', private: true });
      const form = await web.owner.get('/org/acme/teams/new');
      expect(form.status).toBe(200);
      expect(form.html).toContain('<label for="unit_repo_issues">Issues</label>');
      const res = await web.owner.post(
        '/org/acme/teams/new',
        {
          team_name: 'devs',
          description: XSS,
          repo_access: 'specific',
          permission: 'units',
          unit_repo_code: 'read',
          unit_repo_issues: 'write',
          unit_repo_pulls: 'none',
        },
        { csrfFrom: '/org/acme/teams/new' },
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/org/acme/teams/devs');
      const teams = await must(users.owner, 'GET', '/orgs/acme/teams');
      const devs = teams.find((t: any) => t.name === 'devs');
      expect(devs.units_map).toMatchObject({ 'repo.code': 'read', 'repo.issues': 'write', 'repo.pulls': 'none' });
      expect(devs.includes_all_repositories).toBe(false);

      const add = await web.owner.post('/org/acme/teams/devs/action/add', { uname: 'member' }, { csrfFrom: '/org/acme/teams/devs' });
      expect(add.status).toBe(303);
      expect(add.headers.get('location')).toBe('/org/acme/teams/devs?done=added');
      const page = await web.owner.get(add.headers.get('location')!);
      expect(textOf(page.html)).toContain('The member was added.');
      expect(page.html).toContain('href="/member"');
      expect(textOf(page.html)).toContain('Code: read · Issues: write');
      expectInert(page.html);

      const repo = await web.owner.post(
        '/org/acme/teams/devs/action/repo/add',
        { repo_name: 'anvil' },
        { csrfFrom: '/org/acme/teams/devs' },
      );
      expect(repo.status).toBe(303);
      const repos = await web.owner.get('/org/acme/teams/devs/repositories');
      expect(repos.html).toContain('href="/acme/anvil"');
      // The member now reaches the private repository's issues with write access.
      const perms = await must(users.member, 'GET', '/repos/acme/anvil');
      expect(perms.permissions).toMatchObject({ pull: true });
      expect((await web.member.get('/acme/anvil/issues/new')).status).toBe(200);

      // An unknown user or repository is shown on the page, not as an error page.
      const ghost = await web.owner.post('/org/acme/teams/devs/action/add', { uname: 'nobody-here' }, { csrfFrom: '/org/acme/teams/devs' });
      expect(ghost.status).toBe(404);
      expect(ghost.html).toContain('Add member');
    });

    test('the teams list shows teams, their members and access, with descriptions inert', async () => {
      const list = await web.member.get('/org/acme/teams');
      expect(list.status).toBe(200);
      const text = textOf(list.html);
      expect(text).toContain('Owners');
      expect(text).toContain('devs');
      expect(text).toContain('1 member');
      expect(text).not.toContain('New team'); // members are not owners
      expectInert(list.html);
      expect(textOf((await web.owner.get('/org/acme/teams')).html)).toContain('New team');
    });

    test('editing a team changes its name and permissions; the Owners team changes only its description', async () => {
      const edit = await web.owner.get('/org/acme/teams/devs/edit');
      expect(edit.status).toBe(200);
      expect(edit.html).toMatch(/<option value="write" selected[^>]*>Write<\/option>/);
      const res = await web.owner.post(
        '/org/acme/teams/devs/edit',
        { team_name: 'builders', description: 'They build', repo_access: 'all', permission: 'admin', can_create_org_repo: 'on' },
        { csrfFrom: '/org/acme/teams/devs/edit' },
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/org/acme/teams/builders/edit?saved=1');
      const team = (await must(users.owner, 'GET', '/orgs/acme/teams')).find((t: any) => t.name === 'builders');
      expect(team).toMatchObject({ permission: 'admin', includes_all_repositories: true, can_create_org_repo: true });

      const bad = await web.owner.post(
        '/org/acme/teams/builders/edit',
        { team_name: 'no spaces allowed' },
        { csrfFrom: '/org/acme/teams' },
      );
      expect(bad.status).toBe(422);
      expect(textOf(bad.html)).toContain('team name is invalid');
      expect(bad.html).toContain('value="no spaces allowed"');

      const owners = await web.owner.get('/org/acme/teams/owners/edit');
      expect(owners.status).toBe(200);
      expect(owners.html).not.toContain('id="team_name"');
      expect(owners.html).not.toContain('Delete this team');
      const saved = await web.owner.post(
        '/org/acme/teams/Owners/edit',
        { description: 'The bosses', team_name: 'Renamed', permission: 'units' },
        { csrfFrom: '/org/acme/teams' },
      );
      expect(saved.status).toBe(303);
      const ownersTeam = (await must(users.owner, 'GET', '/orgs/acme/teams')).find((t: any) => t.permission === 'owner');
      expect(ownersTeam).toMatchObject({ name: 'Owners', description: 'The bosses' });
    });

    test('non-owners are refused on every team page and form; private organizations are a 404 for strangers', async () => {
      const member = web.member;
      for (const path of ['/org/acme/teams/new', '/org/acme/teams/builders/edit']) {
        expect([path, (await member.get(path)).status]).toEqual([path, 403]);
        expect([path, (await web.stranger.get(path)).status]).toEqual([path, 403]);
        expect([path, (await web.anonymous.get(path)).status]).toEqual([path, 303]);
      }
      expect((await web.stranger.get('/org/acme/teams')).status).toBe(403);
      expect((await web.stranger.get('/org/acme/teams/builders')).status).toBe(403);
      for (const path of [
        '/org/hidden/teams',
        '/org/hidden/teams/crew',
        '/org/hidden/teams/new',
        '/org/hidden/settings',
        '/org/hidden/members',
      ]) {
        const res = await web.stranger.get(path);
        expect([path, res.status]).toEqual([path, 404]);
        expect(textOf(res.html)).toContain('Page not found');
      }
      const posts: Array<[string, Record<string, string>]> = [
        ['/org/acme/teams/new', { team_name: 'intruders' }],
        ['/org/acme/teams/builders/edit', { team_name: 'pwned', description: 'pwned' }],
        ['/org/acme/teams/builders/delete', { team_name_confirm: 'builders' }],
        ['/org/acme/teams/builders/action/add', { uname: 'stranger' }],
        ['/org/acme/teams/builders/action/remove', { uname: 'member' }],
        ['/org/acme/teams/builders/action/repo/remove', { repo_name: 'anvil' }],
      ];
      for (const [path, fields] of posts) {
        // A team member who administers the repository may change its teams (repo_admin_change_team_access), as the API decides.
        const client = path.includes('/repo/') ? web.stranger : member;
        const res = await client.post(path, fields, { csrfFrom: '/' });
        expect([path, res.status]).toEqual([path, 403]);
        expect([path, (await web.owner.post(path, fields, { csrf: null })).status]).toEqual([path, 403]);
      }
      const hiddenPost = await web.stranger.post('/org/hidden/teams/new', { team_name: 'x' }, { csrfFrom: '/' });
      expect(hiddenPost.status).toBe(404);
      const teams = await must(users.owner, 'GET', '/orgs/acme/teams');
      expect(teams.map((t: any) => t.name).sort()).toEqual(['Owners', 'builders']);
      expect(await must(users.owner, 'GET', `/teams/${teams.find((t: any) => t.name === 'builders').id}/members`)).toHaveLength(1);
    });

    test('deleting a team needs its name typed', async () => {
      await must(users.owner, 'POST', '/orgs/acme/teams', { name: 'temp', permission: 'read' });
      const wrong = await web.owner.post('/org/acme/teams/temp/delete', { team_name_confirm: 'tmp' }, { csrfFrom: '/org/acme/teams' });
      expect(wrong.status).toBe(422);
      expect(textOf(wrong.html)).toContain('type its name, temp, exactly');
      expect((await must(users.owner, 'GET', '/orgs/acme/teams')).some((t: any) => t.name === 'temp')).toBe(true);
      const right = await web.owner.post('/org/acme/teams/temp/delete', { team_name_confirm: 'temp' }, { csrfFrom: '/org/acme/teams' });
      expect(right.status).toBe(303);
      expect(right.headers.get('location')).toBe('/org/acme/teams');
      expect((await must(users.owner, 'GET', '/orgs/acme/teams')).some((t: any) => t.name === 'temp')).toBe(false);
    });
  });

  describe('people', () => {
    test('members see each other with roles; a member publicizes their own membership; an owner removes a member', async () => {
      const page = await web.member.get('/org/acme/members');
      expect(page.status).toBe(200);
      let text = textOf(page.html);
      expect(text).toMatch(/owner\s+Owner/);
      expect(text).toMatch(/member\s+Member\s+Private membership/);
      expect(text).toContain('Make my membership public');
      expect(text).not.toContain('Remove'); // only owners remove
      // Anonymous visitors see only public members: none yet.
      expect(textOf((await web.anonymous.get('/org/acme/members')).html)).toContain('No public members.');

      const pub = await web.member.post('/org/acme/members/action/public', {}, { csrfFrom: '/org/acme/members' });
      expect(pub.status).toBe(303);
      text = textOf((await web.member.get(pub.headers.get('location')!)).html);
      expect(text).toContain('Your membership is now public.');
      expect(text).toMatch(/member\s+Member\s+Public membership/);
      expect((await web.anonymous.get('/org/acme/members')).html).toContain('href="/member"');

      // Another person's membership is theirs to change; strangers cannot remove anyone.
      const strangerRemove = await web.stranger.post('/org/acme/members/action/remove', { uname: 'member' }, { csrfFrom: '/' });
      expect(strangerRemove.status).toBe(403);
      const memberRemove = await web.member.post('/org/acme/members/action/remove', { uname: 'owner' }, { csrfFrom: '/' });
      expect(memberRemove.status).toBe(403);
      const noCsrf = await web.owner.post('/org/acme/members/action/remove', { uname: 'member' }, { csrf: null });
      expect(noCsrf.status).toBe(403);
      expect((await api(users.owner, 'GET', '/orgs/acme/members/member')).status).toBe(204);

      const ownerPage = await web.owner.get('/org/acme/members');
      expect(ownerPage.html).toContain('aria-label="Remove member from the organization"');
      const removed = await web.owner.post('/org/acme/members/action/remove', { uname: 'member' }, { csrfFrom: '/org/acme/members' });
      expect(removed.status).toBe(303);
      expect((await api(users.owner, 'GET', '/orgs/acme/members/member')).status).toBe(404);
      // The last owner stays: the API's refusal is shown.
      const last = await web.owner.post('/org/acme/members/action/remove', { uname: 'owner' }, { csrfFrom: '/org/acme/members' });
      expect(last.status).toBe(422);
    });
  });

  describe('settings', () => {
    test('owners edit the organization; descriptions render inert on every page', async () => {
      const page = await web.owner.get('/org/acme/settings');
      expect(page.status).toBe(200);
      expect(page.html).toContain('aria-current="page">Settings</a>');
      const res = await web.owner.post(
        '/org/acme/settings',
        { full_name: 'Acme Inc', description: XSS, website: 'https://acme.example', location: 'Earth', visibility: 'limited' },
        { csrfFrom: '/org/acme/settings' },
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/org/acme/settings?saved=1');
      const saved = await web.owner.get('/org/acme/settings?saved=1');
      expect(textOf(saved.html)).toContain('settings were saved');
      expect(saved.html).toMatch(/id="visibility-limited"[^>]*checked/);
      expectInert(saved.html);
      const org = await must(users.owner, 'GET', '/orgs/acme');
      expect(org).toMatchObject({ full_name: 'Acme Inc', description: XSS, website: 'https://acme.example', visibility: 'limited' });
      expect(org.repo_admin_change_team_access).toBe(false);
      for (const path of ['/acme', '/org/acme/members', '/org/acme/teams']) expectInert((await web.owner.get(path)).html);
    });

    test('non-owners are refused: anonymous visitors sign in, others get 403 (404 for an organization they cannot see)', async () => {
      expect((await web.anonymous.get('/org/acme/settings')).status).toBe(303);
      await must(users.owner, 'PUT', `/teams/${(await must(users.owner, 'GET', '/orgs/acme/teams'))[1].id}/members/member`);
      for (const client of [web.member, web.stranger]) {
        const res = await client.get('/org/acme/settings');
        expect(res.status).toBe(403);
        expect(res.html).not.toContain('name="full_name"');
        expect((await client.post('/org/acme/settings', { full_name: 'pwned' }, { csrfFrom: '/' })).status).toBe(403);
        expect((await client.post('/org/acme/settings/delete', { org_name: 'acme' }, { csrfFrom: '/' })).status).toBe(403);
      }
      expect((await web.owner.post('/org/acme/settings', { full_name: 'pwned' }, { csrf: null })).status).toBe(403);
      expect((await must(users.owner, 'GET', '/orgs/acme')).full_name).toBe('Acme Inc');
      // Site admins act as owners.
      expect((await web.admin.get('/org/acme/settings')).status).toBe(200);
    });

    test('deleting an organization needs its name typed and no repositories left', async () => {
      const wrong = await web.owner.post('/org/acme/settings/delete', { org_name: 'ACME' }, { csrfFrom: '/org/acme/settings' });
      expect(wrong.status).toBe(422);
      expect(textOf(wrong.html)).toContain('type its name, acme, exactly');
      const owned = await web.owner.post('/org/acme/settings/delete', { org_name: 'acme' }, { csrfFrom: '/org/acme/settings' });
      expect(owned.status).toBe(422);
      expect(textOf(owned.html)).toContain('still owns 1 repositories');
      await must(users.owner, 'DELETE', '/repos/acme/anvil');
      const done = await web.owner.post('/org/acme/settings/delete', { org_name: 'acme' }, { csrfFrom: '/org/acme/settings' });
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe('/');
      expect((await api(users.owner, 'GET', '/orgs/acme')).status).toBe(404);
    });
  });
});

/**
 * Site administration over plain HTTP: the dashboard's counts and version, users (search by name,
 * login name and source; create with a creation time; edit, rename, typed-confirmation delete with
 * purge), emails, organizations, repositories, system webhooks and the configuration summary (no
 * secrets). Every page and form refuses anyone but a site admin (anonymous visitors sign in first,
 * others get the API's 403), forms need the CSRF token, and markup in user data renders inert.
 */
describe('site administration', () => {
  type User = { name: string; password: string; id: number };
  let server: TestServer;
  let admin: WebClient;
  let plain: WebClient;
  let anonymous: WebClient;
  let carol: User;

  const must = mustCall(
    () => server,
    () => ADMIN,
  );

  function expectInert(html: string) {
    expect(html).not.toContain('<script>alert');
    expect(html).not.toMatch(/<img[^>]*onerror/);
  }

  beforeAll(async () => {
    server = suite.server;
    carol = await server.user('carol');
    await server.user('dave');
    admin = new WebClient(server);
    await admin.signIn(ADMIN);
    plain = new WebClient(server);
    await plain.signIn(carol);
    anonymous = new WebClient(server);
    await must('POST', '/admin/users', {
      username: 'ldapuser',
      email: 'ldapuser@example.com',
      password: 'ldap-password-1',
      login_name: 'cn=ldapuser',
      source_id: 7,
      full_name: '<script>alert("name")</script>',
    });
    await must('POST', '/orgs', { username: 'guild', full_name: 'The Guild' });
    await must('POST', '/admin/users/carol/repos', { name: 'secret-stash', private: true });
  });

  describe('access', () => {
    let hookId = 0;
    let carolPage = '';
    beforeAll(async () => {
      hookId = (await must('POST', '/admin/hooks', { type: 'gitea', config: { url: 'https://hooks.example/h', content_type: 'json' } })).id;
      carolPage = `/admin/users/${carol.id}`;
    });

    const pages = () => [
      '/admin',
      '/admin/users',
      '/admin/users?q=car',
      '/admin/users/new',
      carolPage,
      `${carolPage}/edit`,
      '/admin/emails',
      '/admin/orgs',
      '/admin/repos',
      '/admin/hooks',
      '/admin/system-hooks/gitea/new',
      `/admin/hooks/${hookId}`,
      '/admin/config',
    ];

    test('every page is for site admins: anonymous visitors sign in first, other users get 403', async () => {
      for (const path of pages()) {
        const anon = await anonymous.get(path);
        expect([path, anon.status]).toEqual([path, 303]);
        expect(anon.headers.get('location')).toMatch(/^\/user\/login\?redirect_to=/);
        const refused = await plain.get(path);
        expect([path, refused.status]).toEqual([path, 403]);
        expect(textOf(refused.html)).toContain('Not allowed');
        expect(refused.html).not.toContain('secret-stash');
        const ok = await admin.get(path);
        expect([path, ok.status]).toEqual([path, 200]);
        expect(ok.html).toContain('aria-label="Site administration"');
      }
    });

    test('every form refuses non-admins (403) and forms without the CSRF token', async () => {
      const posts: Array<[string, Record<string, string>]> = [
        ['/admin/users/new', { user_name: 'intruder', email: 'i@example.com', password: 'intruder-pass-1' }],
        [carolPage, { email: 'carol@example.com', admin: 'on', active: 'on' }],
        [`${carolPage}/rename`, { new_name: 'carol2' }],
        [`${carolPage}/delete`, { confirm_name: 'carol' }],
        ['/admin/system-hooks/gitea/new', { payload_url: 'https://evil.example/', events: 'send_everything', active: 'on' }],
        [`/admin/hooks/${hookId}`, { payload_url: 'https://evil.example/', events: 'send_everything' }],
        ['/admin/hooks/delete', { id: String(hookId) }],
      ];
      for (const [path, fields] of posts) {
        expect([path, (await plain.post(path, fields, { csrfFrom: '/' })).status]).toEqual([path, 403]);
        expect([path, (await admin.post(path, fields, { csrf: null })).status]).toEqual([path, 403]);
      }
      const me = await must('GET', '/users/carol');
      expect(me.login).toBe('carol');
      expect((await server.api('GET', '/users/intruder')).status).toBe(404);
      const hook = await must('GET', `/admin/hooks/${hookId}`);
      expect(hook.config.url).toBe('https://hooks.example/h');
    });
  });

  describe('pages', () => {
    test('the dashboard counts users, organizations and repositories and names the version', async () => {
      const page = await admin.get('/admin');
      const text = textOf(page.html);
      const version = (await must('GET', '/version')).version;
      const users = (await server.api('GET', '/admin/users?limit=1', { basic: [ADMIN.name, ADMIN.password] })).headers.get('x-total-count');
      expect(text).toContain(`Users ${users}`);
      const orgs = (await server.api('GET', '/admin/orgs?limit=1', { basic: [ADMIN.name, ADMIN.password] })).headers.get('x-total-count');
      expect(text).toContain(`Organizations ${orgs}`);
      expect(text).toContain('Repositories 1');
      expect(text).toContain(version);
      // The site header offers site administration to admins only.
      expect(page.html).toContain('<a href="/admin">Site administration</a>');
      expect((await plain.get('/')).html).not.toContain('href="/admin"');
    });

    test('users: search by name, by login name and by source; paging keeps the search; markup inert', async () => {
      const all = await admin.get('/admin/users');
      expect(all.html).toContain('href="/carol"');
      expectInert(all.html);
      const byName = textOf((await admin.get('/admin/users?q=dav')).html);
      expect(byName).toContain('dave');
      expect(byName).not.toContain('carol');
      const byLogin = await admin.get('/admin/users?login_name=cn%3Dldapuser');
      expect(byLogin.html).toContain('href="/ldapuser"');
      expect(byLogin.html).not.toContain('href="/carol"');
      expect(textOf(byLogin.html)).toContain('cn=ldapuser');
      const bySource = await admin.get('/admin/users?source_id=7');
      expect(bySource.html).toContain('href="/ldapuser"');
      expect(bySource.html).not.toContain('href="/dave"');
      const none = await admin.get('/admin/users?source_id=8');
      expect(textOf(none.html)).toContain('No users found.');
      for (let i = 0; i < 31; i++) await server.user(`bulk${String(i).padStart(2, '0')}`);
      const first = await admin.get('/admin/users?q=bulk');
      expect(first.html).toContain('href="/admin/users?q=bulk&amp;page=2"');
      const second = await admin.get('/admin/users?q=bulk&page=2');
      expect(second.html).toContain('href="/bulk30"');
      expect(second.html).not.toContain('href="/bulk00"');
    });

    test('creating a user, with a creation time', async () => {
      const res = await admin.post(
        '/admin/users/new',
        {
          user_name: 'erin',
          email: 'erin@example.com',
          password: 'erin-password-1',
          full_name: 'Erin',
          visibility: 'limited',
          created_at: '2019-05-04T03:02',
        },
        { csrfFrom: '/admin/users/new' },
      );
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toMatch(/^\/admin\/users\/\d+\?done=created$/);
      const erin = await must('GET', '/users/erin');
      expect(erin.created).toMatch(/^2019-05-04T03:02:00/);
      expect(erin.visibility).toBe('limited');
      const page = await admin.get(res.headers.get('location')!);
      expect(textOf(page.html)).toContain('The user account was created.');

      const taken = await admin.post(
        '/admin/users/new',
        { user_name: 'erin', email: 'erin2@example.com', password: 'erin-password-1', full_name: 'Kept' },
        { csrfFrom: '/admin/users/new' },
      );
      expect(taken.status).toBe(422);
      expect(taken.html).toContain('value="Kept"');
      const short = await admin.post('/admin/users/new', { user_name: 'frank', email: 'f@example.com', password: 'x' }, { csrfFrom: '/' });
      expect(short.status).toBe(400);
      expect(textOf(short.html)).toContain('password is too short');
      const badDate = await admin.post(
        '/admin/users/new',
        { user_name: 'frank', email: 'f@example.com', password: 'frank-password-1', created_at: 'yesterday' },
        { csrfFrom: '/' },
      );
      expect(badDate.status).toBe(422);
      expect((await server.api('GET', '/users/frank')).status).toBe(404);
    });

    test('editing a user: restrict, prohibit sign-in, make admin; then rename', async () => {
      const erin = await must('GET', '/users/erin');
      const page = `/admin/users/${erin.id}`;
      const form = await admin.get(page);
      expect(form.html).toContain('value="erin@example.com"');
      const res = await admin.post(
        page,
        {
          email: 'erin@example.com',
          full_name: 'Erin E.',
          visibility: 'public',
          active: 'on',
          restricted: 'on',
          prohibit_login: 'on',
          admin: 'on',
        },
        { csrfFrom: page },
      );
      expect(res.status).toBe(303);
      let after = await must('GET', '/users/erin');
      expect(after).toMatchObject({ full_name: 'Erin E.', restricted: true, prohibit_login: true, is_admin: true, active: true });
      const bad = await admin.post(page, { email: 'not-an-email', full_name: 'Kept name' }, { csrfFrom: page });
      expect([400, 422]).toContain(bad.status);
      expect(bad.html).toContain('value="Kept name"');

      const rename = await admin.post(`${page}/rename`, { new_name: 'erin-renamed' }, { csrfFrom: page });
      expect(rename.status).toBe(303);
      expect(textOf((await admin.get(rename.headers.get('location')!)).html)).toContain('The user was renamed.');
      expect((await server.api('GET', '/users/erin')).status).toBe(404);
      after = await must('GET', '/users/erin-renamed');
      expect(after.id).toBe(erin.id);
      const taken = await admin.post(`${page}/rename`, { new_name: 'dave' }, { csrfFrom: page });
      expect(taken.status).toBe(422);
      expect(taken.html).toContain('value="dave"');
    });

    test('deleting a user needs the name typed; purge removes what they own', async () => {
      const dave = await must('GET', '/users/dave');
      await must('POST', '/admin/users/dave/repos', { name: 'toolbox' });
      const page = `/admin/users/${dave.id}`;
      const wrong = await admin.post(`${page}/delete`, { confirm_name: 'Dave' }, { csrfFrom: page });
      expect(wrong.status).toBe(422);
      expect(textOf(wrong.html)).toContain('type its user name, dave, exactly');
      const owns = await admin.post(`${page}/delete`, { confirm_name: 'dave' }, { csrfFrom: page });
      expect(owns.status).toBe(422);
      expect((await server.api('GET', '/users/dave')).status).toBe(200);
      const purged = await admin.post(`${page}/delete`, { confirm_name: 'dave', purge: 'on' }, { csrfFrom: page });
      expect(purged.status).toBe(303);
      expect(purged.headers.get('location')).toBe('/admin/users?done=deleted');
      expect((await server.api('GET', '/users/dave')).status).toBe(404);
      expect((await admin.get(page)).status).toBe(404);
    });

    test('emails, organizations and repositories (private ones included) are listed', async () => {
      const emails = textOf((await admin.get('/admin/emails')).html);
      expect(emails).toContain('carol@example.com');
      const found = textOf((await admin.get('/admin/emails?q=ldapuser')).html);
      expect(found).toContain('ldapuser@example.com');
      expect(found).not.toContain('carol@example.com');
      const orgs = await admin.get('/admin/orgs');
      expect(orgs.html).toContain('href="/guild"');
      expect(textOf(orgs.html)).toContain('The Guild');
      const repos = await admin.get('/admin/repos');
      expect(repos.html).toContain('href="/carol/secret-stash"');
      expect(textOf((await admin.get('/admin/repos?q=nothing-like-this')).html)).toContain('No repositories found.');
    });

    test('system webhooks: add, edit, delete', async () => {
      const form = await admin.get('/admin/system-hooks/gitea/new');
      expect(form.html).toContain('<label for="payload_url">Target URL</label>');
      const res = await admin.post(
        '/admin/system-hooks/gitea/new',
        {
          payload_url: 'https://ci.example/hook',
          content_type: 'json',
          http_method: 'POST',
          secret: 's3cret',
          events: 'choose_events',
          event: ['push', 'issues'],
          active: 'on',
        },
        { csrfFrom: '/admin/system-hooks/gitea/new' },
      );
      expect(res.status).toBe(303);
      const hooks = await must('GET', '/admin/hooks');
      const hook = hooks.find((h: any) => h.config.url === 'https://ci.example/hook');
      expect(hook.events.sort()).toEqual(['issues', 'push']);
      expect(hook.active).toBe(true);
      const list = await admin.get('/admin/hooks?done=added');
      expect(list.html).toContain(`href="/admin/hooks/${hook.id}"`);
      expect(textOf(list.html)).toContain('The webhook was added.');

      const edit = await admin.get(`/admin/hooks/${hook.id}`);
      expect(edit.html).toMatch(/id="event-issues"[^>]*checked/);
      expect(edit.html).not.toContain('s3cret');
      const saved = await admin.post(
        `/admin/hooks/${hook.id}`,
        { payload_url: 'https://ci.example/hook2', events: 'send_everything' },
        { csrfFrom: '/admin/hooks' },
      );
      expect(saved.status).toBe(303);
      const after = await must('GET', `/admin/hooks/${hook.id}`);
      expect(after.config.url).toBe('https://ci.example/hook2');
      expect(after.active).toBe(false);
      expect(after.events.length).toBeGreaterThan(20);
      const none = await admin.post(
        `/admin/hooks/${hook.id}`,
        { payload_url: 'https://ci.example/hook2', events: 'choose_events' },
        { csrfFrom: '/admin/hooks' },
      );
      expect(none.status).toBe(422);
      expect(textOf(none.html)).toContain('Choose at least one event, or another trigger.');

      const del = await admin.post('/admin/hooks/delete', { id: String(hook.id) }, { csrfFrom: '/admin/hooks' });
      expect(del.status).toBe(303);
      expect((await server.api('GET', `/admin/hooks/${hook.id}`, { basic: [ADMIN.name, ADMIN.password] })).status).toBe(404);
    });

    test('the configuration summary shows what the settings endpoints report and no secrets', async () => {
      const page = await admin.get('/admin/config');
      const text = textOf(page.html);
      expect(text).toContain('Largest page of an API list 50');
      expect(text).toContain('Attachments enabled Yes');
      expect(text).toContain('Default theme gitea-auto');
      expect(page.html).not.toContain(SECRET_KEY);
      expect(page.html).not.toContain(ADMIN.password);
    });
  });
});
