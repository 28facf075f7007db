import path from 'node:path';
import { ok, OWNER_REPO_PARAMS, type ApiOperation, type ApiRequest, type GitTreeEntry, type RepositoryInfo } from '@hearth/plugin-api';
import { repoOf, type IssueDeps } from './issue-context';
import { yaml } from './yaml';

/** Where Gitea 1.20 looks for issue templates (the first folder with any), and for their config.yaml|yml. */
const TEMPLATE_DIRS = [
  'ISSUE_TEMPLATE',
  'issue_template',
  '.gitea/ISSUE_TEMPLATE',
  '.gitea/issue_template',
  '.github/ISSUE_TEMPLATE',
  '.github/issue_template',
  '.gitlab/ISSUE_TEMPLATE',
  '.gitlab/issue_template',
];
const CONFIG_BASES = [
  '.gitea/ISSUE_TEMPLATE/config',
  '.gitea/issue_template/config',
  '.github/ISSUE_TEMPLATE/config',
  '.github/issue_template/config',
];
const FIELD_TYPES = ['markdown', 'textarea', 'input', 'dropdown', 'checkboxes'];
const DEFAULT_CONFIG = { blank_issues_enabled: true, contact_links: [] as unknown[] };

type Json = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
/** Labels as a list, or a comma-separated string (both are accepted by Gitea). */
const labelList = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.map(str).filter(Boolean)
    : str(v)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

/** A template's metadata and fields, checked as Gitea's template.Validate does; throws the reason. */
function validateTemplate(t: Json): void {
  if (!str(t.name).trim()) throw new Error("'name' is required");
  if (!str(t.about).trim()) throw new Error("'about' is required");
  if (t.body === undefined) return;
  if (!Array.isArray(t.body) || t.body.length === 0) throw new Error("'body' is required");
  const ids = new Set<string>();
  t.body.forEach((field: Json, i: number) => {
    const where = `body[${i}]`;
    if (!field || typeof field !== 'object' || !FIELD_TYPES.includes(str(field.type)))
      throw new Error(`${where}: unknown type "${str(field?.type)}"`);
    const id = str(field.id);
    if (id && ids.has(id)) throw new Error(`${where}: 'id' should be unique`);
    if (id) ids.add(id);
    const attributes = (field.attributes ?? {}) as Json;
    if (field.type !== 'markdown' && !str(attributes.label)) throw new Error(`${where}: 'label' is required`);
    if (field.type === 'markdown' && !str(attributes.value)) throw new Error(`${where}: 'value' is required`);
  });
}

/** Gitea's IssueTemplate JSON of one file: Markdown with YAML front matter, or an issue form in YAML. */
export function parseTemplate(fileName: string, text: string): Json {
  const ext = path.extname(fileName).toLowerCase();
  let meta: Json;
  let content = '';
  if (ext === '.md') {
    const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
    if (!m) throw new Error('a Markdown template starts with YAML front matter between --- lines');
    meta = (yaml().parse(m[1]) ?? {}) as Json;
    content = m[2];
  } else {
    meta = (yaml().parse(text) ?? {}) as Json;
    // As Gitea: an issue form may say `description` (GitHub's word) for `about`.
    if (meta && typeof meta === 'object' && !meta.about) meta.about = meta.description;
  }
  if (typeof meta !== 'object' || Array.isArray(meta)) throw new Error('the template is not a YAML mapping');
  validateTemplate(meta);
  return {
    name: str(meta.name),
    title: str(meta.title),
    about: str(meta.about),
    labels: labelList(meta.labels),
    ref: str(meta.ref),
    content,
    body: Array.isArray(meta.body) ? meta.body : null,
    file_name: fileName,
  };
}

/** Gitea's IssueConfig of a config file's text; throws the reason it is invalid. */
export function parseIssueConfig(text: string): { blank_issues_enabled: boolean; contact_links: unknown[] } {
  const raw = (yaml().parse(text) ?? {}) as Json;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error('the config is not a YAML mapping');
  const links = raw.contact_links ?? [];
  if (!Array.isArray(links)) throw new Error("'contact_links' must be a list");
  const contact_links = links.map((link: Json, i: number) => {
    for (const key of ['name', 'url', 'about']) if (!str(link?.[key])) throw new Error(`contact_links[${i}]: ${key} is required`);
    if (!/^https?:\/\/[^\s/]+/i.test(str(link.url))) throw new Error(`contact_links[${i}]: url is not a valid URL`);
    return { name: str(link.name), url: str(link.url), about: str(link.about) };
  });
  const blank = raw.blank_issues_enabled;
  if (blank !== undefined && typeof blank !== 'boolean') throw new Error("'blank_issues_enabled' must be a boolean");
  return { blank_issues_enabled: blank ?? true, contact_links };
}

/** Issue templates and the template config, read from the default branch (Gitea 1.20's three operations). */
export function issueTemplateOperations(deps: IssueDeps): ApiOperation[] {
  const { git } = deps;
  const head = async (r: RepositoryInfo) =>
    r.isEmpty ? null : ((await git.readRef(r.gitDir, `refs/heads/${r.defaultBranch}`))?.id ?? null);

  /** The templates of the first template folder that has files; invalid ones are left out, as Gitea does. */
  const templates = async (r: RepositoryInfo): Promise<Json[]> => {
    const commit = await head(r);
    if (!commit) return [];
    for (const dir of TEMPLATE_DIRS) {
      const entries: GitTreeEntry[] = await git.listTree(r.gitDir, commit, dir).catch(() => []);
      const files = entries.filter((e) => e.type === 'blob' && /\.(md|ya?ml)$/i.test(e.name) && !/^config\.ya?ml$/i.test(e.name));
      if (!files.length) continue;
      const blobs = await git.readBlobs(
        r.gitDir,
        files.map((f) => f.sha),
      );
      const out: Json[] = [];
      for (const f of files) {
        try {
          out.push(parseTemplate(f.name, blobs.get(f.sha)?.toString('utf8') ?? ''));
        } catch {
          // As Gitea: a broken template is not offered.
        }
      }
      return out;
    }
    return [];
  };

  /** The config file's text, or null without one. */
  const configText = async (r: RepositoryInfo): Promise<string | null> => {
    const commit = await head(r);
    if (!commit) return null;
    const exprs = CONFIG_BASES.flatMap((b) => [`${commit}:${b}.yaml`, `${commit}:${b}.yml`]);
    const blobs = await git.readBlobs(r.gitDir, exprs);
    const found = exprs.find((e) => blobs.has(e));
    return found ? blobs.get(found)!.toString('utf8') : null;
  };

  const base = {
    tag: 'repository',
    scopes: ['repository'] as ['repository'],
    access: { repo: { need: 'read' as const, unit: 'code' as const } },
  };
  type Req = ApiRequest<unknown, unknown, { owner: string; repo: string }>;
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issue_templates',
      operationId: 'repoGetIssueTemplates',
      summary: 'Get available issue templates for a repository',
      params: OWNER_REPO_PARAMS,
      responses: { 200: { description: 'IssueTemplates', schema: { type: 'array', items: { $ref: 'IssueTemplate' } } } },
      handler: async (req: Req) => ok(await templates(repoOf(req))),
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issue_config',
      operationId: 'repoGetIssueConfig',
      summary: 'Returns the issue config for a repo',
      params: OWNER_REPO_PARAMS,
      responses: { 200: 'IssueConfig' },
      handler: async (req: Req) => {
        const text = await configText(repoOf(req));
        // As Gitea: without a config, or with an invalid one, the defaults.
        if (text === null) return ok(DEFAULT_CONFIG);
        try {
          return ok(parseIssueConfig(text));
        } catch {
          return ok(DEFAULT_CONFIG);
        }
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/issue_config/validate',
      operationId: 'repoValidateIssueConfig',
      summary: 'Returns the validation information for a issue config',
      params: OWNER_REPO_PARAMS,
      responses: { 200: 'IssueConfigValidation' },
      handler: async (req: Req) => {
        const text = await configText(repoOf(req));
        if (text === null) return ok({ valid: true, message: '' });
        try {
          parseIssueConfig(text);
          return ok({ valid: true, message: '' });
        } catch (err) {
          return ok({ valid: false, message: (err as Error).message });
        }
      },
    },
  ];
}
