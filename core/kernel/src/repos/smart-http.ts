import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response, type Router } from 'express';
import { ApiError, isApiError, type Logger, type Principal, type RefUpdate, type UserInfo } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import { grants } from '../auth/scopes';
import { runGit, spawnGit } from './git';
import type { RepoService, ResolvedRepo } from './repo-service';
import type { RepositoryRow } from './models';
import type { UserRow } from '../users/models';
import type { RepoUnit } from './models';
import type { AttachedGitDirectories } from './attached-git';
import { pushRulesEnv } from '../protection/ref-protection';
import { ensureCurrentHooks } from './server-hooks';

const SERVICES = { 'git-upload-pack': 'upload-pack', 'git-receive-pack': 'receive-pack' } as const;
type Service = keyof typeof SERVICES;

export interface SmartHttpDeps {
  repos: RepoService;
  config: HearthConfig;
  authenticate(req: Request): Promise<Principal | null>;
  log: Logger;
  /** Git repositories plugins keep beside repositories (`<repo>.wiki.git`), served here too. */
  attached: AttachedGitDirectories;
}

/**
 * Git's smart HTTP protocol, served by the system git (`upload-pack`/`receive-pack
 * --stateless-rpc`) with both directions streamed: no pack is ever held in memory. Protocol v2
 * passes through the Git-Protocol header. Paths work with and without `.git`.
 */
export function smartHttpRouter(deps: SmartHttpDeps): Router {
  const router = express.Router();

  router.get('/:owner/:repo/info/refs', async (req, res) => {
    const service = String(req.query.service ?? '') as Service;
    if (!(service in SERVICES)) {
      // Dumb HTTP is not offered: every git since 1.6.6 speaks smart HTTP.
      throw new ApiError(403, 'only the smart HTTP protocol is supported: git asks with ?service=git-upload-pack or git-receive-pack');
    }
    const target = await authorize(deps, req, res, service);
    await advertiseRefs(req, res, service, target.gitDir, deps.log);
  });

  for (const service of Object.keys(SERVICES) as Service[]) {
    router.post(`/:owner/:repo/${service}`, async (req, res) => {
      if (req.headers['content-type'] !== `application/x-${service}-request`) {
        throw new ApiError(415, `expected Content-Type application/x-${service}-request`);
      }
      const target = await authorize(deps, req, res, service);
      const pusher = (req as Request & { principal?: Principal | null }).principal ?? null;
      const { env, pushLog } = await transportEnvironment(deps.repos, target, service === 'git-receive-pack', pusher, gitProtocol(req));
      res.status(200).set({ 'Content-Type': `application/x-${service}-result`, ...NO_CACHE });
      const child = spawnGit([SERVICES[service], '--stateless-rpc', target.gitDir], { env }, ['pipe', 'pipe', 'pipe']);
      const body = req.headers['content-encoding'] === 'gzip' ? req.pipe(zlib.createGunzip()) : req;
      // A push's response stays open until the push is recorded: a client that pushes and then
      // asks the API sees its branches (as with a synchronous post-receive hook).
      try {
        await streamChild(child, body, res, deps.log, { end: !pushLog });
      } finally {
        if (pushLog) {
          await afterPush(deps, target, pushLog, pusher?.user ?? null);
          res.end();
        }
      }
    });
  }
  return router;
}

/** What `readOnlyGitRouter` needs from the kernel. */
export interface ReadOnlyGitDeps {
  config: HearthConfig;
  authenticate(req: Request): Promise<Principal | null>;
  log: Logger;
}

/**
 * Serve bare repositories that the forge maintains itself (e.g. a package index) read-only over
 * smart HTTP, with the same streaming transport as repositories: `GET info/refs?service=git-upload-pack`
 * and `POST git-upload-pack` relative to the mount point; pushes are 403. `locate` maps the
 * request (and its caller) to the git directory, or throws an ApiError (404, or 401 for a
 * challenge). Mounted by plugins through `ctx.git.readOnlyRouter`.
 */
export function readOnlyGitRouter(deps: ReadOnlyGitDeps, locate: (req: Request, principal: Principal | null) => Promise<string>): Router {
  const router = express.Router({ mergeParams: true });
  const enabled = () => {
    if (deps.config.repository.DISABLE_HTTP_GIT) throw new ApiError(403, 'git over HTTP is disabled on this server');
  };
  const readOnly = () => new ApiError(403, 'this repository is read-only: pushes are refused');
  router.get('/info/refs', async (req, res) => {
    enabled();
    const service = String(req.query.service ?? '');
    if (service === 'git-receive-pack') throw readOnly();
    if (service !== 'git-upload-pack') {
      throw new ApiError(403, 'only the smart HTTP protocol is supported: git asks with ?service=git-upload-pack');
    }
    const gitDir = await locate(req, await deps.authenticate(req));
    res.locals.route = 'git upload-pack (read-only)';
    await advertiseRefs(req, res, service, gitDir, deps.log);
  });
  router.post('/git-upload-pack', async (req, res) => {
    enabled();
    if (req.headers['content-type'] !== 'application/x-git-upload-pack-request') {
      throw new ApiError(415, 'expected Content-Type application/x-git-upload-pack-request');
    }
    const gitDir = await locate(req, await deps.authenticate(req));
    res.locals.route = 'git upload-pack (read-only)';
    res.status(200).set({ 'Content-Type': 'application/x-git-upload-pack-result', ...NO_CACHE });
    const child = spawnGit(['upload-pack', '--stateless-rpc', gitDir], { env: { GIT_PROTOCOL: gitProtocol(req) } }, [
      'pipe',
      'pipe',
      'pipe',
    ]);
    const body = req.headers['content-encoding'] === 'gzip' ? req.pipe(zlib.createGunzip()) : req;
    await streamChild(child, body, res, deps.log);
  });
  router.post('/git-receive-pack', () => {
    throw readOnly();
  });
  return router;
}

/** The ref advertisement of `GET info/refs?service=…` (v2: the cached capability list). */
async function advertiseRefs(req: Request, res: Response, service: Service, gitDir: string, log: Logger): Promise<void> {
  res.status(200);
  res.set({ 'Content-Type': `application/x-${service}-advertisement`, ...NO_CACHE });
  const protocol = gitProtocol(req);
  if (!protocol.includes('version=2')) res.write(pktLine(`# service=${service}\n`) + '0000');
  if (service === 'git-upload-pack' && protocol.includes('version=2')) {
    // A v2 advertisement lists capabilities only (no refs): the same for every repository (all are
    // SHA-1, created by Hearth), so it is produced once per process instead of spawning git on every fetch.
    res.end(await capabilitiesV2(gitDir, protocol));
    return;
  }
  const child = spawnGit([SERVICES[service], '--stateless-rpc', '--advertise-refs', gitDir], { env: { GIT_PROTOCOL: protocol } }, [
    'ignore',
    'pipe',
    'pipe',
  ]);
  await streamChild(child, null, res, log);
}

const v2Capabilities = new Map<string, Promise<Buffer>>();

function capabilitiesV2(gitDir: string, protocol: string): Promise<Buffer> {
  let cached = v2Capabilities.get(protocol);
  if (!cached) {
    cached = runGit(['upload-pack', '--stateless-rpc', '--advertise-refs', gitDir], { env: { GIT_PROTOCOL: protocol } }).then(
      (r) => r.stdout,
    );
    cached.catch(() => v2Capabilities.delete(protocol));
    v2Capabilities.set(protocol, cached);
  }
  return cached;
}

const DELETE_SCOPE_MISSING =
  'token does not have at least one of required scope(s): [delete:repository] (pushes that create or update refs need write:repository)';

const NO_CACHE = { 'Cache-Control': 'no-cache, max-age=0, must-revalidate', Expires: 'Fri, 01 Jan 1980 00:00:00 GMT', Pragma: 'no-cache' };

function pktLine(text: string): string {
  return (text.length + 4).toString(16).padStart(4, '0') + text;
}

/** Only the protocol versions git itself sends ("version=2", "version=1") are passed on. */
function gitProtocol(req: Request): string {
  const value = String(req.headers['git-protocol'] ?? '');
  return /^[\w=:.-]{0,100}$/.test(value) ? value : '';
}

/**
 * Who may run the service: reading a public repository needs nothing; reading a private one and
 * every push need a credential with permission and the repository scope. An anonymous caller is
 * answered 401 with a Basic challenge, so git asks for credentials; a signed-in one without
 * access gets 404 (reading) or 403 (pushing).
 */
async function authorize(deps: SmartHttpDeps, req: Request, res: Response, service: Service): Promise<GitTarget> {
  if (deps.config.repository.DISABLE_HTTP_GIT) throw new ApiError(403, 'git over HTTP is disabled on this server');
  const push = service === 'git-receive-pack';
  const principal = await deps.authenticate(req);
  const challenge = () => ApiError.unauthorized('authentication required');
  let target: GitTarget;
  try {
    target = await resolveGitTarget(deps, String(req.params.owner), String(req.params.repo), push, (repo, owner, need, unit) =>
      deps.repos.access.check(repo, owner, principal, need, unit),
    );
  } catch (err) {
    if (!principal && isApiError(err) && (err.status === 404 || err.status === 403)) throw challenge();
    throw err;
  }
  if (push && !principal) throw challenge();
  if (principal && !grants(principal.scopes, 'repository', push ? 'write' : 'read')) {
    throw ApiError.forbidden(`token does not have at least one of required scope(s): [${push ? 'write' : 'read'}:repository]`);
  }
  res.locals.route = `git ${service}`;
  return target;
}

/** Decides whether the caller may `need` the repository (unit `unit`): the access module's check, or a deploy key's. */
export type GitAccessCheck = (repo: RepositoryRow, owner: UserRow, need: 'read' | 'write', unit: RepoUnit) => Promise<ResolvedRepo>;

/**
 * The repository (or the git directory a plugin keeps beside it, the wiki's `<repo>.wiki.git`)
 * `owner/requested` names, `.git` optional, as `check` allows it: fetching needs read on the unit
 * (code, or e.g. the wiki), pushing write, so a team granting other units only sees no repository.
 */
export async function resolveGitTarget(
  deps: { repos: RepoService; attached: AttachedGitDirectories },
  ownerName: string,
  requested: string,
  push: boolean,
  check: GitAccessCheck,
): Promise<GitTarget> {
  // Repository names cannot end in .wiki (names.ts), so the suffix is unambiguous.
  const name = requested.replace(/\.git$/i, '');
  const attached = deps.attached.match(name);
  const repoName = attached ? attached.repoName : name;
  const unit = attached ? (attached.directory.unit as RepoUnit) : 'code';
  const repo = await deps.repos.byOwnerAndName(ownerName, repoName);
  const owner = repo ? await deps.repos.ownerOf(repo) : undefined;
  if (!owner || !repo) throw ApiError.notFound(`repository does not exist [${ownerName}/${repoName}]`);
  const target = await check(repo, owner, push ? 'write' : 'read', unit);
  if (!attached) return target;
  // The plugin's directory (it may create it on a first push; a fetch of a missing one is its 404).
  const gitDir = await attached.directory.locate(target.repo.toInfo(target.gitDir), push);
  return { ...target, gitDir, attached: true };
}

/**
 * The environment of a git service: the protocol version, and for a push the server hooks' inputs —
 * where post-receive logs the applied updates, and what protected branches allow `pusher` (null: a
 * key without a user, e.g. a deploy key, which no rule lists).
 */
export async function transportEnvironment(
  repos: RepoService,
  target: GitTarget,
  push: boolean,
  pusher: Principal | null,
  protocol: string,
): Promise<{ env: NodeJS.ProcessEnv; pushLog?: string }> {
  const env: NodeJS.ProcessEnv = { GIT_PROTOCOL: protocol };
  if (!push) return { env };
  const pushLog = path.join(os.tmpdir(), `hearth-push-${crypto.randomUUID()}`);
  env.HEARTH_PUSH_LOG = pushLog;
  ensureCurrentHooks(target.gitDir);
  // Deleting a branch or tag is a delete, as an API DELETE is: it needs delete:repository.
  if (pusher && !grants(pusher.scopes, 'repository', 'delete')) env.HEARTH_DELETE_REFUSED = DELETE_SCOPE_MISSING;
  if (!target.attached) {
    const rules = await pushRulesEnv(repos, target.repo, pusher);
    if (rules) env.HEARTH_REF_RULES = rules;
  }
  return { env, pushLog };
}

/** What the transport serves: a repository, or a git directory a plugin keeps beside it (the wiki). */
export type GitTarget = ResolvedRepo & { attached?: boolean };

/** Pipe `input` into git and git's output into the response; stderr goes to the log. */
async function streamChild(
  child: ReturnType<typeof spawnGit>,
  input: NodeJS.ReadableStream | null,
  res: Response,
  log: Logger,
  { end }: { end: boolean } = { end: true },
): Promise<void> {
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()).length > 4096 && (stderr = stderr.slice(-4096)));
  const exited = new Promise<{ code: number; signal: string | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code: code ?? -1, signal })),
  );
  let inputFailed = false;
  let clientGone = false;
  const feeding =
    input && child.stdin
      ? pipeline(input, child.stdin).catch(() => {
          inputFailed = true;
          child.kill();
        })
      : Promise.resolve();
  res.once('close', () => {
    if (res.writableFinished) return;
    clientGone = true;
    child.kill();
  });
  try {
    if (end) await pipeline(child.stdout!, res);
    else await forward(child.stdout!, res);
  } catch {
    child.kill();
  }
  await feeding;
  const { code, signal } = await exited;
  if (code === 0) return;
  const text = stderr.trim();
  // The client's doing (it hung up, sent an unreadable body or bad pkt-lines): answered, no server fault.
  const clientSide = !SERVER_FAULT.test(text) && (clientGone || CLIENT_PROTOCOL_ERROR.test(text) || (inputFailed && signal === 'SIGTERM'));
  if (clientSide) log.info({ code, signal, stderr: text }, 'git transport ended by a client error');
  else log.warn({ code, signal, stderr: text }, 'git transport process failed');
}

/** What git prints when the client broke the exchange: bad pkt-lines, a truncated pack, wants it may not have. */
const CLIENT_PROTOCOL_ERROR =
  /protocol error|bad line length|remote end hung up|early EOF|unexpected disconnect|expected flush|not our ref|invalid (?:want|shallow)|unknown capability|bad pack header|index-pack (?:failed|abnormal exit)|unpack-objects abnormal exit/i;
/** Trouble on the server's side, whatever else git says. */
const SERVER_FAULT = /No space left|Permission denied|Input\/output error|Read-only file system|Cannot allocate|out of memory|corrupt/i;

/** Copy a stream into the response without ending it, honouring back-pressure. */
async function forward(source: NodeJS.ReadableStream, res: Response): Promise<void> {
  for await (const chunk of source) {
    if (res.destroyed) throw new Error('client went away');
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    }
  }
}

/** Record what a push applied (post-receive wrote it to `pushLog`): branches, and `push.received`. */
export async function afterPush(
  deps: { repos: RepoService; log: Logger },
  target: GitTarget,
  pushLog: string,
  pusher: UserInfo | null,
): Promise<void> {
  let text = '';
  try {
    text = fs.readFileSync(pushLog, 'utf8');
  } catch {
    return; // nothing was applied (rejected push, or the client hung up)
  } finally {
    fs.rmSync(pushLog, { force: true });
  }
  const updates: RefUpdate[] = text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [oldId, newId, ref] = line.split(' ');
      return { ref, oldId, newId };
    });
  // A push to an attached directory (the wiki) has no branch records; the code repository's must not see it.
  if (target.attached) return;
  try {
    await deps.repos.recordPush(target.repo, updates, pusher);
  } catch (err) {
    // The refs moved already; the records can be rebuilt from git (syncBranches).
    deps.log.error({ err, repo: target.repo.id }, 'recording a push failed');
  }
}
