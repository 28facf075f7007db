import { ApiError, type GitTransportRequest, type Logger, type UserInfo } from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import type { AttachedGitDirectories } from './attached-git';
import { spawnGit } from './git';
import type { RepoService } from './repo-service';
import { permissionOf } from '../access/policy';
import { afterPush, resolveGitTarget, transportEnvironment, type GitAccessCheck } from './smart-http';

/** What `ctx.git.serveTransport` needs of the kernel. */
export interface StreamTransportDeps {
  repos: RepoService;
  users: UserService;
  attached: AttachedGitDirectories;
  log: Logger;
}

const SERVICES = { 'git-upload-pack': 'upload-pack', 'git-receive-pack': 'receive-pack', 'git-upload-archive': 'upload-archive' } as const;

/**
 * A git service over a byte stream (an SSH channel): the same repository resolution, hooks and push
 * recording as smart HTTP (smart-http.ts), with git speaking its own (non-stateless) protocol.
 */
export async function serveStreamTransport(deps: StreamTransportDeps, request: GitTransportRequest): Promise<number> {
  const push = request.service === 'git-receive-pack';
  const { caller } = request;
  const principal = 'principal' in caller ? caller.principal : null;
  const check: GitAccessCheck =
    'principal' in caller
      ? (repo, owner, need, unit) => deps.repos.access.check(repo, owner, caller.principal, need, unit)
      : async (repo, owner, need) => {
          // A key for one repository: any other is as absent as an invisible one.
          if (repo.id !== caller.repositoryId) throw ApiError.notFound(`repository does not exist [${owner.name}/${repo.name}]`);
          if (need === 'write' && !caller.canPush) throw ApiError.forbidden('this deploy key is read-only: pushes are refused');
          if (need === 'write' && repo.is_archived) throw ApiError.forbidden('this repository is archived: pushes are refused');
          const permission = permissionOf(caller.canPush ? 2 : 1);
          return { repo, owner, permission, gitDir: deps.repos.gitDir(owner.name, repo.name) };
        };
  const target = await resolveGitTarget(deps, request.ownerName, request.repoName, push, check);
  const protocol = /^[\w=:.-]{0,100}$/.test(request.protocol ?? '') ? (request.protocol ?? '') : '';
  const { env, pushLog } = await transportEnvironment(deps.repos, target, push, principal, protocol);
  const child = spawnGit([SERVICES[request.service], target.gitDir], { env }, ['pipe', 'pipe', 'pipe']);
  const exited = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? 1)));
  child.once('error', (err) => deps.log.error({ err }, 'git transport process failed to start'));
  child.stderr!.pipe(request.stderr, { end: false });
  // Not pipeline(): git may exit before the client's input ends, and the transport's streams must
  // outlive it (the exit status is still to be sent).
  child.stdin!.on('error', () => undefined);
  request.stdin.pipe(child.stdin!);
  child.stdout!.pipe(request.stdout, { end: false });
  const code = await exited;
  request.stdin.unpipe(child.stdin!);
  if (pushLog) {
    // A deploy key pushes as the repository's owner (as Gitea records it).
    const pusher: UserInfo | null = principal?.user ?? deps.users.toInfo(target.owner);
    await afterPush(deps, target, pushLog, pusher);
  }
  return code;
}
