import { ApiError, created, noContent, ok, type ApiOperation, type ApiRequest, type JsonSchema, type OperationAccess, type ScopeCategory } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { ownerOf, repoOf } from '../access/operation-access';
import { insertId } from '../orgs/org-store';
import { OWNER_REPO_PARAMS } from '../repos/repo-routes';
import { resolveCommit } from '../repos/revisions';
import { nowUnix } from '../users/models';
import { Deliverer, enqueue, taskToApi, toTask } from './delivery';
import { tapEvents } from './emitter';
import {
  CONTENT_TYPES, HOOK_TYPES, branchGlob, hookToApi, parseEvents, headerBox, toWebhook, type HookEvents, type HookType, type WebhookRow,
} from './model';

interface CreateHookBody {
  type: string;
  config: Record<string, string>;
  events?: string[];
  branch_filter?: string;
  authorization_header?: string;
  active?: boolean;
}
type EditHookBody = Partial<Omit<CreateHookBody, 'type'>>;

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

const META_KEYS: Record<string, string[]> = {
  slack: ['channel', 'username', 'icon_url', 'color'],
  discord: ['username', 'icon_url'],
};

const idParams = (base: JsonSchema | undefined, extra: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties: { ...((base?.properties as object) ?? {}), ...extra },
  required: [...((base?.required as string[]) ?? []), ...Object.keys(extra)],
});

const HOOK_ID = { id: { type: 'integer', minimum: 1, description: 'id of the hook' } } as Record<string, JsonSchema>;

/**
 * Webhooks at repository, organization, user and system level (Gitea's /repos/{owner}/{repo}/hooks,
 * /orgs/{org}/hooks, /user/hooks, /admin/hooks), a test delivery, and — a Hearth extension —
 * each hook's delivery history with redelivery. Building these operations also wires the event
 * taps (hook_task rows written in the emitting request) and this process's delivery workers,
 * started on `lifecycle.ready` and stopped on `lifecycle.shutdown`.
 */
export function webhookOperations(deps: KernelServices): ApiOperation[] {
  const { db, http, config, hooks } = deps;
  const log = deps.log.child({ module: 'webhooks' });
  const headers = headerBox(config);
  const deliverer = new Deliverer(deps, log);
  tapEvents(deps, deliverer);
  hooks.lifecycle.ready.tapPromise('hearth:webhooks', async () => deliverer.start());
  hooks.lifecycle.shutdown.tapPromise('hearth:webhooks', async () => deliverer.stop());

  const levels: Level[] = [
    {
      prefix: 'repo', base: '/repos/{owner}/{repo}/hooks', tag: 'repository', scopes: ['repository'], params: OWNER_REPO_PARAMS,
      access: { repo: { need: 'admin' } },
      scope(req) {
        const { repo } = repoOf(req);
        return { repoId: repo.id, ownerId: repo.owner_id, system: false };
      },
    },
    {
      prefix: 'org', base: '/orgs/{org}/hooks', tag: 'organization', scopes: ['organization'],
      params: { type: 'object', properties: { org: { type: 'string', maxLength: 255, description: 'name of the organization' } }, required: ['org'] },
      access: { org: 'owner' },
      scope: (req) => ({ repoId: 0, ownerId: ownerOf(req).id, system: false }),
    },
    {
      prefix: 'user', base: '/user/hooks', tag: 'user', scopes: ['user'], params: undefined, access: 'caller',
      scope: (req) => ({ repoId: 0, ownerId: req.principal!.user.id, system: false }),
    },
    {
      prefix: 'admin', base: '/admin/hooks', tag: 'admin', scopes: ['admin'], params: undefined, access: 'site-admin',
      scope: () => ({ repoId: 0, ownerId: 0, system: true }),
    },
  ];

  const rowsOf = (s: HookScope) => {
    if (s.repoId) return db('webhook').where('repo_id', s.repoId);
    return db('webhook').where({ repo_id: 0, owner_id: s.ownerId, is_system_webhook: s.system });
  };

  const byId = async (s: HookScope, id: number): Promise<WebhookRow> => {
    const raw = await rowsOf(s).where('id', id).first();
    if (!raw) throw ApiError.notFound(`hook does not exist [id: ${id}]`);
    return toWebhook(raw);
  };

  const checkUrl = (url: unknown): string => {
    let parsed: URL;
    try {
      parsed = new URL(String(url ?? ''));
    } catch {
      throw ApiError.unprocessable('Invalid url', { errors: [{ field: 'config.url', message: 'must be an http or https URL' }] });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw ApiError.unprocessable('Invalid url', { errors: [{ field: 'config.url', message: 'must be an http or https URL' }] });
    return parsed.toString();
  };
  const checkContentType = (name: string | undefined): number => {
    const n = CONTENT_TYPES[name || 'json'];
    if (!n) throw ApiError.unprocessable('Invalid content type', { errors: [{ field: 'config.content_type', message: 'json or form' }] });
    return n;
  };
  const checkMethod = (m: string | undefined, type: string): string => {
    const method = (m || 'POST').toUpperCase();
    if (method !== 'POST' && !(method === 'GET' && (type === 'gitea' || type === 'gogs'))) {
      throw ApiError.unprocessable(`Invalid http method "${m}"`, { errors: [{ field: 'config.http_method', message: 'POST, or GET for gitea hooks' }] });
    }
    return method;
  };
  const metaOf = (type: string, cfg: Record<string, string>, previous: Record<string, string> = {}): Record<string, string> => {
    const meta: Record<string, string> = { ...previous };
    for (const key of META_KEYS[type] ?? []) if (cfg[key] !== undefined) meta[key] = String(cfg[key]);
    if (type === 'slack' && !/^#?[^\s,]+$/.test(meta.channel ?? '')) throw ApiError.unprocessable('Invalid slack channel name', { errors: [{ field: 'config.channel', message: 'required for slack hooks' }] });
    return meta;
  };
  const events = (names: string[] | undefined, branchFilter: string): HookEvents => {
    branchGlob(branchFilter);
    return parseEvents(names, branchFilter);
  };

  const ops: ApiOperation[] = [];
  for (const level of levels) {
    const base = { tag: level.tag, scopes: level.scopes, access: level.access, auth: 'required' as const };
    const oneParams = idParams(level.params, HOOK_ID);
    const p = level.prefix;
    ops.push(
      {
        ...base, method: 'get', path: level.base, operationId: `${p}ListHooks`, summary: 'List the hooks', paged: true, params: level.params,
        responses: { 200: { description: 'HookList', schema: { type: 'array', items: { $ref: 'Hook' } } } },
        handler: async (req) => {
          const s = level.scope(req);
          const [{ n }] = await rowsOf(s).count({ n: '*' });
          const rows = (await rowsOf(s).orderBy('id').offset(req.paging.offset).limit(req.paging.limit)).map(toWebhook);
          return http.paged(req, rows.map(hookToApi), Number(n));
        },
      },
      {
        ...base, method: 'post', path: level.base, operationId: `${p}CreateHook`, summary: 'Create a hook', params: level.params,
        body: 'CreateHookOption', bodyRequired: true, responses: { 201: 'Hook', 403: 'APIError', 404: 'APIError', 422: 'APIError' },
        handler: async (req: ApiRequest<CreateHookBody>) => {
          const s = level.scope(req);
          const b = req.body;
          if (!(HOOK_TYPES as readonly string[]).includes(b.type)) throw ApiError.unprocessable(`Invalid hook type "${b.type}": this server delivers ${HOOK_TYPES.join(', ')}`);
          const cfg = b.config ?? {};
          const url = checkUrl(cfg.url);
          const now = nowUnix();
          const id = await insertId(db, 'webhook', {
            repo_id: s.repoId, owner_id: s.ownerId, is_system_webhook: s.system, type: b.type as HookType, url,
            http_method: checkMethod(cfg.http_method, b.type), content_type: checkContentType(cfg.content_type), secret: cfg.secret ?? '',
            events: JSON.stringify(events(b.events, b.branch_filter ?? '')), meta: JSON.stringify(metaOf(b.type, cfg)),
            is_active: b.active ?? false, header_authorization_encrypted: headers.seal(b.authorization_header ?? ''),
            created_unix: now, updated_unix: now,
          });
          return created(hookToApi(await byId(s, id)));
        },
      },
      {
        ...base, method: 'get', path: `${level.base}/{id}`, operationId: `${p}GetHook`, summary: 'Get a hook', params: oneParams,
        responses: { 200: 'Hook', 404: 'APIError' },
        handler: async (req) => ok(hookToApi(await byId(level.scope(req), req.params.id))),
      },
      {
        ...base, method: 'patch', path: `${level.base}/{id}`, operationId: `${p}EditHook`, summary: 'Update a hook', params: oneParams,
        body: 'EditHookOption', bodyRequired: true, responses: { 200: 'Hook', 404: 'APIError', 422: 'APIError' },
        handler: async (req: ApiRequest<EditHookBody, unknown, { id: number }>) => {
          const s = level.scope(req);
          const hook = await byId(s, req.params.id);
          const b = req.body;
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
            patch.events = JSON.stringify(b.events !== undefined ? events(b.events, filter) : { ...hook.events, branch_filter: (branchGlob(filter), filter) });
          }
          if (b.active !== undefined) patch.is_active = b.active;
          if (b.authorization_header !== undefined) patch.header_authorization_encrypted = headers.seal(b.authorization_header);
          await db('webhook').where('id', hook.id).update(patch);
          deliverer.forgetHook(hook.id);
          return ok(hookToApi(await byId(s, hook.id)));
        },
      },
      {
        ...base, method: 'delete', path: `${level.base}/{id}`, operationId: `${p}DeleteHook`, summary: 'Delete a hook', params: oneParams,
        responses: { 204: 'deleted', 404: 'APIError' },
        handler: async (req) => {
          const hook = await byId(level.scope(req), req.params.id);
          await db.transaction(async (trx) => {
            await trx('hook_task').where('hook_id', hook.id).delete();
            await trx('webhook').where('id', hook.id).delete();
          });
          deliverer.forgetHook(hook.id);
          return noContent();
        },
      },
      {
        ...base, method: 'get', path: `${level.base}/{id}/deliveries`, operationId: `${p}ListHookDeliveries`,
        summary: "List a hook's deliveries, newest first (Hearth extension)", params: oneParams, paged: true,
        responses: { 200: { description: 'HookDeliveryList', schema: { type: 'array', items: { $ref: 'HookDelivery' } } }, 404: 'APIError' },
        handler: async (req) => {
          const hook = await byId(level.scope(req), req.params.id);
          const q = db('hook_task').where('hook_id', hook.id);
          const [{ n }] = await q.clone().count({ n: '*' });
          const rows = (await q.clone().orderBy('id', 'desc').offset(req.paging.offset).limit(req.paging.limit)).map(toTask);
          return http.paged(req, rows.map(taskToApi), Number(n));
        },
      },
      {
        ...base, method: 'post', path: `${level.base}/{id}/deliveries/{delivery}/redeliver`, operationId: `${p}RedeliverHook`,
        summary: 'Send a delivery again, with the same X-Gitea-Delivery UUID (Hearth extension)',
        params: idParams(level.params, { ...HOOK_ID, delivery: { type: 'string', maxLength: 64, description: 'the delivery UUID (or its id)' } }),
        responses: { 202: 'HookDelivery', 404: 'APIError' },
        handler: async (req) => {
          const hook = await byId(level.scope(req), req.params.id);
          const key = String(req.params.delivery);
          const q = db('hook_task').where('hook_id', hook.id).where((b) => {
            b.where('uuid', key);
            if (/^\d+$/.test(key)) b.orWhere('id', Number(key));
          });
          const raw = await q.clone().first();
          if (!raw) throw ApiError.notFound(`delivery does not exist [id: ${key}]`);
          const task = toTask(raw);
          // A row being sent right now keeps its lease; it is rescheduled all the same.
          await db('hook_task').where('id', task.id).update({ is_delivered: false, is_succeed: false, attempts: 0, next_attempt: Date.now() });
          deliverer.wake();
          return { status: 202, body: taskToApi(toTask(await db('hook_task').where('id', task.id).first())) };
        },
      },
    );
  }

  // --- repository-only: test delivery, git hooks ------------------------------------------------
  const repoLevel = levels[0];
  ops.push(
    {
      method: 'post', path: '/repos/{owner}/{repo}/hooks/{id}/tests', operationId: 'repoTestHook', tag: 'repository', access: repoLevel.access, auth: 'required',
      summary: 'Test a push webhook: send a push payload of the latest commit', scopes: ['repository'],
      params: idParams(OWNER_REPO_PARAMS, HOOK_ID),
      query: { type: 'object', properties: { ref: { type: 'string', maxLength: 255, description: 'The name of the commit/branch/tag, indicates which commit will be loaded to the webhook payload.' } } },
      responses: { 204: 'empty', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { ref?: string }, { owner: string; repo: string; id: number }>) => {
        const hook = await byId(repoLevel.scope(req), req.params.id);
        const r = repoOf(req);
        const branch = r.repo.default_branch;
        let sha = '0'.repeat(40);
        if (!r.repo.is_empty) sha = await resolveCommit(r.gitDir, req.query.ref || branch, 'ref');
        await enqueue(db, [hook], 'push', { payload: {}, repoId: r.repo.id, actorId: req.principal?.user.id, push: { ref: `refs/heads/${branch}`, before: sha, after: sha, test: true } });
        deliverer.wake();
        return noContent();
      },
    },
    {
      method: 'get', path: '/repos/{owner}/{repo}/hooks/git', operationId: 'repoListGitHooks', tag: 'repository', access: repoLevel.access, auth: 'required',
      summary: 'List the Git hooks in a repository (git hooks are disabled: always empty)', scopes: ['repository'], params: OWNER_REPO_PARAMS,
      responses: { 200: { description: 'GitHookList', schema: { type: 'array', items: { $ref: 'GitHook' } } } },
      handler: () => ok([]),
    },
    {
      method: 'get', path: '/repos/{owner}/{repo}/hooks/git/{id}', operationId: 'repoGetGitHook', tag: 'repository', access: repoLevel.access, auth: 'required',
      summary: 'Get a Git hook (git hooks are disabled: always 404)', scopes: ['repository'],
      params: idParams(OWNER_REPO_PARAMS, { id: { type: 'string', maxLength: 64, description: 'id of the hook to get' } }),
      responses: { 200: 'GitHook', 404: 'APIError' },
      handler: (req) => {
        throw ApiError.notFound(`git hook does not exist [name: ${req.params.id}]`);
      },
    },
    {
      method: 'patch', path: '/repos/{owner}/{repo}/hooks/git/{id}', operationId: 'repoEditGitHook', tag: 'repository', access: repoLevel.access, auth: 'required',
      summary: 'Edit a Git hook (git hooks are disabled: always 404)', scopes: ['repository'],
      params: idParams(OWNER_REPO_PARAMS, { id: { type: 'string', maxLength: 64, description: 'id of the hook to get' } }), body: 'EditGitHookOption',
      responses: { 200: 'GitHook', 404: 'APIError' },
      handler: (req) => {
        throw ApiError.notFound(`git hook does not exist [name: ${req.params.id}]`);
      },
    },
    {
      method: 'delete', path: '/repos/{owner}/{repo}/hooks/git/{id}', operationId: 'repoDeleteGitHook', tag: 'repository', access: repoLevel.access, auth: 'required',
      summary: 'Delete a Git hook (git hooks are disabled: always 404)', scopes: ['repository'],
      params: idParams(OWNER_REPO_PARAMS, { id: { type: 'string', maxLength: 64, description: 'id of the hook to get' } }),
      responses: { 204: 'deleted', 404: 'APIError' },
      handler: (req) => {
        throw ApiError.notFound(`git hook does not exist [name: ${req.params.id}]`);
      },
    },
  );
  // The literal /hooks/git routes must be matched before /hooks/{id}.
  return [...ops.slice(-4), ...ops.slice(0, -4)];
}
