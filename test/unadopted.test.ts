import fs from 'node:fs';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { cloneUrl, gitSandbox } from './helpers/git';

/**
 * Gitea 1.20's unadopted repositories: bare repositories under the repository root without a
 * record are listed (with a pattern and paging), adopted (a record with the files' branches and
 * default branch) or deleted; names go through the name rules, so no path leaves the root.
 * The stray repositories are made by git itself (`git clone --bare`). Runs on every database.
 */
let server: TestServer;
let root: string;
const admin = { basic: [ADMIN.name, ADMIN.password] as [string, string] };

beforeAll(async () => {
  server = await startServer();
  const owner = await server.user('stray-owner');
  const basic = { basic: [owner.name, owner.password] as [string, string] };
  expect(
    (await server.api('POST', '/user/repos', { ...basic, body: { name: 'source', auto_init: true, default_branch: 'trunk' } })).status,
  ).toBe(201);
  root = path.join(server.kernel.config.server.DATA_DIR, 'repositories');
  const sandbox = gitSandbox();
  const url = cloneUrl(server.url, 'stray-owner/source.git', owner.name, owner.password);
  for (const dir of ['stray-owner/lost.git', 'stray-owner/other.git', 'nobody-here/orphan.git', 'stray-owner/Upper.git']) {
    expect((await sandbox.git(['clone', '-q', '--bare', url, path.join(root, dir)])).status).toBe(0);
  }
});
afterAll(async () => server?.close());

test('list: repositories of known owners without a record, lower-case valid names only, by pattern, paged', async () => {
  const all = await server.api('GET', '/admin/unadopted', admin);
  expect(all.status).toBe(200);
  expect(all.body).toEqual(['stray-owner/lost', 'stray-owner/other']);
  expect(all.headers.get('x-total-count')).toBe('2');
  expect((await server.api('GET', '/admin/unadopted?pattern=lo', admin)).body).toEqual(['stray-owner/lost']);
  expect((await server.api('GET', '/admin/unadopted?pattern=*/oth*', admin)).body).toEqual(['stray-owner/other']);
  expect((await server.api('GET', '/admin/unadopted?limit=1&page=2', admin)).body).toEqual(['stray-owner/other']);
  const user = await server.user('stray-user');
  expect((await server.api('GET', '/admin/unadopted', { basic: [user.name, user.password] })).status).toBe(403);
});

test('adopt: a record with the files’ branches; twice is 409; without files 404', async () => {
  expect((await server.api('POST', '/admin/unadopted/stray-owner/lost', admin)).status).toBe(204);
  const repo = await server.api('GET', '/repos/stray-owner/lost', admin);
  expect(repo.status).toBe(200);
  expect(repo.body).toMatchObject({ name: 'lost', default_branch: 'trunk', empty: false });
  expect(((await server.api('GET', '/repos/stray-owner/lost/branches', admin)).body as any[]).map((b) => b.name)).toEqual(['trunk']);
  expect((await server.api('POST', '/admin/unadopted/stray-owner/lost', admin)).status).toBe(409);
  expect((await server.api('POST', '/admin/unadopted/stray-owner/missing', admin)).status).toBe(404);
  expect((await server.api('POST', '/admin/unadopted/nobody-here/orphan', admin)).status).toBe(404);
  expect((await server.api('GET', '/admin/unadopted', admin)).body).toEqual(['stray-owner/other']);
});

test('delete: removes the directory; an adopted repository is 409; traversal is refused by the name rules', async () => {
  expect((await server.api('DELETE', '/admin/unadopted/stray-owner/lost', admin)).status).toBe(409);
  expect((await server.api('DELETE', `/admin/unadopted/stray-owner/${encodeURIComponent('../nobody-here/orphan')}`, admin)).status).toBe(
    422,
  );
  expect(fs.existsSync(path.join(root, 'nobody-here/orphan.git'))).toBe(true);
  expect((await server.api('DELETE', '/admin/unadopted/stray-owner/other', admin)).status).toBe(204);
  expect(fs.existsSync(path.join(root, 'stray-owner/other.git'))).toBe(false);
  expect((await server.api('DELETE', '/admin/unadopted/stray-owner/other', admin)).status).toBe(404);
  expect((await server.api('GET', '/admin/unadopted', admin)).body).toEqual([]);
});
