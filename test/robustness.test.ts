import { ADMIN, startServer, type TestServer } from './helpers/server';

// Every operation the server publishes, called by a site admin holding every scope with hostile
// input — path parameters that do not exist or are malformed, bodies of the wrong shape, odd query
// values — must answer a 4xx (or a 2xx where the input happens to be acceptable), never a 5xx.
// Real objects exist (a repository with an issue, a pull request branch, an organization) so
// handlers get past their first lookup and meet the bad values deeper in.

let server: TestServer;
let token: string;
const ALL_SCOPES = ['delete:admin', 'delete:repository', 'delete:issue', 'delete:organization', 'delete:user', 'delete:package', 'delete:notification', 'delete:misc', 'delete:activitypub'];

interface Operation { method: string; path: string; operationId: string; scopes: string[] | string | undefined; auth: string }
let operations: Operation[] = [];

beforeAll(async () => {
  server = await startServer();
  token = await server.token({ name: ADMIN.name, password: ADMIN.password }, ALL_SCOPES);
  const call = (method: string, p: string, body?: unknown) => server.api(method, p, { token, body });
  expect((await call('POST', '/user/repos', { name: 'repo', auto_init: true })).status).toBe(201);
  expect((await call('POST', `/repos/${ADMIN.name}/repo/branches`, { new_branch_name: 'feature', old_branch_name: 'main' })).status).toBe(201);
  expect((await call('POST', `/repos/${ADMIN.name}/repo/issues`, { title: 'an issue', body: 'text' })).status).toBe(201);
  expect((await call('POST', '/orgs', { username: 'some-org' })).status).toBe(201);
  type Published = { operationId: string; 'x-hearth-scopes'?: string[] | string; 'x-hearth-auth': string };
  const doc = await fetch(new URL('swagger.v1.json', server.url)).then((r) => r.json()) as { paths: Record<string, Record<string, Published>> };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) {
        operations.push({ method: method.toUpperCase(), path, operationId: op.operationId, scopes: op['x-hearth-scopes'], auth: op['x-hearth-auth'] });
      }
    }
  }
  // Destructive operations on the fixtures last, so the others still find them.
  operations = [...operations.filter((o) => o.method !== 'DELETE'), ...operations.filter((o) => o.method === 'DELETE')];
}, 120000);
afterAll(() => server.close());

/** Fill the path's parameters: real names where the fixtures have them, or the given odd value. */
function fill(path: string, odd: string | null): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (odd !== null) return encodeURIComponent(odd);
    switch (name) {
      case 'owner': case 'username': case 'user': case 'sudo': case 'collaborator': return ADMIN.name;
      case 'repo': return 'repo';
      case 'org': return 'some-org';
      case 'index': case 'id': case 'position': return '1';
      case 'branch': case 'name': case 'ref': case 'sha': case 'tag': case 'base': case 'head': return 'main';
      case 'filepath': return 'README.md';
      case 'pageName': return 'Home';
      default: return 'x';
    }
  });
}

const ODD_SEGMENTS = ['0', '-1', '99999999999999999999', '..%2F..%2Fetc', ' leading', 'a'.repeat(300), '%00', 'ünïcödé'];
const ODD_BODIES: unknown[] = [
  null, [], 'a string', 12, { unexpected: true }, { name: 123, title: ['x'], body: { nested: true } },
  { name: '', title: '', tag_name: '', content: 'not base64 !!', state: 'sideways', due_date: 'yesterday', labels: ['x'], assignees: [1] },
];
const ODD_QUERIES = ['?page=-1&limit=0', '?page=abc&limit=99999', '?since=not-a-date&before=%00', '?q=%25%27%22%3B--&type=nonsense&state=nope'];

test('no operation answers 5xx to hostile input', async () => {
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const probe = async (method: string, path: string, body?: unknown, raw?: string) => {
    const url = new URL(`api/v1${path}`, server.url);
    const headers: Record<string, string> = { Authorization: `token ${token}` };
    let payload: string | undefined;
    if (raw !== undefined) { payload = raw; headers['Content-Type'] = 'application/json'; }
    else if (body !== undefined) { payload = JSON.stringify(body); headers['Content-Type'] = 'application/json'; }
    const res = await fetch(url, { method, headers, body: method === 'GET' ? undefined : payload });
    const text = await res.text();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) failures.push(`${method} ${path} ${raw ?? JSON.stringify(body) ?? ''} → ${res.status} ${text.slice(0, 200)}`);
  };
  for (const op of operations) {
    const real = fill(op.path, null);
    for (const q of ODD_QUERIES) await probe(op.method, `${real}${q}`);
    if (op.method !== 'GET') {
      for (const body of ODD_BODIES) await probe(op.method, real, body);
      await probe(op.method, real, undefined, '{"truncated": ');
    }
    if (op.path.includes('{')) for (const odd of ODD_SEGMENTS) await probe(op.method, fill(op.path, odd), op.method === 'GET' ? undefined : {});
  }
  expect(failures).toEqual([]);
  // It really exercised the API: every operation, and answers of many kinds.
  expect(operations.length).toBeGreaterThan(250);
  expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(operations.length * 5);
  for (const status of [200, 400, 404, 422]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
  if (process.env.HEARTH_TEST_VERBOSE) console.log(operations.length, Object.fromEntries(statuses));
  // The server is still healthy afterwards.
  expect((await fetch(new URL('api/healthz', server.url))).status).toBe(200);
}, 600000);

test('every operation that names token categories refuses a token without them (403), before touching its input', async () => {
  // A token that may only read the misc category, and one with every category but read level only.
  const miscOnly = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['read:misc'], 'misc-only');
  const readAll = await server.token({ name: ADMIN.name, password: ADMIN.password }, ALL_SCOPES.map((s) => s.replace('delete:', 'read:')), 'read-all');
  const wrong: string[] = [];
  let checked = 0;
  for (const op of operations) {
    const categories = Array.isArray(op.scopes) ? op.scopes : [];
    if (categories.length === 0 || op.auth === 'basic') continue;
    const url = new URL(`api/v1${fill(op.path, null)}`, server.url);
    const send = (t: string) => fetch(url, { method: op.method, headers: { Authorization: `token ${t}`, 'Content-Type': 'application/json' }, body: op.method === 'GET' ? undefined : '{}' });
    if (!categories.includes('misc')) {
      const res = await send(miscOnly);
      checked++;
      if (res.status !== 403) wrong.push(`${op.method} ${op.path} [${categories.join(',')}] with read:misc → ${res.status}`);
    }
    if (op.method !== 'GET') {
      const res = await send(readAll);
      if (res.status !== 403) wrong.push(`${op.method} ${op.path} [${categories.join(',')}] with read-only scopes → ${res.status}`);
    }
  }
  expect(wrong).toEqual([]);
  expect(checked).toBeGreaterThan(200);
}, 300000);
