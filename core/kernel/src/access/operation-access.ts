import { ApiError, type AccessTarget, type ApiOperation, type ApiRequest, type OperationAccess, type Principal } from '@hearth/plugin-api';
import type { UserService } from '../users/user-service';
import type { UserRow } from '../users/models';
import type { RepoUnit } from '../repos/models';
import { normalizeTeam, type TeamRow } from '../orgs/org-store';
import { actsAsAdmin, assertPackageWrite, type AccessPolicy, type ResolvedRepo } from './policy';

/** The target as the kernel's own handlers read it: the public AccessTarget plus the rows behind it. */
interface KernelTarget extends AccessTarget {
  resolvedRepo?: ResolvedRepo;
  ownerRow?: UserRow;
  teamRow?: TeamRow;
}

/** Refuse an operation without a well-formed access declaration (at registration: the server does not start). */
export function assertAccessDeclared(op: ApiOperation, owner: string): void {
  const access = (op as Partial<ApiOperation>).access;
  const ok =
    access === 'anyone' ||
    access === 'caller' ||
    access === 'site-admin' ||
    (typeof access === 'object' && access !== null && ['repo', 'org', 'user', 'team', 'packages'].some((k) => k in access));
  if (!ok)
    throw new Error(
      `${op.method.toUpperCase()} ${op.path} (from "${owner}") declares no access: set access to ` +
        `'anyone', 'caller', 'site-admin' or a target ({ repo }, { org }, { user }, { team }, { ` +
        `packages })`,
    );
  if (typeof access === 'object') {
    const names = paramNames(access as Exclude<OperationAccess, string>);
    const missing = names.filter((n) => !op.path.includes(`{${n}}`));
    if (missing.length)
      throw new Error(
        `${op.method.toUpperCase()} ${op.path} (from "${owner}"): its access names path ` +
          `parameter(s) ${missing.join(', ')} that the path does not have`,
      );
  }
}

function paramNames(access: Exclude<OperationAccess, string>): string[] {
  if ('repo' in access) return access.params ? [access.params.owner, access.params.repo] : ['owner', 'repo'];
  if ('org' in access) return [access.param ?? 'org'];
  if ('user' in access) return [access.param ?? 'username'];
  if ('team' in access) return [access.param ?? 'id'];
  return [access.param ?? 'owner'];
}

/**
 * Resolve an operation's declared target for the caller: 404 when it is unknown or invisible, 403
 * when visible without the needed level. Runs after authentication, the token scope and the path
 * parameters' validation, before the query and body are looked at.
 */
export async function resolveAccess(
  access: OperationAccess,
  params: Record<string, unknown>,
  principal: Principal | null,
  policy: AccessPolicy,
  users: UserService,
): Promise<AccessTarget> {
  const target: KernelTarget = {};
  if (access === 'anyone') return target;
  if (access === 'caller') {
    if (!principal) throw ApiError.unauthorized('authentication required: send a token (Authorization: token …) or basic auth');
    return target;
  }
  if (access === 'site-admin') {
    if (!principal) throw ApiError.unauthorized('authentication required: send a token (Authorization: token …) or basic auth');
    if (!actsAsAdmin(principal)) throw ApiError.forbidden('user should be a site administrator');
    return target;
  }
  const [first, second] = paramNames(access).map((n) => String(params[n] ?? ''));
  if ('repo' in access) {
    const resolved = await policy.resolveRepo(first, second, principal, access.repo.need, access.repo.unit as RepoUnit | undefined);
    const owner = users.toInfo(resolved.owner);
    target.resolvedRepo = resolved;
    target.ownerRow = resolved.owner;
    target.owner = owner;
    target.repository = { ...resolved.repo.toInfo(resolved.gitDir), owner, permission: resolved.permission };
  } else if ('org' in access) {
    target.ownerRow = await policy.resolveOrg(first, principal, access.org);
    target.owner = users.toInfo(target.ownerRow);
  } else if ('user' in access) {
    target.ownerRow = await policy.resolveUser(access.by === 'id' ? Number(first) : first, principal, access.user);
    target.owner = users.toInfo(target.ownerRow);
  } else if ('team' in access) {
    const id = Number(first);
    if (!Number.isInteger(id) || id < 1) throw ApiError.notFound(`team does not exist [id: ${first}]`);
    const { team, org } = await policy.resolveTeam(id, principal, access.team);
    target.teamRow = normalizeTeam(team);
    target.ownerRow = org;
    target.owner = users.toInfo(org);
    target.team = { id: target.teamRow.id, orgId: target.teamRow.org_id, name: target.teamRow.name };
  } else {
    const { owner, canWrite } = await policy.packageOwner(first, principal);
    if (access.packages === 'write') assertPackageWrite(canWrite, principal, ApiError.unauthorized().headers!);
    target.ownerRow = owner;
    target.owner = users.toInfo(owner);
    target.canWritePackages = canWrite;
  }
  return target;
}

function kernelTarget(req: ApiRequest<any, any, any>, what: string): KernelTarget {
  const target = req.target as KernelTarget | undefined;
  if (!target) throw new Error(`${what}: the request carries no resolved target`);
  return target;
}

/** The repository a `{ repo }` operation resolved (kernel handlers). */
export function repoOf(req: ApiRequest<any, any, any>): ResolvedRepo {
  const resolved = kernelTarget(req, 'repoOf').resolvedRepo;
  if (!resolved) throw new Error('repoOf: the operation does not declare { repo } access');
  return resolved;
}

/** The organization, user or package owner a `{ org }`, `{ user }`, `{ team }` or `{ packages }` operation resolved (kernel handlers). */
export function ownerOf(req: ApiRequest<any, any, any>): UserRow {
  const owner = kernelTarget(req, 'ownerOf').ownerRow;
  if (!owner) throw new Error('ownerOf: the operation declares no owner target');
  return owner;
}

/** The team a `{ team }` operation resolved, with its organization (kernel handlers). */
export function teamOf(req: ApiRequest<any, any, any>): { team: TeamRow; org: UserRow } {
  const target = kernelTarget(req, 'teamOf');
  if (!target.teamRow || !target.ownerRow) throw new Error('teamOf: the operation does not declare { team } access');
  return { team: target.teamRow, org: target.ownerRow };
}
