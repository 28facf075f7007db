import { startServer, type TestServer } from './helpers/server';

/**
 * Gitea 1.20's `GET /repos/{o}/{r}/issue_templates`, `…/issue_config` and
 * `…/issue_config/validate`: Markdown templates with front matter and YAML issue forms from the
 * first template folder of the default branch (broken ones left out), the config's defaults, and
 * its validation message. Files are written through the contents API. Runs on every database.
 */
let server: TestServer;
let owner: { name: string; password: string; id: number };
const as = () => ({ basic: [owner.name, owner.password] as [string, string] });
const put = async (file: string, text: string) => {
  const res = await server.api('POST', `/repos/tpl-owner/forms/contents/${file}`, {
    ...as(),
    body: { content: Buffer.from(text).toString('base64'), message: `add ${file}` },
  });
  expect(res.status).toBe(201);
};

beforeAll(async () => {
  server = await startServer();
  owner = await server.user('tpl-owner');
  expect((await server.api('POST', '/user/repos', { ...as(), body: { name: 'forms', auto_init: true } })).status).toBe(201);
  expect((await server.api('POST', '/user/repos', { ...as(), body: { name: 'empty' } })).status).toBe(201);
});
afterAll(async () => server?.close());

test('no templates and no config: [], the defaults, valid', async () => {
  expect((await server.api('GET', '/repos/tpl-owner/forms/issue_templates', as())).body).toEqual([]);
  expect((await server.api('GET', '/repos/tpl-owner/empty/issue_templates', as())).body).toEqual([]);
  expect((await server.api('GET', '/repos/tpl-owner/forms/issue_config', as())).body).toEqual({
    blank_issues_enabled: true,
    contact_links: [],
  });
  expect((await server.api('GET', '/repos/tpl-owner/forms/issue_config/validate', as())).body).toEqual({ valid: true, message: '' });
});

test('Markdown and YAML templates of .gitea/ISSUE_TEMPLATE; a broken one is left out', async () => {
  await put(
    '.gitea/ISSUE_TEMPLATE/bug.md',
    '---\nname: Bug report\nabout: Something broke\ntitle: "[bug] "\nlabels: bug, triage\nref: main\n---\n\n## Steps\n',
  );
  await put(
    '.gitea/ISSUE_TEMPLATE/feature.yaml',
    [
      'name: Feature',
      'description: Ask for something',
      'labels: [enhancement]',
      'body:',
      '  - type: markdown',
      '    attributes:',
      '      value: Thanks!',
      '  - type: textarea',
      '    id: what',
      '    attributes:',
      '      label: What do you want?',
      '    validations:',
      '      required: true',
      '',
    ].join('\n'),
  );
  await put('.gitea/ISSUE_TEMPLATE/broken.md', '---\nname: No about\n---\nbody\n');
  const res = await server.api('GET', '/repos/tpl-owner/forms/issue_templates', as());
  expect(res.status).toBe(200);
  expect(res.body).toEqual([
    {
      name: 'Bug report',
      title: '[bug] ',
      about: 'Something broke',
      labels: ['bug', 'triage'],
      ref: 'main',
      content: '\n## Steps\n',
      body: null,
      file_name: 'bug.md',
    },
    {
      name: 'Feature',
      title: '',
      about: 'Ask for something',
      labels: ['enhancement'],
      ref: '',
      content: '',
      body: [
        { type: 'markdown', attributes: { value: 'Thanks!' } },
        { type: 'textarea', id: 'what', attributes: { label: 'What do you want?' }, validations: { required: true } },
      ],
      file_name: 'feature.yaml',
    },
  ]);
});

test('the config: read, and an invalid one reported by validate while issue_config falls back to the defaults', async () => {
  await put(
    '.gitea/ISSUE_TEMPLATE/config.yml',
    'blank_issues_enabled: false\ncontact_links:\n  - name: Forum\n    url: https://forum.example.com\n    about: Ask there\n',
  );
  expect((await server.api('GET', '/repos/tpl-owner/forms/issue_config', as())).body).toEqual({
    blank_issues_enabled: false,
    contact_links: [{ name: 'Forum', url: 'https://forum.example.com', about: 'Ask there' }],
  });
  expect((await server.api('GET', '/repos/tpl-owner/forms/issue_config/validate', as())).body).toEqual({ valid: true, message: '' });
  // The config file is not offered as a template.
  expect(((await server.api('GET', '/repos/tpl-owner/forms/issue_templates', as())).body as any[]).length).toBe(2);

  const sha = ((await server.api('GET', '/repos/tpl-owner/forms/contents/.gitea/ISSUE_TEMPLATE/config.yml', as())).body as any).sha;
  const update = await server.api('PUT', '/repos/tpl-owner/forms/contents/.gitea/ISSUE_TEMPLATE/config.yml', {
    ...as(),
    body: {
      sha,
      message: 'break it',
      content: Buffer.from('contact_links:\n  - name: Forum\n    url: not a url\n    about: x\n').toString('base64'),
    },
  });
  expect(update.status).toBe(200);
  expect((await server.api('GET', '/repos/tpl-owner/forms/issue_config/validate', as())).body).toEqual({
    valid: false,
    message: 'contact_links[0]: url is not a valid URL',
  });
  expect((await server.api('GET', '/repos/tpl-owner/forms/issue_config', as())).body).toEqual({
    blank_issues_enabled: true,
    contact_links: [],
  });
  expect((await server.api('GET', '/repos/tpl-owner/forms/issue_templates')).status).toBe(200); // a public repository
});
