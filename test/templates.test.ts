import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isApiError } from '@hearth/plugin-api';
import { LICENSE_IMPLEMENTATION, RepoTemplates } from '../core/kernel/src/repos/templates';
import { ADMIN, startServer, type TestServer } from './helpers/server';

/** Names a client could send to reach files outside the template index. */
const TRAVERSALS = [
  '../../package',
  'Go/../Node',
  '..',
  '../Go',
  'Global/macOS',
  'gitignore/Go',
  'Go\0',
  'Go\\..\\Node',
  '/etc/passwd',
  '',
  'x'.repeat(300),
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'licenses/MIT',
  'spdx',
];

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('RepoTemplates (data)', () => {
  const templates = new RepoTemplates();

  describe('gitignore', () => {
    test("lists GitHub's collection flat by basename, sorted as Gitea sorts", () => {
      const names = templates.gitignoreNames();
      expect(names.length).toBeGreaterThan(100);
      expect(names).toEqual([...names].sort(byteOrder));
      expect(names).toEqual(expect.arrayContaining(['Go', 'Node', 'Python', 'Rust', 'C++', 'macOS', 'JetBrains', 'VisualStudioCode']));
      expect(names.filter((n) => n.endsWith('.gitignore') || /readme|license|contributing/i.test(n))).toEqual([]);
      expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    });

    test('a template by name, any case, under its own name', () => {
      const go = templates.gitignore('Go');
      expect(go?.name).toBe('Go');
      expect(go?.source).toContain('*.exe');
      expect(go?.source).toContain('*.test');
      expect(templates.gitignore('go')).toEqual(go);
      expect(templates.gitignore('GO')).toEqual(go);
      expect(templates.gitignore('macos')?.name).toBe('macOS');
      expect(templates.gitignore('Node')?.source).toContain('node_modules/');
    });

    test('unknown and path-like names are null', () => {
      expect(templates.gitignore('NoSuchLanguage')).toBeNull();
      for (const name of TRAVERSALS) expect([name, templates.gitignore(name)]).toEqual([name, null]);
    });

    test('combined: each template after a "# ---> Name" line, as Gitea writes .gitignore', () => {
      const go = templates.gitignore('Go')!.source;
      const node = templates.gitignore('Node')!.source;
      expect(templates.combinedGitignore(['Go', 'node'])).toBe(`# ---> Go\n${go}\n# ---> Node\n${node}\n`);
      // Gitea's option is a comma-separated string: spaces and empty items are forgiven, repeats kept once.
      expect(templates.combinedGitignore(' go, ,Node,GO'.split(','))).toBe(`# ---> Go\n${go}\n# ---> Node\n${node}\n`);
      expect(templates.combinedGitignore([])).toBe('');
    });

    test('combined with an unknown or path-like name is a 400 naming it', () => {
      for (const name of ['Nope', '../../package']) {
        let thrown: unknown;
        try {
          templates.combinedGitignore(['Go', name]);
        } catch (err) {
          thrown = err;
        }
        expect(isApiError(thrown)).toBe(true);
        expect(thrown).toMatchObject({ status: 400, message: `gitignore template does not exist [name: ${name}]` });
      }
    });
  });

  describe('licenses', () => {
    test("lists the SPDX licenses, Gitea's preferred ones first, then by key", () => {
      const list = templates.licenses();
      expect(list.length).toBeGreaterThan(400);
      expect(list.slice(0, 2)).toEqual([
        { key: 'Apache-2.0', name: 'Apache License 2.0' },
        { key: 'MIT', name: 'MIT License' },
      ]);
      const rest = list.slice(2).map((l) => l.key);
      expect(rest).toEqual([...rest].sort(byteOrder));
      expect(new Set(list.map((l) => l.key.toLowerCase())).size).toBe(list.length);
      expect(rest).toEqual(expect.arrayContaining(['GPL-3.0-only', 'BSD-3-Clause', 'MPL-2.0', '0BSD']));
    });

    test('preferred licenses are configurable; unknown ones are skipped', () => {
      const custom = new RepoTemplates({ preferredLicenses: ['gpl-3.0-only', 'No-Such-License', 'MIT', 'GPL-3.0-ONLY'] });
      expect(
        custom
          .licenses()
          .slice(0, 3)
          .map((l) => l.key),
      ).toEqual(['GPL-3.0-only', 'MIT', '0BSD']);
      expect(custom.licenses().length).toBe(templates.licenses().length);
    });

    test('a license by SPDX id, any case, with its text', () => {
      const mit = templates.license('mit');
      expect(mit).toEqual({
        key: 'MIT',
        name: 'MIT License',
        body: expect.stringContaining('Permission is hereby granted'),
        implementation: LICENSE_IMPLEMENTATION,
      });
      expect(templates.license('MIT')).toEqual(mit);
      expect(templates.license('apache-2.0')?.body).toContain('Apache License');
      expect(templates.license('GPL-2.0+')?.key).toBe('GPL-2.0+');
    });

    test('unknown and path-like names are null', () => {
      expect(templates.license('WTFPL-9')).toBeNull();
      for (const name of TRAVERSALS) expect([name, templates.license(name)]).toEqual([name, null]);
    });
  });

  describe('readme', () => {
    const vars = { Name: 'hearth', Description: 'A forge', Owner: 'alice', CloneURLHTTPS: 'http://h/alice/hearth.git' };

    test('Gitea\'s one template, "Default"', () => {
      expect(templates.readmeNames()).toEqual(['Default']);
      expect(templates.readme('Default', vars)).toBe('# hearth\n\nA forge\n');
      expect(templates.readme('default', vars)).toBe('# hearth\n\nA forge\n');
    });

    test('a placeholder inside a substituted value is left as written', () => {
      expect(templates.readme('Default', { ...vars, Description: 'see {Name} and {Owner}' })).toBe('# hearth\n\nsee {Name} and {Owner}\n');
    });

    test('unknown and path-like names are null', () => {
      expect(templates.readme('Fancy', vars)).toBeNull();
      for (const name of TRAVERSALS) expect([name, templates.readme(name, vars)]).toEqual([name, null]);
    });

    test('every placeholder Gitea knows, in a template folder of our own; symlinks are not templates', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-readme-'));
      try {
        fs.writeFileSync(path.join(dir, 'Full'), '{Name}|{Description}|{Owner}|{OwnerName}|{CloneURL.HTTPS}|{CloneURL.SSH}|{Unknown}\n');
        fs.symlinkSync(path.join(__dirname, '..', 'package.json'), path.join(dir, 'Escape'));
        const own = new RepoTemplates({ readmeDir: dir });
        expect(own.readmeNames()).toEqual(['Full']);
        expect(own.readme('full', vars)).toBe('hearth|A forge|alice|alice|http://h/alice/hearth.git||{Unknown}\n');
        expect(own.readme('full', { ...vars, CloneURLSSH: 'git@h:alice/hearth.git' })).toContain('|git@h:alice/hearth.git|');
        expect(own.readme('Escape', vars)).toBeNull();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

describe('template API (miscellaneous, public)', () => {
  let server: TestServer;
  let narrowToken: string;
  let publicOnlyToken: string;

  beforeAll(async () => {
    server = await startServer();
    const admin = { name: ADMIN.name, password: ADMIN.password };
    narrowToken = await server.token(admin, ['read:issue']);
    publicOnlyToken = await server.token(admin, ['public-only', 'read:user']);
  });
  afterAll(() => server.close());

  test('GET /gitignore/templates lists the names', async () => {
    const res = await server.api('GET', '/gitignore/templates');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(new RepoTemplates().gitignoreNames());
    expect(res.body).toEqual(expect.arrayContaining(['Go', 'Node', 'Python']));
  });

  test('GET /gitignore/templates/{name}: any case, canonical name back', async () => {
    const res = await server.api('GET', '/gitignore/templates/go');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Go', source: expect.stringContaining('*.test') });
    expect((await server.api('GET', '/gitignore/templates/C++')).body.name).toBe('C++');
  });

  test("GET /licenses: Gitea 1.20's {key, name, url} with the SPDX id", async () => {
    const res = await server.api('GET', '/licenses');
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(400);
    expect(res.body.slice(0, 2)).toEqual([
      { key: 'Apache-2.0', name: 'Apache-2.0', url: `${server.url}api/v1/licenses/Apache-2.0` },
      { key: 'MIT', name: 'MIT', url: `${server.url}api/v1/licenses/MIT` },
    ]);
    // Go's url.PathEscape keeps '+', and the URL answers.
    const gpl = res.body.find((l: { key: string }) => l.key === 'GPL-2.0+');
    expect(gpl.url).toBe(`${server.url}api/v1/licenses/GPL-2.0+`);
    expect((await fetch(gpl.url)).status).toBe(200);
  });

  test('GET /licenses/{name}: the text, any case', async () => {
    const res = await server.api('GET', '/licenses/mit');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      key: 'MIT',
      name: 'MIT',
      url: `${server.url}api/v1/licenses/MIT`,
      implementation: LICENSE_IMPLEMENTATION,
      body: expect.stringContaining('Permission is hereby granted'),
    });
  });

  test('unknown names are 404 JSON naming them', async () => {
    const gitignore = await server.api('GET', '/gitignore/templates/NoSuchLanguage');
    expect(gitignore.status).toBe(404);
    expect(gitignore.headers.get('content-type')).toMatch(/application\/json/);
    expect(gitignore.body).toEqual({
      message: 'gitignore template does not exist [name: NoSuchLanguage]',
      url: `${server.url}api/swagger`,
    });
    const license = await server.api('GET', '/licenses/WTFPL-9');
    expect(license.status).toBe(404);
    expect(license.body.message).toBe('license template does not exist [name: WTFPL-9]');
  });

  test('path-like and odd names are 404, never a file outside the data nor a 500', async () => {
    for (const route of ['/gitignore/templates', '/licenses']) {
      for (const name of [
        '..%2F..%2Fpackage.json',
        '..%2F..%2Fpackage',
        'Go%2F..%2FNode',
        '..',
        '%2E%2E',
        'Go%00',
        '__proto__',
        'constructor',
        '%2Fetc%2Fpasswd',
      ]) {
        const res = await server.api('GET', `${route}/${name}`);
        expect([route, name, res.status]).toEqual([route, name, 404]);
        expect(res.text).not.toContain('"dependencies"');
      }
      // Longer than the params schema allows: the validation error, not a 500.
      const long = await server.api('GET', `${route}/${'x'.repeat(300)}`);
      expect(long.status).toBe(422);
    }
  });

  test('no sign-in needed, and any token works whatever its scope', async () => {
    for (const token of [undefined, narrowToken, publicOnlyToken]) {
      expect((await server.api('GET', '/gitignore/templates', { token })).status).toBe(200);
      expect((await server.api('GET', '/gitignore/templates/Go', { token })).status).toBe(200);
      expect((await server.api('GET', '/licenses', { token })).status).toBe(200);
      expect((await server.api('GET', '/licenses/MIT', { token })).status).toBe(200);
    }
    expect((await server.api('GET', '/licenses', { basic: [ADMIN.name, ADMIN.password] })).status).toBe(200);
  });

  test('bad credentials are still 401, as on every route', async () => {
    expect((await server.api('GET', '/licenses', { token: '0'.repeat(40) })).status).toBe(401);
  });

  test('the OpenAPI document lists the four operations with their schemas', async () => {
    const doc = (await server.api('GET', '//swagger.v1.json')).body;
    const ops = {
      listGitignoresTemplates: doc.paths['/gitignore/templates'].get,
      getGitignoreTemplateInfo: doc.paths['/gitignore/templates/{name}'].get,
      listLicenseTemplates: doc.paths['/licenses'].get,
      getLicenseTemplateInfo: doc.paths['/licenses/{name}'].get,
    };
    for (const [id, op] of Object.entries(ops)) {
      expect(op).toMatchObject({ operationId: id, tags: ['miscellaneous'], 'x-hearth-scopes': 'public' });
    }
    expect(ops.getGitignoreTemplateInfo.responses['200'].schema).toEqual({ $ref: '#/definitions/GitignoreTemplateInfo' });
    expect(ops.getLicenseTemplateInfo.responses['200'].schema).toEqual({ $ref: '#/definitions/LicenseTemplateInfo' });
    expect(ops.listLicenseTemplates.responses['200'].schema).toEqual({
      type: 'array',
      items: { $ref: '#/definitions/LicensesTemplateListEntry' },
    });
    expect(ops.getLicenseTemplateInfo.parameters).toEqual([
      expect.objectContaining({ name: 'name', in: 'path', required: true, type: 'string' }),
    ]);
    for (const def of ['GitignoreTemplateInfo', 'LicenseTemplateInfo', 'LicensesTemplateListEntry'])
      expect(doc.definitions[def]).toBeDefined();
  });
});
