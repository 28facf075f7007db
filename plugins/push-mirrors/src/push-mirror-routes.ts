import crypto from 'node:crypto';
import {
  ApiError,
  OWNER_REPO_PARAMS,
  isUniqueViolation,
  noContent,
  nowUnix,
  ok,
  ownerRepoParams,
  unixToIso,
  type ApiOperation,
  type ApiRequest,
  type PluginContext,
  type RepositoryTarget,
  type SecretSealer,
} from '@hearth/plugin-api';
import { formatGoDuration, parseGoDuration } from './duration';
import { credentialContext, requestSync, toPushMirror, type PushMirrorRow, type RemoteCredentials } from './push-mirror-store';
import type { PushMirrorWorker } from './push-mirror-worker';

interface CreatePushMirrorBody {
  remote_address: string;
  remote_username?: string;
  remote_password?: string;
  interval?: string;
  sync_on_commit?: boolean;
}

type RepoParams = { owner: string; repo: string };
type NameParams = RepoParams & { name: string };

/** Gitea's mirror defaults: [mirror] DEFAULT_INTERVAL 8h, MIN_INTERVAL 10m. */
const DEFAULT_INTERVAL_SECONDS = 8 * 3600;
const MIN_INTERVAL_SECONDS = 10 * 60;

const NAME_PARAMS = ownerRepoParams({
  name: { type: 'string', minLength: 1, maxLength: 64, description: 'remote name of the push mirror' },
});
const PUSH_MIRROR_LIST = { description: 'PushMirrorList', schema: { type: 'array', items: { $ref: 'PushMirror' } } };

/** A remote_name as Gitea makes them: `remote_mirror_` and ten random letters and digits. */
function newRemoteName(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const bytes = crypto.randomBytes(10);
  return `remote_mirror_${Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('')}`;
}

/** The mirror as Gitea's PushMirror JSON. */
function mirrorToApi(repository: RepositoryTarget, m: PushMirrorRow): Record<string, unknown> {
  return {
    repo_name: repository.name,
    remote_name: m.remote_name,
    remote_address: m.remote_address,
    created: unixToIso(m.created_unix),
    last_update: m.last_update_unix ? unixToIso(m.last_update_unix) : '',
    last_error: m.last_error,
    interval: formatGoDuration(m.interval_seconds),
    sync_on_commit: m.sync_on_commit,
  };
}

/** A sync interval in seconds: the default when unset, 0 for none, else at least MIN_INTERVAL_SECONDS. */
function parseInterval(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return DEFAULT_INTERVAL_SECONDS;
  const seconds = parseGoDuration(text);
  if (seconds === null) {
    throw ApiError.badRequest(`invalid interval "${text}": use a duration like "8h0m0s", "30m" or "0" (no periodic sync)`);
  }
  if (seconds !== 0 && seconds < MIN_INTERVAL_SECONDS) {
    throw ApiError.badRequest(`invalid interval "${text}": the minimum is 10m0s (or 0 for no periodic sync)`);
  }
  return seconds;
}

/**
 * Push mirrors (Gitea's /repos/{owner}/{repo}/push_mirrors…): repository admins add, list, get
 * and delete them and ask for a sync. The push itself is a `git push --mirror` run by the
 * PushMirrorWorker; a sync request only marks the rows and wakes the worker, so
 * `push_mirrors-sync` answers at once. Remote addresses pass the outgoing allow-list
 * (`[migrations]`) when added and again before every push; credentials (from
 * remote_username/remote_password or the URL's user info) are stored sealed with `credentials`,
 * never in plain text, and the stored and shown address carries no user info.
 */
export function pushMirrorOperations(ctx: PluginContext, worker: PushMirrorWorker, credentials: SecretSealer): ApiOperation[] {
  const { db, http } = ctx;

  /** The repository (its admins only, by the access declaration), unless mirrors are off on this server. */
  const open = (req: ApiRequest<any, any, RepoParams>): RepositoryTarget => {
    if (ctx.forge.raw.repository?.DISABLE_MIRRORS === true) {
      throw ApiError.badRequest('mirrors are disabled on this server (repository.DISABLE_MIRRORS)');
    }
    return req.target.repository!;
  };

  const byName = async (r: RepositoryTarget, name: string): Promise<PushMirrorRow> => {
    const row = await db('push_mirror').where({ repo_id: r.id, remote_name: name }).first();
    if (!row) throw ApiError.notFound(`push mirror does not exist [remote_name: ${name}]`);
    return toPushMirror(row);
  };

  /** The remote as stored (no user info) and the credentials it carries, body fields first. */
  const parseRemote = async (b: CreatePushMirrorBody): Promise<{ address: string; credentials: RemoteCredentials | null }> => {
    const url = await ctx.outbound.checkRemoteUrl(b.remote_address.trim(), 'migrations');
    let username = url.username ? decodeURIComponent(url.username) : '';
    let password = url.password ? decodeURIComponent(url.password) : '';
    if (b.remote_username !== undefined && b.remote_username !== '') username = b.remote_username;
    if (b.remote_password !== undefined && b.remote_password !== '') password = b.remote_password;
    url.username = '';
    url.password = '';
    url.hash = '';
    return { address: url.toString(), credentials: username || password ? { username, password } : null };
  };

  const base = {
    tag: 'repository',
    scopes: ['repository'] as ['repository'],
    auth: 'required' as const,
    access: { repo: { need: 'admin' } } as const,
  };
  return [
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/push_mirrors',
      operationId: 'repoListPushMirrors',
      summary: 'Get all push mirrors of the repository',
      params: OWNER_REPO_PARAMS,
      paged: true,
      responses: { 200: PUSH_MIRROR_LIST, 400: 'APIError', 403: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = open(req);
        const q = db('push_mirror').where('repo_id', r.id);
        const [{ n }] = await q.clone().count({ n: '*' });
        const rows = (await q.clone().orderBy('id').offset(req.paging.offset).limit(req.paging.limit)).map(toPushMirror);
        return http.paged(
          req,
          rows.map((m) => mirrorToApi(r, m)),
          Number(n),
        );
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/push_mirrors',
      operationId: 'repoAddPushMirror',
      summary: 'add a push mirror to the repository',
      params: OWNER_REPO_PARAMS,
      body: 'CreatePushMirrorOption',
      bodyRequired: true,
      responses: { 200: 'PushMirror', 400: 'APIError', 403: 'APIError', 422: 'APIError' },
      handler: async (req: ApiRequest<CreatePushMirrorBody, unknown, RepoParams>) => {
        const r = open(req);
        const interval = parseInterval(req.body.interval);
        const remote = await parseRemote(req.body);
        const now = nowUnix();
        for (let attempt = 0; ; attempt++) {
          const remoteName = newRemoteName();
          try {
            await db('push_mirror').insert({
              repo_id: r.id,
              remote_name: remoteName,
              remote_address: remote.address,
              credentials: remote.credentials
                ? credentials.seal(JSON.stringify(remote.credentials), credentialContext(r.id, remoteName))
                : null,
              sync_on_commit: req.body.sync_on_commit === true,
              interval_seconds: interval,
              next_update_unix: interval > 0 ? now + interval : 0,
              sync_requested: 0,
              locked_until_unix: 0,
              last_update_unix: 0,
              last_error: '',
              created_unix: now,
            });
            return ok(mirrorToApi(r, await byName(r, remoteName)));
          } catch (err) {
            if (!isUniqueViolation(err) || attempt >= 3) throw err;
          }
        }
      },
    },
    {
      ...base,
      method: 'get',
      path: '/repos/{owner}/{repo}/push_mirrors/{name}',
      operationId: 'repoGetPushMirrorByRemoteName',
      summary: 'Get push mirror of the repository by remoteName',
      params: NAME_PARAMS,
      responses: { 200: 'PushMirror', 400: 'APIError', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, NameParams>) => {
        const r = open(req);
        return ok(mirrorToApi(r, await byName(r, req.params.name)));
      },
    },
    {
      ...base,
      method: 'delete',
      path: '/repos/{owner}/{repo}/push_mirrors/{name}',
      operationId: 'repoDeletePushMirror',
      summary: 'deletes a push mirror from a repository by remoteName',
      params: NAME_PARAMS,
      responses: { 204: { description: 'empty' }, 400: 'APIError', 403: 'APIError', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, NameParams>) => {
        const r = open(req);
        const gone = await db('push_mirror').where({ repo_id: r.id, remote_name: req.params.name }).delete();
        if (!gone) throw ApiError.notFound(`push mirror does not exist [remote_name: ${req.params.name}]`);
        return noContent();
      },
    },
    {
      ...base,
      method: 'post',
      path: '/repos/{owner}/{repo}/push_mirrors-sync',
      operationId: 'repoPushMirrorSync',
      summary: 'Sync all push mirrored repository (queued: the pushes run in the background; see last_update and last_error)',
      params: OWNER_REPO_PARAMS,
      responses: { 200: { description: 'empty' }, 400: 'APIError', 403: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, RepoParams>) => {
        const r = open(req);
        if (await requestSync(db, (q) => q.where('repo_id', r.id))) worker.wake();
        return { status: 200 };
      },
    },
  ];
}
