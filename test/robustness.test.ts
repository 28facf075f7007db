import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pino from 'pino';
import { ADMIN, startServer, type TestServer } from './helpers/server';
import { waitFor } from './helpers/wait';

// Every operation the server publishes, called by a site admin holding every scope with hostile
// input — path parameters that do not exist or are malformed, bodies of the wrong shape, odd query
// values — must answer a 4xx (or a 2xx where the input happens to be acceptable), never a 5xx.
// Real objects exist (a repository with an issue, a pull request branch, an organization) so
// handlers get past their first lookup and meet the bad values deeper in.

let server: TestServer;
let token: string;
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

type Schema = { type?: string; $ref?: string; properties?: Record<string, Schema>; items?: Schema };
interface Operation {
  method: string;
  path: string;
  operationId: string;
  scopes: string[] | string | undefined;
  auth: string;
  jsonBody?: Schema;
}
let operations: Operation[] = [];
let definitions: Record<string, Schema> = {};
/** What the server logged (info and above, but no request lines), captured instead of printed. */
const logged: Array<{ level: number; msg: string }> = [];

beforeAll(async () => {
  server = await startServer({ log: { LEVEL: 'warn', REQUESTS: false } });
  // Every logger of the kernel writes to its root logger's destination; info once it is captured.
  const destination = (server.kernel.log as unknown as Record<symbol, { write(line: string): boolean }>)[pino.symbols.streamSym];
  destination.write = (line: string) => logged.push(JSON.parse(line)) > 0;
  server.kernel.log.level = 'info';
  token = await server.token({ name: ADMIN.name, password: ADMIN.password }, ALL_SCOPES);
  const call = (method: string, p: string, body?: unknown) => server.api(method, p, { token, body });
  expect((await call('POST', '/user/repos', { name: 'repo', auto_init: true })).status).toBe(201);
  expect((await call('POST', `/repos/${ADMIN.name}/repo/branches`, { new_branch_name: 'feature', old_branch_name: 'main' })).status).toBe(
    201,
  );
  expect((await call('POST', `/repos/${ADMIN.name}/repo/issues`, { title: 'an issue', body: 'text' })).status).toBe(201);
  expect((await call('POST', '/orgs', { username: 'some-org' })).status).toBe(201);
  type Published = {
    operationId: string;
    'x-hearth-scopes'?: string[] | string;
    'x-hearth-auth': string;
    consumes: string[];
    parameters: Array<{ in: string; schema?: Schema }>;
  };
  const doc = (await fetch(new URL('swagger.v1.json', server.url)).then((r) => r.json())) as {
    paths: Record<string, Record<string, Published>>;
    definitions: Record<string, Schema>;
  };
  definitions = doc.definitions;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) {
        const body = op.consumes.includes('application/json') ? op.parameters.find((p) => p.in === 'body')?.schema : undefined;
        operations.push({
          method: method.toUpperCase(),
          path,
          operationId: op.operationId,
          scopes: op['x-hearth-scopes'],
          auth: op['x-hearth-auth'],
          jsonBody: body,
        });
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
      case 'owner':
      case 'username':
      case 'user':
      case 'sudo':
      case 'collaborator':
      case 'template_owner':
        return ADMIN.name;
      case 'repo':
      case 'template_repo':
        return 'repo';
      case 'org':
        return 'some-org';
      case 'index':
      case 'id':
      case 'position':
      case 'attachment_id':
        return '1';
      case 'branch':
      case 'name':
      case 'ref':
      case 'sha':
      case 'tag':
      case 'base':
      case 'head':
        return 'main';
      case 'filepath':
        return 'README.md';
      case 'pageName':
        return 'Home';
      default:
        return 'x';
    }
  });
}

const ODD_SEGMENTS = ['0', '-1', '99999999999999999999', '..%2F..%2Fetc', ' leading', 'a'.repeat(300), '%00', 'ünïcödé'];
const ODD_BODIES: unknown[] = [
  null,
  [],
  'a string',
  12,
  { unexpected: true },
  { name: 123, title: ['x'], body: { nested: true } },
  { name: '', title: '', tag_name: '', content: 'not base64 !!', state: 'sideways', due_date: 'yesterday', labels: ['x'], assignees: [1] },
];
const ODD_QUERIES = [
  '?page=-1&limit=0',
  '?page=abc&limit=99999',
  '?since=not-a-date&before=%00',
  '?q=%25%27%22%3B--&type=nonsense&state=nope',
];

const LEVELS = 100000;
const DEEP_ARRAY = '['.repeat(LEVELS) + ']'.repeat(LEVELS);
const DEEP_OBJECT = '{"a":'.repeat(LEVELS) + '1' + '}'.repeat(LEVELS);
const WIDE_OBJECT = JSON.stringify(Object.fromEntries(Array.from({ length: LEVELS }, (_, i) => [`key${i}`, i])));

/** A body of the schema's shape with every property of another type (text for numbers, numbers for text, …). */
function wrongTypes(schema: Schema | undefined): unknown {
  const resolved = resolveRef(schema);
  if (resolved.type === 'array') return { not: 'a list' };
  if (resolved.type && resolved.type !== 'object') return ['not', 'a', resolved.type];
  return Object.fromEntries(
    Object.entries(resolved.properties ?? {}).map(([name, property]) => {
      switch (resolveRef(property).type) {
        case 'string':
          return [name, 12345];
        case 'integer':
        case 'number':
          return [name, 'twelve'];
        case 'boolean':
          return [name, 'yes'];
        case 'array':
          return [name, { not: 'a list' }];
        default:
          return [name, ['not', 'an object']];
      }
    }),
  );
}

function resolveRef(schema: Schema | undefined): Schema {
  const ref = schema?.$ref?.replace('#/definitions/', '');
  return (ref ? definitions[ref] : schema) ?? {};
}

test('hostile JSON bodies — 100,000 levels deep, 100,000 keys wide, wrong types — answer 4xx and log no error', async () => {
  const errorsBefore = logged.length;
  const wrong: string[] = [];
  const withBody = operations.filter((o) => o.jsonBody);
  for (const op of withBody) {
    const url = new URL(`api/v1${fill(op.path, null)}`, server.url);
    // Operations that take a password only (token creation) are called with one.
    const authorization =
      op.auth === 'basic' ? `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}` : `token ${token}`;
    const send = async (body: string) => {
      const res = await fetch(url, {
        method: op.method,
        headers: { Authorization: authorization, 'Content-Type': 'application/json' },
        body,
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
    };
    for (const [name, body] of [
      ['deep array', DEEP_ARRAY],
      ['deep object', DEEP_OBJECT],
    ]) {
      const res = await send(body);
      const keys = Object.keys(res.body ?? {})
        .sort()
        .join();
      if (res.status !== 400 || keys !== 'message,url' || !/nested far deeper than 64 levels/.test(String(res.body?.message))) {
        wrong.push(`${op.method} ${op.path} ${name} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    }
    // Unknown keys are ignored, as Gitea does: a wide body may be accepted, never a server error.
    const wide = await send(WIDE_OBJECT);
    if (wide.status >= 500) wrong.push(`${op.method} ${op.path} wide object → ${wide.status} ${JSON.stringify(wide.body).slice(0, 200)}`);
    const typed = await send(JSON.stringify(wrongTypes(op.jsonBody)));
    if (typed.status < 400 || typed.status >= 500)
      wrong.push(`${op.method} ${op.path} wrong types → ${typed.status} ${JSON.stringify(typed.body).slice(0, 200)}`);
  }
  expect(wrong).toEqual([]);
  expect(withBody.length).toBeGreaterThan(50);
  expect(logged.slice(errorsBefore).filter((line) => line.level >= 50)).toEqual([]);
}, 300000);

test("cargo publish metadata nested 100,000 levels deep → 400 in cargo's error shape", async () => {
  const errorsBefore = logged.length;
  const publish = (metadata: string) => {
    const json = Buffer.from(metadata);
    const body = Buffer.alloc(4 + json.length + 4);
    body.writeUInt32LE(json.length, 0);
    json.copy(body, 4);
    body.writeUInt32LE(0, 4 + json.length); // no crate bytes: the metadata is refused first
    return fetch(new URL(`api/packages/${ADMIN.name}/cargo/api/v1/crates/new`, server.url), {
      method: 'PUT',
      headers: { Authorization: token },
      body,
    });
  };
  for (const metadata of [DEEP_ARRAY, DEEP_OBJECT]) {
    const res = await publish(metadata);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ detail: string }> };
    expect(body.errors[0].detail).toBe('invalid publish metadata: JSON nested far deeper than 64 levels');
  }
  expect(logged.slice(errorsBefore).filter((line) => line.level >= 50)).toEqual([]);
});

test("git transport: bad pkt-lines and a client hanging up mid-push are the client's errors, logged at info", async () => {
  const before = logged.length;
  const clientErrors = () => logged.slice(before).filter((line) => line.msg === 'git transport ended by a client error');
  const authorization = `Basic ${Buffer.from(`${ADMIN.name}:${ADMIN.password}`).toString('base64')}`;
  const endpoint = (service: string) => new URL(`${ADMIN.name}/repo.git/${service}`, server.url);
  const headers = (service: string) => ({ Authorization: authorization, 'Content-Type': `application/x-${service}-request` });
  for (const service of ['git-upload-pack', 'git-receive-pack']) {
    const res = await fetch(endpoint(service), { method: 'POST', headers: headers(service), body: 'this is no pkt-line' });
    await res.arrayBuffer();
    expect(res.status).toBe(200); // sent before git reads the request: git's complaint is in the body
  }
  await waitFor('both bad requests logged', () => clientErrors().length >= 2);

  // A push that hangs up after the commands and the start of its pack, once git is receiving it.
  const pkt = (text: string) => (text.length + 4).toString(16).padStart(4, '0') + text;
  const pushing = http.request(endpoint('git-receive-pack'), { method: 'POST', headers: headers('git-receive-pack') });
  pushing.on('error', () => undefined);
  pushing.write(`${pkt(`${'0'.repeat(40)} ${'1'.repeat(40)} refs/heads/hung-up\0 report-status\n`)}0000PACK\0\0\0\x02\0\0\0\x05`);
  const objects = path.join(server.dataDir, 'repositories', ADMIN.name.toLowerCase(), 'repo.git', 'objects');
  await waitFor('the push quarantine', () =>
    fs.readdirSync(objects).some((name) => name.startsWith('tmp_objdir-') || name.startsWith('incoming-')),
  );
  pushing.destroy();
  await waitFor('the hang-up logged', () => clientErrors().length >= 3);
  expect(logged.slice(before).filter((line) => line.level >= 40)).toEqual([]);
});

test('no operation answers 5xx to hostile input', async () => {
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  const probe = async (method: string, path: string, body?: unknown, raw?: string) => {
    const url = new URL(`api/v1${path}`, server.url);
    const headers: Record<string, string> = { Authorization: `token ${token}` };
    let payload: string | undefined;
    if (raw !== undefined) {
      payload = raw;
      headers['Content-Type'] = 'application/json';
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
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
    if (op.path.includes('{'))
      for (const odd of ODD_SEGMENTS) await probe(op.method, fill(op.path, odd), op.method === 'GET' ? undefined : {});
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
  const readAll = await server.token(
    { name: ADMIN.name, password: ADMIN.password },
    ALL_SCOPES.map((s) => s.replace('delete:', 'read:')),
    'read-all',
  );
  const wrong: string[] = [];
  let checked = 0;
  for (const op of operations) {
    const categories = Array.isArray(op.scopes) ? op.scopes : [];
    if (categories.length === 0 || op.auth === 'basic') continue;
    const url = new URL(`api/v1${fill(op.path, null)}`, server.url);
    const send = (t: string) =>
      fetch(url, {
        method: op.method,
        headers: { Authorization: `token ${t}`, 'Content-Type': 'application/json' },
        body: op.method === 'GET' ? undefined : '{}',
      });
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
