import { ADMIN, type TestServer } from './helpers/server';
import { WebClient, textOf, webServer, mustCall } from './helpers/web';

/**
 * Site administration over plain HTTP: the dashboard's counts and version, users (search by name,
 * login name and source; create with a creation time; edit, rename, typed-confirmation delete with
 * purge), emails, organizations, repositories, system webhooks and the configuration summary (no
 * secrets). Every page and form refuses anyone but a site admin (anonymous visitors sign in first,
 * others get the API's 403), forms need the CSRF token, and markup in user data renders inert.
 */
type User = { name: string; password: string; id: number };
let server: TestServer;
let admin: WebClient;
let plain: WebClient;
let anonymous: WebClient;
let carol: User;
const SECRET_KEY = 'do-not-show-this-secret-key-1234567890';

const must = mustCall(
  () => server,
  () => ADMIN,
);

function expectInert(html: string) {
  expect(html).not.toContain('<script>alert');
  expect(html).not.toMatch(/<img[^>]*onerror/);
}

const suite = webServer({ security: { SECRET_KEY } });
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
    expect(text).toContain('Organizations 1');
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
