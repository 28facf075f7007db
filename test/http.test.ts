import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';

const PROBE = path.join(__dirname, 'fixtures/plugins/probe');

let server: TestServer;
let adminToken: string;

beforeAll(async () => {
  server = await startServer({
    server: { MAX_BODY_SIZE: 4096 },
    metrics: { TOKEN: '' },
    plugins: { probe: { package: PROBE, settings: { failingTap: true, label: 'checked' } } },
  });
  adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
});
afterAll(() => server.close());

describe("errors are JSON with Gitea's {message, url} and the right status", () => {
  test('unknown /api/v1 route → 404 JSON', async () => {
    const res = await server.api('GET', '/no/such/route');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual({ message: 'not found: GET /api/v1/no/such/route', url: `${server.url}api/swagger` });
  });

  test('known path, wrong method → 405 with Allow', async () => {
    const res = await server.api('PUT', '/version');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.body.message).toMatch(/not allowed/);
  });

  test('malformed JSON → 422 that says so', async () => {
    const res = await server.api('POST', '/admin/users', {
      token: adminToken,
      rawBody: '{"username": "x",',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^body: invalid JSON/);
  });

  test('a JSON body sent as a form content type is still read (curl -d)', async () => {
    const res = await server.api('POST', '/probe/mutate', {
      rawBody: '{"title":"  hi  "}',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
  });

  test('a body that is JSON but not an object → 422 naming the problem', async () => {
    const res = await server.api('POST', '/admin/users', {
      token: adminToken,
      rawBody: '[1,2]',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('body');
  });

  test('a required body that is missing → 422', async () => {
    const res = await server.api('POST', '/admin/users', { token: adminToken });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/body is required/);
  });

  test('an oversize body → 413, and the server keeps serving', async () => {
    const res = await server.api('POST', '/admin/users', {
      token: adminToken,
      rawBody: JSON.stringify({ username: 'big', email: 'b@example.com', password: 'x'.repeat(10000) }),
    });
    expect(res.status).toBe(413);
    expect(res.body.message).toMatch(/too large/);
    expect((await server.api('GET', '/version')).status).toBe(200);
  });

  test('a bad query parameter type → 422 naming it', async () => {
    const res = await server.api('GET', '/probe/items?n=lots');
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('query.n = "lots": must be integer');
  });

  test('an unexpected failure → 500 JSON without internals, logged under its request id', async () => {
    const res = await server.api('GET', '/probe/boom', { headers: { 'X-Request-Id': 'trace-me-42' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('trace-me-42');
    expect(res.body.request_id).toBe('trace-me-42');
    expect(res.text).not.toContain('kaboom');
    expect(res.text).not.toMatch(/at .*\.js:\d+/);
  });

  test('every response carries a request id; an ill-formed incoming one is replaced', async () => {
    const res = await server.api('GET', '/version', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('unknown site paths → 404 JSON too', async () => {
    const res = await server.api('GET', '//definitely/not/here');
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/not found/);
  });
});

describe('paging', () => {
  test('page/limit select the slice; X-Total-Count and Link let a client walk every page', async () => {
    const seen: number[] = [];
    let next: string | null = `/probe/items?n=7&limit=3&token=${adminToken}`;
    let pages = 0;
    while (next && pages < 10) {
      const res: any = await server.api('GET', next);
      expect(res.headers.get('x-total-count')).toBe('7');
      seen.push(...res.body);
      const link = res.headers.get('link') ?? '';
      expect(link).not.toContain(adminToken); // credentials never echo into Link
      const m = /<([^>]+)>; rel="next"/.exec(link);
      next = m ? `//${new URL(m[1]).pathname.slice(1)}${new URL(m[1]).search}` : null;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  test('limit is clamped to MAX_RESPONSE_ITEMS and defaults to DEFAULT_PAGING_NUM', async () => {
    expect((await server.api('GET', '/probe/items?n=200&limit=1000')).body).toHaveLength(50);
    expect((await server.api('GET', '/probe/items?n=200')).body).toHaveLength(30);
    expect((await server.api('GET', '/probe/items?n=200&page=0')).body[0]).toBe(0);
  });
});

describe('hook seams', () => {
  test('a failing notification tap is contained: the request succeeds and later taps still run', async () => {
    const res = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username: 'tapped', email: 'tapped@example.com', password: 'long-enough-pw' },
    });
    expect(res.status).toBe(201);
    const events = (await server.api('GET', '/probe/events')).body;
    expect(events).toContainEqual({ hook: 'user.created', detail: JSON.stringify({ name: 'tapped', actor: ADMIN.name }) });
  });

  test('lifecycle.ready fired once the server listened', async () => {
    const events = (await server.api('GET', '/probe/events')).body;
    expect(events.filter((e: { hook: string }) => e.hook === 'lifecycle.ready')).toHaveLength(1);
  });

  test('webhook.emit fans an event out to subscribers', async () => {
    const res = await server.api('POST', '/probe/emit', { token: adminToken, body: { event: 'push', action: 'created' } });
    expect(res.status).toBe(204);
    const events = (await server.api('GET', '/probe/events')).body;
    expect(events).toContainEqual({ hook: 'webhook.emit', detail: JSON.stringify({ event: 'push', action: 'created' }) });
  });

  test('issue.mutate is a waterfall: a tap rewrites the proposed change', async () => {
    const res = await server.api('POST', '/probe/mutate', { body: { title: '  Fix it  ' } });
    expect(res.body).toEqual({ kind: 'edit', issueId: 1, repositoryId: 1, changes: { title: 'Fix it [checked]' } });
  });
});

describe('OpenAPI document and docs page', () => {
  test('/swagger.v1.json lists kernel and plugin operations with their schemas', async () => {
    const res = await server.api('GET', '//swagger.v1.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.swagger).toBe('2.0');
    expect(doc.basePath).toBe('/api/v1');
    const create = doc.paths['/users/{username}/tokens'].post;
    expect(create.operationId).toBe('userCreateToken');
    expect(create['x-hearth-scopes']).toEqual(['user']);
    expect(create.parameters).toContainEqual({
      name: 'username',
      in: 'path',
      required: true,
      type: 'string',
      maxLength: 255,
      description: 'username of the user',
    });
    expect(create.parameters).toContainEqual({
      name: 'body',
      in: 'body',
      required: true,
      schema: { $ref: '#/definitions/CreateAccessTokenOption' },
    });
    expect(doc.definitions.CreateAccessTokenOption.required).toEqual(['name']);
    expect(doc.definitions.User.properties.login.type).toBe('string');
    expect(doc.paths['/version'].get['x-hearth-plugin']).toBe('misc');
    expect(doc.paths['/admin/users'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'source_id',
      'login_name',
      'page',
      'limit',
    ]);
    // Every $ref points at a definition that exists.
    const refs = JSON.stringify(doc).match(/#\/definitions\/\w+/g) ?? [];
    for (const ref of new Set(refs)) expect(doc.definitions).toHaveProperty(ref.split('/').pop()!);
  });

  test('the schema that validates a request is the one published', async () => {
    const doc = (await server.api('GET', '//swagger.v1.json')).body;
    expect(doc.definitions.CreateUserOption.properties.username.maxLength).toBe(40);
    const res = await server.api('POST', '/admin/users', {
      token: adminToken,
      body: { username: 'y'.repeat(41), email: 'y@example.com', password: 'long-enough-pw' },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('must NOT have more than 40 characters');
  });

  test('/api/swagger serves the docs page with local assets', async () => {
    const page = await server.api('GET', '//api/swagger');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui-bundle.js');
    expect(page.text).toContain('../swagger.v1.json');
    const asset = await server.api('GET', '//assets/swagger-ui/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
  });
});

describe('observability', () => {
  test('/api/healthz checks the database', async () => {
    const res = await server.api('GET', '//api/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/health\+json/);
    expect(res.body.status).toBe('pass');
    expect(res.body.checks['database:ping'][0].status).toBe('pass');
  });

  test('/metrics exposes request counters by route template', async () => {
    await server.api('GET', '/users/forge-admin');
    const res = await server.api('GET', '//metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/hearth_http_requests_total\{method="GET",route="\/users\/\{username\}",status="200"\} \d+/);
    expect(res.text).toContain('hearth_process_resident_memory_bytes');
  });

  test('request log lines carry neither the query string nor a token in a package path', async () => {
    const logLines: string[] = [];
    const logged = await startServer({ log: { LEVEL: 'info', REQUESTS: true } }, { logLines });
    try {
      await logged.api('GET', '//api/packages/forge-admin/conda/t/secret-path-token/noarch/repodata.json');
      await logged.api('GET', '/user?access_token=secret-query-token');
      const requests = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
      expect(requests.map((entry) => entry.path)).toEqual(
        expect.arrayContaining(['/api/packages/forge-admin/conda/t/[redacted]/noarch/repodata.json', '/api/v1/user']),
      );
      expect(logLines.join('\n')).not.toMatch(/secret-path-token|secret-query-token/);
    } finally {
      await logged.close();
    }
  });

  test('avatar URLs answer with a generated image', async () => {
    const user = (await server.api('GET', '/users/forge-admin')).body;
    const res = await fetch(user.avatar_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/image\/svg\+xml/);
  });
});

describe('metrics token', () => {
  test('when set, /metrics requires it', async () => {
    const guarded = await startServer({ metrics: { TOKEN: 'scrape-secret' } });
    try {
      expect((await guarded.api('GET', '//metrics')).status).toBe(401);
      expect((await guarded.api('GET', '//metrics', { headers: { Authorization: 'Bearer scrape-secret' } })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
