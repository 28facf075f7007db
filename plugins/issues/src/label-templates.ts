import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { yaml } from './yaml';
import {
  ApiError,
  nowUnix,
  ok,
  type ApiOperation,
  type ApiRequest,
  type ForgeSettings,
  type PluginContext,
  type RepositoryCreationPlan,
} from '@hearth/plugin-api';
import { normalizeColor } from './issue-store';
import { SCHEMAS_DIR, SHIPPED_LABEL_TEMPLATES_DIR } from './paths';

/** A template file larger than this is refused unread (a label set is a few KiB). */
const MAX_FILE_BYTES = 256 * 1024;

/** One label of a template, as the API's LabelTemplate sends it (color without '#'). */
export interface LabelTemplateEntry {
  name: string;
  color: string;
  exclusive: boolean;
  description: string;
}

interface Indexed {
  /** Display name: the file's basename without `.yaml`/`.yml`. */
  name: string;
  file: string;
  labels?: LabelTemplateEntry[];
  /** Why the file is not a valid template (then it is not listed). */
  problem?: string;
}

let validator: ValidateFunction | undefined;
function validateTemplate(doc: unknown): string | null {
  if (!validator) {
    const schema = JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'label-template.schema.json'), 'utf8'));
    validator = new Ajv({ allErrors: true, strict: false }).compile(schema);
  }
  if (validator(doc)) return null;
  return (validator.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}

/** Parse and check one template file: its labels, or the reason it is refused. */
export function readLabelTemplate(file: string): { labels?: LabelTemplateEntry[]; problem?: string } {
  try {
    const size = fs.statSync(file).size;
    if (size > MAX_FILE_BYTES) return { problem: `file is larger than ${MAX_FILE_BYTES} bytes` };
    // The yaml package builds plain data only (no tags that run code); aliases are capped against billion-laughs documents.
    const doc = yaml().parse(fs.readFileSync(file, 'utf8'), { maxAliasCount: 50, prettyErrors: false });
    const problem = validateTemplate(doc);
    if (problem) return { problem };
    const labels = (doc as { labels: Array<{ name: string; color: string; exclusive?: boolean; description?: string }> }).labels.map(
      (l) => ({
        name: l.name.trim(),
        color: normalizeColor(l.color)!.slice(1),
        exclusive: l.exclusive ?? false,
        description: l.description ?? '',
      }),
    );
    const seen = new Set<string>();
    for (const l of labels) {
      if (seen.has(l.name.toLowerCase())) return { problem: `label "${l.name}" is defined twice` };
      seen.add(l.name.toLowerCase());
    }
    return { labels };
  } catch (err) {
    return { problem: `not valid YAML: ${(err as Error).message.split('\n')[0]}` };
  }
}

/**
 * Label templates (Gitea's `options/label`): YAML files `<Name>.yaml` (or `.yml`) with a `labels`
 * list, validated against `schemas/label-template.schema.json`. The shipped sets come first; a
 * file of the operator's folder (`repository.LABEL_TEMPLATES_DIR`) replaces a shipped set of the
 * same name (compared without case) or adds one. Files are read once, on first use; an invalid
 * file is left out of the list and is a 422 naming its problem when asked for by name.
 */
export class LabelTemplates {
  private index?: Map<string, Indexed>;

  constructor(private readonly dirs: string[]) {}

  private entries(): Map<string, Indexed> {
    if (this.index) return this.index;
    const index = new Map<string, Indexed>();
    for (const dir of this.dirs) {
      let files: string[];
      try {
        files = fs.readdirSync(dir);
      } catch {
        continue; // a missing operator folder is no template
      }
      for (const f of files.sort()) {
        const m = /^(.+)\.ya?ml$/i.exec(f);
        const file = path.join(dir, f);
        if (!m || !fs.statSync(file).isFile()) continue;
        index.set(m[1].toLowerCase(), { name: m[1], file, ...readLabelTemplate(file) });
      }
    }
    this.index = index;
    return index;
  }

  /** Names of the valid templates, sorted. */
  names(): string[] {
    return [...this.entries().values()]
      .filter((e) => e.labels)
      .map((e) => e.name)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Templates that could not be used, with the reason (for logs and `hearth doctor`). */
  problems(): { name: string; file: string; problem: string }[] {
    return [...this.entries().values()].filter((e) => e.problem).map((e) => ({ name: e.name, file: e.file, problem: e.problem! }));
  }

  /** A template's labels by name (any case); null when there is none; 422 when its file is invalid. */
  get(name: string): LabelTemplateEntry[] | null {
    const entry = this.entries().get(name.toLowerCase());
    if (!entry) return null;
    if (entry.problem)
      throw ApiError.unprocessable(`label template "${entry.name}" is invalid: ${entry.problem}`, {
        errors: [{ field: 'issue_labels', message: entry.problem }],
      });
    return entry.labels!;
  }
}

const byForge = new WeakMap<object, LabelTemplates>();

/**
 * The label templates of a forge (one instance per server, shared by the template routes and
 * repository creation). A relative `repository.LABEL_TEMPLATES_DIR` is taken from
 * `server.DATA_DIR`; empty means the shipped sets only.
 */
export function labelTemplatesFor(forge: ForgeSettings): LabelTemplates {
  let templates = byForge.get(forge);
  if (!templates) {
    const custom = String(forge.raw.repository?.LABEL_TEMPLATES_DIR ?? '');
    templates = new LabelTemplates([SHIPPED_LABEL_TEMPLATES_DIR, ...(custom ? [path.resolve(forge.dataDir, custom)] : [])]);
    byForge.set(forge, templates);
  }
  return templates;
}

/**
 * The issues feature's part of repository creation: `repository.creating` resolves the plan's
 * label template into labels (422 for an unknown one, before anything is written), and
 * `repository.created` (first, stage -100) stores the plan's labels.
 */
export function tapRepositoryLabels(ctx: Pick<PluginContext, 'hooks' | 'db' | 'forge'>): void {
  const { hooks, db } = ctx;
  hooks.repository.creating.tapPromise('issues', async (plan: RepositoryCreationPlan) => {
    if (!plan.labelTemplate) return plan;
    const labels = labelTemplatesFor(ctx.forge).get(plan.labelTemplate);
    if (!labels)
      throw ApiError.unprocessable(`label template does not exist [name: ${plan.labelTemplate}]`, {
        errors: [{ field: 'issue_labels', message: 'unknown label template' }],
      });
    const resolved = labels.map((l) => ({
      name: l.name,
      color: normalizeColor(l.color) ?? l.color,
      description: l.description,
      exclusive: l.exclusive,
    }));
    return { ...plan, labelTemplate: undefined, labels: [...plan.labels, ...resolved] };
  });
  hooks.repository.created.tapPromise({ name: 'issues', stage: -100 }, async ({ repositoryId, plan }) => {
    if (!plan.labels.length) return;
    const now = nowUnix();
    await db('label').insert(
      plan.labels.map((l) => ({
        repo_id: repositoryId,
        org_id: 0,
        name: l.name,
        color: l.color,
        description: l.description,
        exclusive: l.exclusive,
        created_unix: now,
        updated_unix: now,
      })),
    );
  });
}

/** `/label/templates*`: public data, as Gitea serves it (any token works whatever its scope). */
export function labelTemplateOperations({ forge }: Pick<PluginContext, 'forge'>): ApiOperation[] {
  const templates = () => labelTemplatesFor(forge);
  return [
    {
      method: 'get',
      path: '/label/templates',
      operationId: 'listLabelTemplates',
      access: 'anyone',
      tag: 'miscellaneous',
      summary: 'Returns a list of all label templates',
      scopes: 'public',
      responses: { 200: { description: 'LabelTemplateList', schema: { type: 'array', items: { type: 'string' } } } },
      handler: () => ok(templates().names()),
    },
    {
      method: 'get',
      path: '/label/templates/{name}',
      operationId: 'getLabelTemplateInfo',
      access: 'anyone',
      tag: 'miscellaneous',
      summary: 'Returns all labels in a template',
      scopes: 'public',
      params: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 1, maxLength: 255, description: 'name of the template' } },
        required: ['name'],
      },
      responses: {
        200: { description: 'LabelTemplateInfo', schema: { type: 'array', items: { $ref: 'LabelTemplate' } } },
        404: 'APIError',
        422: 'APIError',
      },
      handler: (req: ApiRequest<unknown, unknown, { name: string }>) => {
        const labels = templates().get(req.params.name);
        if (!labels) throw ApiError.notFound(`label template does not exist [name: ${req.params.name}]`);
        return ok(labels);
      },
    },
  ];
}
