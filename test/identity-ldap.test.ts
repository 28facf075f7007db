import { ADMIN, startServer, type TestServer } from './helpers/server';
import { startLdapServer, type LdapServer } from './helpers/identity';
import { WebClient, textOf } from './helpers/web';
import { cloneUrl, gitSandbox } from './helpers/git';

/**
 * LDAP sign-in against a real OpenLDAP server (Debian's slapd, started by the test with a
 * throwaway configuration on a loopback port): passwords through basic auth on the API and git
 * and through the web sign-in form, accounts created on the first sign-in, the admin and
 * restricted filters, and group DNs mapped to teams. Runs on every database.
 */

const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };
const BASE = 'dc=example,dc=org';

const person = (uid: string, cn: string, extra: string[]) =>
  [
    `dn: uid=${uid},ou=people,${BASE}`,
    'objectClass: inetOrgPerson',
    `uid: ${uid}`,
    `cn: ${cn}`,
    `sn: ${cn.split(' ').pop()}`,
    ...extra,
  ].join('\n');
const group = (cn: string, members: string[]) =>
  [
    `dn: cn=${cn},ou=groups,${BASE}`,
    'objectClass: groupOfNames',
    `cn: ${cn}`,
    ...members.map((m) => `member: uid=${m},ou=people,${BASE}`),
  ].join('\n');

const DIRECTORY = [
  [`dn: ${BASE}`, 'objectClass: dcObject', 'objectClass: organization', 'dc: example', 'o: Example'].join('\n'),
  [`dn: ou=people,${BASE}`, 'objectClass: organizationalUnit', 'ou: people'].join('\n'),
  [`dn: ou=groups,${BASE}`, 'objectClass: organizationalUnit', 'ou: groups'].join('\n'),
  [`dn: cn=forge-reader,${BASE}`, 'objectClass: organizationalRole', 'objectClass: simpleSecurityObject', 'cn: forge-reader'].join('\n') +
    '\nuserPassword: reader-secret',
  person('lena', 'Lena Lund', ['mail: lena@example.org', 'userPassword: lena-password', 'employeeType: staff']),
  person('omar', 'Omar Okafor', ['mail: omar@example.org', 'userPassword: omar-password', 'employeeType: admin']),
  // No mail attribute: the account gets a placeholder address.
  person('pia', 'Pia Park', ['userPassword: pia-password', 'employeeType: contractor']),
  person('quinn', 'Quinn Quist', ['mail: quinn@example.org', 'userPassword: quinn-password']),
  person('rosa', 'Rosa Reyes', ['mail: rosa@example.org', 'userPassword: rosa-password']),
  person('sam', 'Sam Sato', ['mail: sam@example.org', 'userPassword: sam-password']),
  group('developers', ['lena', 'omar']),
  group('operators', ['lena']),
  group('lonely', ['quinn']),
].join('\n\n');

// Group DNs in the map are compared as DNs: case and spaces after commas do not matter.
const GROUP_MAP = {
  [`cn=developers,ou=groups,${BASE}`]: { acme: ['devs'] },
  'CN=Operators, OU=groups, DC=example, DC=org': { acme: ['ops'] },
  [`cn=lonely,ou=groups,${BASE}`]: { 'no-such-org': ['anything'] },
};

let server: TestServer;
let ldap: LdapServer;
let sourceId = 0;
const teams: Record<string, number> = {};
const logLines: string[] = [];

async function runLdap(command: string, args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const code = await server.kernel
    .commandsOf('ldap')
    .get(command)!
    .run(args, (line) => lines.push(line));
  if (code) throw new Error(`${command} exited ${code}`);
  return lines;
}

function sourceArgs(extra: string[] = []): string[] {
  const port = new URL(ldap.url).port;
  return [
    '--name',
    'directory',
    '--host',
    '127.0.0.1',
    '--port',
    port,
    '--security-protocol',
    'unencrypted',
    '--bind-dn',
    `cn=forge-reader,${BASE}`,
    '--bind-password',
    'reader-secret',
    '--user-search-base',
    `ou=people,${BASE}`,
    '--user-filter',
    '(&(objectClass=inetOrgPerson)(uid=%s))',
    '--admin-filter',
    '(employeeType=admin)',
    '--restricted-filter',
    '(employeeType=contractor)',
    '--username-attribute',
    'uid',
    '--email-attribute',
    'mail',
    '--full-name-attribute',
    'cn',
    '--group-search-base-dn',
    `ou=groups,${BASE}`,
    '--group-member-attribute',
    'member',
    '--user-attribute-in-group',
    'dn',
    '--group-team-map',
    JSON.stringify(GROUP_MAP),
    ...extra,
  ];
}

const whoAmI = (login: string, password: string) => server.api('GET', '/user', { basic: [login, password] });

async function teamMembers(team: string): Promise<string[]> {
  const res = await server.api('GET', `/teams/${teams[team]}/members`, admin);
  return res.body.map((u: { login: string }) => u.login).sort();
}

async function accountOf(login: string) {
  const res = await server.api('GET', `/admin/users?source_id=${sourceId}&login_name=${login}`, admin);
  expect(res.status).toBe(200);
  return res.body[0];
}

beforeAll(async () => {
  ldap = await startLdapServer(`${DIRECTORY}\n`);
  server = await startServer({ plugins: { 'group-mapping': { enabled: true }, ldap: { enabled: true } } }, { logLines });
  expect((await server.api('POST', '/orgs', { ...admin, body: { username: 'acme' } })).status).toBe(201);
  for (const name of ['devs', 'ops', 'unmapped']) {
    const res = await server.api('POST', '/orgs/acme/teams', { ...admin, body: { name, permission: 'write', units: ['repo.code'] } });
    teams[name] = res.body.id;
  }
}, 60_000);

afterAll(async () => {
  await server?.close();
  await ldap?.close();
});

describe('sources', () => {
  test('a server that refuses the bind DN is not added; a good one is, its bind password sealed and never listed', async () => {
    const wrong = sourceArgs();
    wrong[wrong.indexOf('reader-secret')] = 'not-the-secret';
    await expect(runLdap('add-source', wrong)).rejects.toMatchObject({ status: 502, message: expect.stringContaining('cannot be used') });
    await expect(runLdap('add-source', sourceArgs(['--user-filter', '(uid=x)']))).rejects.toMatchObject({ status: 422 });

    const out = await runLdap('add-source', sourceArgs());
    sourceId = Number(/source (\d+) "/.exec(out[0])![1]);
    const row = await server.kernel.db('ldap_sources').where('id', sourceId).first();
    expect(row.bind_password).not.toContain('reader-secret');
    const listed = (await runLdap('list-sources', [])).join('\n');
    expect(listed).toContain('"directory"');
    expect(listed).not.toContain('reader-secret');
  });
});

describe('passwords', () => {
  test('basic auth on the API with an LDAP password creates the account and maps its groups', async () => {
    const res = await whoAmI('lena', 'lena-password');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ login: 'lena', full_name: 'Lena Lund', email: 'lena@example.org', login_name: 'lena' });
    expect(await accountOf('lena')).toMatchObject({ login: 'lena', is_admin: false, restricted: false });
    expect(await teamMembers('devs')).toEqual(['lena']);
    expect(await teamMembers('ops')).toEqual(['lena']);
    // Again: the same account.
    expect((await whoAmI('lena', 'lena-password')).body.id).toBe(res.body.id);
    // Unknown organizations in the map are reported, not fatal (quinn's group).
    expect((await whoAmI('quinn', 'quinn-password')).status).toBe(200);
    expect(logLines.some((l) => l.includes('the organization \\"no-such-org\\" in the group map does not exist'))).toBe(true);
  });

  test('a wrong, empty or injected password or login is a 401, and creates nothing', async () => {
    const before = Number((await server.api('GET', '/admin/users?limit=1', admin)).headers.get('x-total-count'));
    expect((await whoAmI('lena', 'wrong-password')).status).toBe(401);
    expect((await whoAmI('lena', '')).status).toBe(401);
    expect((await whoAmI('omar', 'lena-password')).status).toBe(401);
    expect((await whoAmI('nobody', 'whatever')).status).toBe(401);
    // A filter in the login name is escaped, not obeyed.
    expect((await whoAmI('*', 'lena-password')).status).toBe(401);
    expect((await whoAmI('lena)(uid=*', 'lena-password')).status).toBe(401);
    expect(Number((await server.api('GET', '/admin/users?limit=1', admin)).headers.get('x-total-count'))).toBe(before);
  });

  test('the web sign-in form takes an LDAP password; the admin filter makes a site administrator', async () => {
    const web = new WebClient(server);
    const wrong = await web.post('/user/login', { user_name: 'omar', password: 'nope' }, { csrfFrom: '/user/login' });
    expect(wrong.status).toBe(401);
    await web.signIn({ name: 'omar', password: 'omar-password' });
    expect(textOf((await web.get('/')).html)).toContain('Sign out');
    expect(await accountOf('omar')).toMatchObject({ login: 'omar', is_admin: true });
    expect(await teamMembers('devs')).toEqual(['lena', 'omar']);
  });

  test('the restricted filter makes a restricted user; a user without a mail attribute gets a placeholder address', async () => {
    expect((await whoAmI('pia', 'pia-password')).status).toBe(200);
    expect(await accountOf('pia')).toMatchObject({ login: 'pia', restricted: true, is_admin: false, email: 'pia@noreply.localhost' });
  });

  test('git over HTTP takes the LDAP password', async () => {
    const repo = await server.api('POST', '/user/repos', {
      basic: ['lena', 'lena-password'],
      body: { name: 'notes', auto_init: true, private: true },
    });
    expect(repo.status).toBe(201);
    const sandbox = gitSandbox();
    try {
      const ok = await sandbox.git(['clone', cloneUrl(server.url, 'lena/notes.git', 'lena', 'lena-password'), 'notes']);
      expect(ok.status).toBe(0);
      const refused = await sandbox.git(['clone', cloneUrl(server.url, 'lena/notes.git', 'lena', 'wrong-password'), 'refused']);
      expect(refused.status).not.toBe(0);
    } finally {
      sandbox.cleanup();
    }
  });

  test('local accounts keep working beside the directory', async () => {
    const victor = await server.user('victor');
    expect((await whoAmI('victor', victor.password)).status).toBe(200);
    expect((await whoAmI('victor', 'lena-password')).status).toBe(401);
  });
});

describe('groups', () => {
  test('a group lost in the directory keeps its team without removal and loses it with removal; unmapped teams stay', async () => {
    expect((await server.api('PUT', `/teams/${teams.unmapped}/members/lena`, admin)).status).toBe(204);
    await ldap.modify(`dn: cn=operators,ou=groups,${BASE}\nchangetype: modify\nreplace: member\nmember: uid=omar,ou=people,${BASE}\n`);
    expect((await whoAmI('lena', 'lena-password')).status).toBe(200);
    expect(await teamMembers('ops')).toContain('lena');

    await runLdap('update-source', ['--id', String(sourceId), '--group-team-map-removal']);
    expect((await whoAmI('lena', 'lena-password')).status).toBe(200);
    expect(await teamMembers('ops')).not.toContain('lena');
    expect(await teamMembers('devs')).toContain('lena');
    expect(await teamMembers('unmapped')).toEqual(['lena']);
  });

  test('losing the admin attribute unmakes the site administrator', async () => {
    await ldap.modify(`dn: uid=omar,ou=people,${BASE}\nchangetype: modify\nreplace: employeeType\nemployeeType: staff\n`);
    expect((await whoAmI('omar', 'omar-password')).status).toBe(200);
    expect(await accountOf('omar')).toMatchObject({ is_admin: false });
  });

  test('a group filter lets only members of matching groups sign in', async () => {
    await runLdap('update-source', ['--id', String(sourceId), '--group-filter', '(cn=developers)']);
    expect((await whoAmI('lena', 'lena-password')).status).toBe(200);
    expect((await whoAmI('pia', 'pia-password')).status).toBe(401);
    await runLdap('update-source', ['--id', String(sourceId), '--group-filter', '']);
    expect((await whoAmI('pia', 'pia-password')).status).toBe(200);
  });
});

describe('TLS', () => {
  /** The main source's options, for another name, protocol and port. */
  const tlsArgs = (name: string, security: string, port: string, extra: string[] = []) => {
    const args = sourceArgs(extra);
    args[args.indexOf('directory')] = name;
    args[args.indexOf('--port') + 1] = port;
    args[args.indexOf('unencrypted')] = security;
    return args;
  };
  const idOf = (out: string[]) => Number(/source (\d+) "/.exec(out[0])![1]);
  const accountsOf = async (source: number, login: string) =>
    (await server.api('GET', `/admin/users?source_id=${source}&login_name=${login}`, admin)).body;

  test('ldaps and StartTLS check the server certificate unless told not to; both sign users in', async () => {
    // Only the TLS sources answer in this test.
    await runLdap('update-source', ['--id', String(sourceId), '--not-active']);
    const [plainPort, tlsPort] = [new URL(ldap.url).port, new URL(ldap.ldapsUrl).port];
    // The test server's certificate is self-signed: refused unless verification is skipped.
    await expect(runLdap('add-source', tlsArgs('directory-ldaps', 'ldaps', tlsPort))).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('certificate'),
    });
    await expect(runLdap('add-source', tlsArgs('directory-starttls', 'StartTLS', plainPort))).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining('certificate'),
    });

    const ldapsId = idOf(await runLdap('add-source', tlsArgs('directory-ldaps', 'ldaps', tlsPort, ['--skip-tls-verify'])));
    expect((await whoAmI('rosa', 'rosa-password')).status).toBe(200);
    expect((await whoAmI('rosa', 'sam-password')).status).toBe(401);
    expect(await accountsOf(ldapsId, 'rosa')).toHaveLength(1);

    await runLdap('update-source', ['--id', String(ldapsId), '--not-active']);
    const startTlsId = idOf(await runLdap('add-source', tlsArgs('directory-starttls', 'StartTLS', plainPort, ['--skip-tls-verify'])));
    expect((await whoAmI('sam', 'sam-password')).status).toBe(200);
    expect(await accountsOf(startTlsId, 'sam')).toHaveLength(1);
    await runLdap('update-source', ['--id', String(sourceId), '--active']);
  });
});

describe('sources in use', () => {
  test('deleting a source is refused while accounts sign in through it', async () => {
    await expect(runLdap('delete-source', ['--id', String(sourceId)])).rejects.toMatchObject({ status: 422 });
  });

  test('an inactive source signs nobody in', async () => {
    await runLdap('update-source', ['--id', String(sourceId), '--not-active']);
    expect((await whoAmI('lena', 'lena-password')).status).toBe(401);
    await runLdap('update-source', ['--id', String(sourceId), '--active']);
    expect((await whoAmI('lena', 'lena-password')).status).toBe(200);
  });

  test('while the directory is down its users cannot sign in; local accounts can', async () => {
    await ldap.close();
    expect((await whoAmI('lena', 'lena-password')).status).toBe(401);
    const wanda = await server.user('wanda');
    expect((await whoAmI('wanda', wanda.password)).status).toBe(200);
  });
});
