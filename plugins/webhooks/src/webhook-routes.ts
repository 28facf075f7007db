import type { Knex } from 'knex';
import {
  ApiError,
  OWNER_REPO_PARAMS,
  ZERO_ID,
  created,
  insertId,
  noContent,
  nowUnix,
  ok,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type OperationAccess,
  type PluginContext,
  type ScopeCategory,
} from '@hearth/plugin-api';
import { enqueue, taskToApi, toTask, type Deliverer } from './delivery';
import { HOOK_TYPES, branchGlob, hookToApi, toWebhook, type HeaderSealer, type HookType, type WebhookRow } from './model';
import { checkContentType, checkMethod, checkUrl, hookEvents, metaOf, type CreateHookBody, type EditHookBody } from './hook-options';

/** Where a level's hooks live: the rows it may see and the values a new hook gets. */
interface HookScope {
  repoId: number;
  ownerId: number;
  system: boolean;
}

interface Level {
  /** operationId prefix: repo, org, user, admin. */
  prefix: 'repo' | 'org' | 'user' | 'admin';
  base: string;
  tag: string;
  scopes: ScopeCategory[];
  params: JsonSchema | undefined;
  access: OperationAccess;
  /** The hooks of the target the access declaration resolved. */
  scope(req: ApiRequest<any, any, any>): HookScope;
}

/** What the operations of every level share. */
interface HookDeps {
  ctx: PluginContext;
  deliverer: Deliverer;
  headers: HeaderSealer;
  hooks: HookRows;
}

const idParams = (base: JsonSchema | undefined, extra: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties: { ...((base?.properties as object) ?? {}), ...extra },
  required: [...((base?.required as string[]) ?? []), ...Object.keys(extra)],
});

const HOOK_ID = { id: { type: 'integer', minimum: 1, description: 'id of the hook' } } as Record<string, JsonSchema>;

const DELIVERY_KEY: JsonSchema = { type: 'string', maxLength: 64, description: 'the delivery UUID (or its id)' };

const ORG_PARAMS: JsonSchema = {
  type: 'object',
  properties: { org: { type: 'string', maxLength: 255, description: 'name of the organization' } },
  required: ['org'],
};

const LEVELS: Level[] = [
  {
    prefix: 'repo',
    base: '/repos/{owner}/{repo}/hooks',
    tag: 'repository',
    scopes: ['repository'],
    params: OWNER_REPO_PARAMS,
    access: { repo: { need: 'admin' } },
    scope(req) {
      const repository = req.target.repository!;
      return { repoId: repository.id, ownerId: repository.ownerId, system: false };
    },
  },
  {
    prefix: 'org',
    base: '/orgs/{org}/hooks',
    tag: 'organization',
    scopes: ['organization'],
    params: ORG_PARAMS,
    access: { org: 'owner' },
    scope: (req) => ({ repoId: 0, ownerId: req.target.owner!.id, system: false }),
  },
  {
    prefix: 'user',
    base: '/user/hooks',
    tag: 'user',
    scopes: ['user'],
    params: undefined,
    access: 'caller',
    scope: (req) => ({ repoId: 0, ownerId: req.principal!.user.id, system: false }),
  },
  {
    prefix: 'admin',
    base: '/admin/hooks',
    tag: 'admin',
    scopes: ['admin'],
    params: undefined,
    access: 'site-admin',
    scope: () => ({ repoId: 0, ownerId: 0, system: true }),
  },
];

/** The hooks of a scope, and one of them by id (404 when it is not in the scope). */
interface HookRows {
  of(s: HookScope): Knex.QueryBuilder;
  byId(s: HookScope, id: number): Promise<WebhookRow>;
}

function hookRows(db: Knex): HookRows {
  const of = (s: HookScope) => {
    if (s.repoId) return db('webhook').where('repo_id', s.repoId);
    return db('webhook').where({ repo_id: 0, owner_id: s.ownerId, is_system_webhook: s.system });
  };
  return {
    of,
    byId: async (s, id) => {
      const raw = await of(s).where('id', id).first();
      if (!raw) throw ApiError.notFound(`hook does not exist [id: ${id}]`);
      return toWebhook(raw);
    },
  };
}

/**
 * Webhooks at repository, organization, user and system level (Gitea's /repos/{owner}/{repo}/hooks,
 * /orgs/{org}/hooks, /user/hooks, /admin/hooks), a test delivery, and — a Hearth extension —
 * each hook's delivery history with redelivery. Changes wake `deliverer`, this process's workers.
 */
export function webhookOperations(ctx: PluginContext, deliverer: Deliverer, headers: HeaderSealer): ApiOperation[] {
  const deps: HookDeps = { ctx, deliverer, headers, hooks: hookRows(ctx.db) };
  const levelOps = LEVELS.flatMap((level) => [...hookOperations(deps, level), ...deliveryOperations(deps, level)]);
  // The literal /hooks/git routes must be matched before /hooks/{id}.
  return [...gitHookOperations(), ...levelOps, testOperation(deps)];
}

/** List, create, get, edit and delete the hooks of a level. */
function hookOperations({ ctx, deliverer, headers, hooks }: HookDeps, level: Level): ApiOperation[] {
  const { db, http } = ctx;
  const base = { tag: level.tag, scopes: level.scopes, access: level.access, auth: 'required' as const };
  const oneParams = idParams(level.params, HOOK_ID);
  const p = level.prefix;
  return [
    {
      ...base,
      method: 'get',
      path: level.base,
      operationId: `${p}ListHooks`,
      summary: 'List the hooks',
      paged: true,
      params: level.params,
      responses: { 200: { description: 'HookList', schema: { type: 'array', items: { $ref: 'Hook' } } } },
      handler: async (req) => {
        const s = level.scope(req);
        const [{ n }] = await hooks.of(s).count({ n: '*' });
        const rows = (await hooks.of(s).orderBy('id').offset(req.paging.offset).limit(req.paging.limit)).map(toWebhook);
        return http.paged(req, rows.map(hookToApi), Number(n));
      },
    },
    {
      ...base,
      method: 'post',
      path: level.base,
      operationId: `${p}CreateHook`,
      summary: 'Create a hook',
      params: level.params,
      body: 'CreateHookOption',
      bodyRequired: true,
      responses: { 201: 'Hook', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreateHookBody>) => {
        const s = level.scope(req);
        const b = req.body;
        if (!(HOOK_TYPES as readonly string[]).includes(b.type)) {
          throw ApiError.unprocessable(`Invalid hook type "${b.type}": this server delivers ${HOOK_TYPES.join(', ')}`);
        }
        const cfg = b.config ?? {};
        const url = checkUrl(cfg.url);
        const now = nowUnix();
        const id = await insertId(db, 'webhook', {
          repo_id: s.repoId,
          owner_id: s.ownerId,
          is_system_webhook: s.system,
          type: b.type as HookType,
          url,
          http_method: checkMethod(cfg.http_method, b.type),
          content_type: checkContentType(cfg.content_type),
          secret: cfg.secret ?? '',
          events: JSON.stringify(hookEvents(b.events, b.branch_filter ?? '')),
          meta: JSON.stringify(metaOf(b.type, cfg)),
          is_active: b.active ?? false,
          header_authorization_encrypted: headers.seal(b.authorization_header ?? ''),
          created_unix: now,
          updated_unix: now,
        });
        return created(hookToApi(await hooks.byId(s, id)));
      },
    },
    {
      ...base,
      method: 'get',
      path: `${level.base}/{id}`,
      operationId: `${p}GetHook`,
      summary: 'Get a hook',
      params: oneParams,
      responses: { 200: 'Hook', 404: 'APIError' },
      handler: async (req) => ok(hookToApi(await hooks.byId(level.scope(req), req.params.id))),
    },
    {
      ...base,
      method: 'patch',
      path: `${level.base}/{id}`,
      operationId: `${p}EditHook`,
      summary: 'Update a hook',
      params: oneParams,
      body: 'EditHookOption',
      bodyRequired: true,
      responses: { 200: 'Hook', 404: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<EditHookBody, unknown, { id: number }>) => {
        const s = level.scope(req);
        const hook = await hooks.byId(s, req.params.id);
        await db('webhook')
          .where('id', hook.id)
          .update(editPatch(hook, req.body, headers));
        deliverer.forgetHook(hook.id);
        return ok(hookToApi(await hooks.byId(s, hook.id)));
      },
    },
    {
      ...base,
      method: 'delete',
      path: `${level.base}/{id}`,
      operationId: `${p}DeleteHook`,
      summary: 'Delete a hook',
      params: oneParams,
      responses: { 204: 'deleted', 404: 'APIError' },
      handler: async (req) => {
        const hook = await hooks.byId(level.scope(req), req.params.id);
        await db.transaction(async (trx) => {
          await trx('hook_task').where('hook_id', hook.id).delete();
          await trx('webhook').where('id', hook.id).delete();
        });
        deliverer.forgetHook(hook.id);
        return noContent();
      },
    },
  ];
}

/** The columns an EditHookOption changes. */
function editPatch(hook: WebhookRow, b: EditHookBody, headers: HeaderSealer): Record<string, unknown> {
  const patch: Record<string, unknown> = { updated_unix: nowUnix() };
  if (b.config) {
    const cfg = b.config;
    if (cfg.url !== undefined) patch.url = checkUrl(cfg.url);
    if (cfg.content_type !== undefined) patch.content_type = checkContentType(cfg.content_type);
    if (cfg.http_method !== undefined) patch.http_method = checkMethod(cfg.http_method, hook.type);
    if (cfg.secret !== undefined) patch.secret = cfg.secret;
    patch.meta = JSON.stringify(metaOf(hook.type, cfg, hook.meta));
  }
  if (b.events !== undefined || b.branch_filter !== undefined) {
    const filter = b.branch_filter ?? hook.events.branch_filter ?? '';
    if (b.events === undefined) branchGlob(filter);
    patch.events = JSON.stringify(b.events !== undefined ? hookEvents(b.events, filter) : { ...hook.events, branch_filter: filter });
  }
  if (b.active !== undefined) patch.is_active = b.active;
  if (b.authorization_header !== undefined) patch.header_authorization_encrypted = headers.seal(b.authorization_header);
  return patch;
}

/** A hook's delivery history and redelivery (Hearth extensions). */
function deliveryOperations({ ctx, deliverer, hooks }: HookDeps, level: Level): ApiOperation[] {
  const { db, http } = ctx;
  const base = { tag: level.tag, scopes: level.scopes, access: level.access, auth: 'required' as const };
  const p = level.prefix;
  return [
    {
      ...base,
      method: 'get',
      path: `${level.base}/{id}/deliveries`,
      operationId: `${p}ListHookDeliveries`,
      summary: "List a hook's deliveries, newest first (Hearth extension)",
      params: idParams(level.params, HOOK_ID),
      paged: true,
      responses: { 200: { description: 'HookDeliveryList', schema: { type: 'array', items: { $ref: 'HookDelivery' } } }, 404: 'APIError' },
      handler: async (req) => {
        const hook = await hooks.byId(level.scope(req), req.params.id);
        const q = db('hook_task').where('hook_id', hook.id);
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = (await q.clone().orderBy('id', 'desc').offset(req.paging.offset).limit(req.paging.limit)).map(toTask);
        return http.paged(req, rows.map(taskToApi), Number(n));
      },
    },
    {
      ...base,
      method: 'post',
      path: `${level.base}/{id}/deliveries/{delivery}/redeliver`,
      operationId: `${p}RedeliverHook`,
      summary: 'Send a delivery again, with the same X-Gitea-Delivery UUID (Hearth extension)',
      params: idParams(level.params, { ...HOOK_ID, delivery: DELIVERY_KEY }),
      responses: { 202: 'HookDelivery', 404: 'APIError' },
      handler: async (req) => {
        const hook = await hooks.byId(level.scope(req), req.params.id);
        const key = String(req.params.delivery);
        const q = db('hook_task')
          .where('hook_id', hook.id)
          .where((b) => {
            b.where('uuid', key);
            if (/^\d+$/.test(key)) b.orWhere('id', Number(key));
          });
        const raw = await q.clone().first();
        if (!raw) throw ApiError.notFound(`delivery does not exist [id: ${key}]`);
        const task = toTask(raw);
        // A row being sent right now keeps its lease; it is rescheduled all the same.
        const again = { is_delivered: false, is_succeed: false, attempts: 0, next_attempt: Date.now() };
        await db('hook_task').where('id', task.id).update(again);
        deliverer.wake();
        return { status: 202, body: taskToApi(toTask(await db('hook_task').where('id', task.id).first())) };
      },
    },
  ];
}

/** A test delivery of a repository hook: a push payload of the latest commit. */
function testOperation({ ctx, deliverer, hooks }: HookDeps): ApiOperation {
  const repoLevel = LEVELS[0];
  const refDescription = 'The name of the commit/branch/tag, indicates which commit will be loaded to the webhook payload.';
  return {
    method: 'post',
    path: '/repos/{owner}/{repo}/hooks/{id}/tests',
    operationId: 'repoTestHook',
    tag: 'repository',
    access: repoLevel.access,
    auth: 'required',
    scopes: ['repository'],
    summary: 'Test a push webhook: send a push payload of the latest commit',
    params: idParams(OWNER_REPO_PARAMS, HOOK_ID),
    query: { type: 'object', properties: { ref: { type: 'string', maxLength: 255, description: refDescription } } },
    responses: { 204: 'empty', 404: 'APIError' },
    handler: async (req: ApiRequest<unknown, { ref?: string }, { owner: string; repo: string; id: number }>) => {
      const hook = await hooks.byId(repoLevel.scope(req), req.params.id);
      const repository = req.target.repository!;
      const branch = repository.defaultBranch;
      let sha = ZERO_ID;
      if (!repository.isEmpty) sha = await ctx.git.resolveCommit(repository.gitDir, req.query.ref || branch, 'ref');
      const push = { ref: `refs/heads/${branch}`, before: sha, after: sha, test: true };
      await enqueue(ctx.db, [hook], 'push', { payload: {}, repoId: repository.id, actorId: req.principal?.user.id, push });
      deliverer.wake();
      return noContent();
    },
  };
}

/** Gitea's git hooks of a repository: disabled on this server (an empty list, 404 for each). */
function gitHookOperations(): ApiOperation[] {
  const base = { tag: 'repository', access: LEVELS[0].access, auth: 'required' as const, scopes: ['repository'] as ScopeCategory[] };
  const nameParams = idParams(OWNER_REPO_PARAMS, { id: { type: 'string', maxLength: 64, description: 'id of the hook to get' } });
  const missing = (req: ApiRequest<unknown, unknown, { id: string }>): never => {
    throw ApiError.notFound(`git hook does not exist [name: ${req.params.id}]`);
  };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/hooks/git',
      operationId: 'repoListGitHooks',
      summary: 'List the Git hooks in a repository (git hooks are disabled: always empty)',
      params: OWNER_REPO_PARAMS,
      responses: { 200: { description: 'GitHookList', schema: { type: 'array', items: { $ref: 'GitHook' } } } },
      handler: () => ok([]),
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/hooks/git/{id}',
      operationId: 'repoGetGitHook',
      summary: 'Get a Git hook (git hooks are disabled: always 404)',
      params: nameParams,
      responses: { 200: 'GitHook', 404: 'APIError' },
      handler: missing,
    },
    {
      ...base,
      method: 'patch',
      path: '/repos/{owner}/{repo}/hooks/git/{id}',
      operationId: 'repoEditGitHook',
      summary: 'Edit a Git hook (git hooks are disabled: always 404)',
      params: nameParams,
      body: 'EditGitHookOption',
      responses: { 200: 'GitHook', 404: 'APIError' },
      handler: missing,
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/hooks/git/{id}',
      operationId: 'repoDeleteGitHook',
      summary: 'Delete a Git hook (git hooks are disabled: always 404)',
      params: nameParams,
      responses: { 204: 'deleted', 404: 'APIError' },
      handler: missing,
    },
  ];
}
