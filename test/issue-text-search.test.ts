import { ADMIN, startServer, type TestServer } from './helpers/server';

/**
 * `q=` on the issue lists goes through the database's full-text index (SQLite FTS5, PostgreSQL
 * tsvector, MariaDB FULLTEXT), kept in sync by the database on every write: the same matches on
 * the three databases (this file runs on each).
 */
let server: TestServer;
let token: string;
const R = '/repos/owner/searched';

const call = (method: string, p: string, body?: unknown) => server.api(method, p, { token, body });
const titles = async (query: string, base = `${R}/issues?state=all&`) => {
  const res = await call('GET', `${base}${query}`);
  expect(res.status).toBe(200);
  return (res.body as { title: string }[]).map((i) => i.title).sort();
};
const search = (q: string) => titles(`q=${encodeURIComponent(q)}`);
const globalSearch = (q: string) => titles(`q=${encodeURIComponent(q)}`, '/repos/issues/search?state=all&');

beforeAll(async () => {
  server = await startServer();
  token = await server.token(await server.user('owner'), ['write:repository', 'write:issue', 'delete:issue']);
  expect((await call('POST', '/user/repos', { name: 'searched' })).status).toBe(201);
  const issues: [string, string][] = [
    ['Crash on start', 'The loader segfaults when the config is empty'],
    ['Dark mode', 'Add a theme switch; see the colour scheme'],
    ['Task 1', 'first of a series'],
    ['Task 12', 'twelfth of a series'],
    ['Résumé upload fails', 'Übergröße files: 413 from the proxy'],
    ['Ship it', 'the release will be tagged after review'],
    ['foo_bar and v1.2.3', 'snake_case name, version string'],
  ];
  for (const [title, body] of issues) expect((await call('POST', `${R}/issues`, { title, body })).status).toBe(201);
});
afterAll(() => server.close());

describe('issue text search', () => {
  test('every word must begin a word of the title or body, case-insensitively', async () => {
    expect(await search('crash')).toEqual(['Crash on start']);
    expect(await search('CRA')).toEqual(['Crash on start']);
    expect(await search('segfault')).toEqual(['Crash on start']);
    expect(await search('loader config')).toEqual(['Crash on start']);
    expect(await search('loader theme')).toEqual([]);
    // A word in the middle of another word is not a match ("rash" is not the start of "Crash").
    expect(await search('rash')).toEqual([]);
    expect(await search('series')).toEqual(['Task 1', 'Task 12']);
  });

  test('stopwords of the databases match like any other word', async () => {
    expect(await search('the')).toEqual(['Crash on start', 'Dark mode', 'Résumé upload fails', 'Ship it']);
    expect(await search('will')).toEqual(['Ship it']);
  });

  test('short words (under the three-letter minimum of the MariaDB index) begin words too', async () => {
    expect(await search('task 1')).toEqual(['Task 1', 'Task 12']);
    expect(await search('task 12')).toEqual(['Task 12']);
    expect(await search('it')).toEqual(['Ship it']); // not "switch"
    expect(await search('of a')).toEqual(['Task 1', 'Task 12']);
    expect(await search('v1')).toEqual(['foo_bar and v1.2.3']);
  });

  test('letters beyond ASCII, digits and punctuation between words', async () => {
    expect(await search('résumé')).toEqual(['Résumé upload fails']);
    expect(await search('übergröße')).toEqual(['Résumé upload fails']);
    expect(await search('413')).toEqual(['Résumé upload fails']);
    // `_` joins words (MariaDB's FULLTEXT keeps snake_case whole): search for the whole name.
    expect(await search('snake_case')).toEqual(['foo_bar and v1.2.3']);
    expect(await search('foo_b')).toEqual(['foo_bar and v1.2.3']);
    expect(await search('colour-scheme')).toEqual(['Dark mode']);
  });

  test('query syntax of the three engines is plain text', async () => {
    for (const q of ['___', '_', '"crash', 'crash*', '-crash', '+crash', 'crash:*', 'crash & !dark', 'crash | dark', '(crash)', "cr'ash"]) {
      const res = await call('GET', `${R}/issues?state=all&q=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
    }
    expect(await search('crash | dark')).toEqual([]);
    expect(await search('"crash"')).toEqual(['Crash on start']);
    // No word at all: a plain substring match, as before.
    expect(await search('%%')).toEqual([]);
    expect(await search('___')).toEqual([]);
    expect(await search(';')).toEqual(['Dark mode']);
    expect(await search('/')).toEqual([]);
  });

  test('the index follows edits and deletions', async () => {
    const created = await call('POST', `${R}/issues`, { title: 'Flaky pipeline', body: 'intermittent timeout' });
    expect(created.status).toBe(201);
    const index = created.body.number as number;
    expect(await search('flaky')).toEqual(['Flaky pipeline']);
    expect((await call('PATCH', `${R}/issues/${index}`, { title: 'Stable pipeline', body: 'fixed for good' })).status).toBe(201);
    expect(await search('flaky')).toEqual([]);
    expect(await search('intermittent')).toEqual([]);
    expect(await search('stable good')).toEqual(['Stable pipeline']);
    expect((await call('DELETE', `${R}/issues/${index}`)).status).toBe(204);
    expect(await search('stable')).toEqual([]);
  });

  test('the cross-repository search matches the same way', async () => {
    expect(await globalSearch('crash')).toEqual(['Crash on start']);
    expect(await globalSearch('task 1')).toEqual(['Task 1', 'Task 12']);
    expect(await globalSearch('rash')).toEqual([]);
    // The site admin sees the same through their own token.
    const adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['read:issue', 'read:repository']);
    const res = await server.api('GET', '/repos/issues/search?q=segfault&state=all', { token: adminToken });
    expect((res.body as { title: string }[]).map((i) => i.title)).toEqual(['Crash on start']);
  });
});
