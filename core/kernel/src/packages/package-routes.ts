import {
  ApiError,
  noContent,
  ok,
  type ApiOperation,
  type ApiRequest,
  type JsonSchema,
  type PackageVersionInfo,
  type Principal,
} from '@hearth/plugin-api';
import { unixToIso, GO_ZERO_TIME } from '../users/models';
import type { UserRow } from '../users/models';
import { ownerOf } from '../access/operation-access';
import type { PackageDeps } from './package-deps';
import type { PackageService } from './package-service';

const VERSION_PARAMS: JsonSchema = {
  type: 'object',
  properties: {
    owner: { type: 'string', maxLength: 255, description: 'owner of the package' },
    type: { type: 'string', maxLength: 64, description: 'type of the package' },
    name: { type: 'string', maxLength: 255, description: 'name of the package' },
    version: { type: 'string', maxLength: 255, description: 'version of the package' },
  },
  required: ['owner', 'type', 'name', 'version'],
};
type VersionParams = { owner: string; type: string; name: string; version: string };

/** The /api/v1/packages operations (section category: package): listing, reading and deleting package versions. */
export function packageOperations(deps: PackageDeps, services: PackageService): ApiOperation[] {
  const common = { tag: 'package', auth: 'optional' as const };
  return [
    {
      ...common,
      scopes: ['package'],
      access: { packages: 'read' },
      method: 'get',
      path: '/packages/{owner}',
      operationId: 'listPackages',
      summary: 'Gets all packages of an owner',
      params: {
        type: 'object',
        properties: { owner: { type: 'string', maxLength: 255, description: 'owner of the packages' } },
        required: ['owner'],
      },
      query: {
        type: 'object',
        properties: {
          type: { type: 'string', maxLength: 64, description: 'package type filter' },
          q: { type: 'string', maxLength: 255, description: 'name filter' },
        },
      },
      paged: true,
      responses: { 200: { description: 'PackageList', schema: { type: 'array', items: { $ref: 'Package' } } }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, { type?: string; q?: string }, { owner: string }>) => {
        const owner = ownerOf(req);
        const { items, total } = await services.searchVersions(owner.id, req.query, req.paging);
        const body = await Promise.all(items.map((v) => toApiPackage(deps, v, owner, req.principal)));
        return deps.http.paged(req, body, total);
      },
    },
    {
      ...common,
      scopes: ['package'],
      access: { packages: 'read' },
      method: 'get',
      path: '/packages/{owner}/{type}/{name}/{version}',
      operationId: 'getPackage',
      summary: 'Gets a package',
      params: VERSION_PARAMS,
      responses: { 200: 'Package', 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, VersionParams>) => {
        const { owner, version } = await versionOf(services, req);
        return ok(await toApiPackage(deps, version, owner, req.principal));
      },
    },
    {
      ...common,
      scopes: ['package'],
      access: { packages: 'write' },
      method: 'delete',
      path: '/packages/{owner}/{type}/{name}/{version}',
      operationId: 'deletePackage',
      summary: 'Delete a package',
      params: VERSION_PARAMS,
      responses: { 204: { description: 'deleted' }, 404: 'APIError' },
      handler: async (req: ApiRequest<unknown, unknown, VersionParams>) => {
        const { version } = await versionOf(services, req);
        await services.deleteVersion(version.id, req.principal?.user ?? null);
        return noContent();
      },
    },
    {
      ...common,
      scopes: ['package'],
      access: { packages: 'read' },
      method: 'get',
      path: '/packages/{owner}/{type}/{name}/{version}/files',
      operationId: 'listPackageFiles',
      summary: 'Gets all files of a package',
      params: VERSION_PARAMS,
      responses: {
        200: { description: 'PackageFileList', schema: { type: 'array', items: { $ref: 'PackageFile' } } },
        404: 'APIError',
      },
      handler: async (req: ApiRequest<unknown, unknown, VersionParams>) => {
        const { version } = await versionOf(services, req);
        const files = await services.listFiles(version.id);
        return ok(
          files.map((f) => ({
            id: f.id,
            Size: f.size,
            name: f.name,
            md5: f.hashes.md5,
            sha1: f.hashes.sha1,
            sha256: f.hashes.sha256,
            sha512: f.hashes.sha512,
          })),
        );
      },
    },
  ];
}

/** Gitea's Package JSON of a version. */
async function toApiPackage(
  deps: PackageDeps,
  version: PackageVersionInfo,
  owner: UserRow,
  viewer: Principal | null,
): Promise<Record<string, unknown>> {
  const creator = version.creatorId ? await deps.users.byId(version.creatorId) : undefined;
  const root = deps.config.server.ROOT_URL;
  const e = encodeURIComponent;
  return {
    id: version.id,
    owner: deps.users.toApi(owner, viewer),
    repository: null,
    creator: creator ? deps.users.toApi(creator, viewer) : ghostUser(root),
    type: version.type,
    name: version.name,
    version: version.version,
    created_at: unixToIso(Math.floor(version.createdAt.getTime() / 1000)),
    html_url: `${root}${e(owner.name)}/-/packages/${e(version.type)}/${e(version.name)}/${e(version.version)}`,
  };
}

/** The version a `{ packages }` operation names, of the owner its declaration resolved. */
async function versionOf(
  services: PackageService,
  req: ApiRequest<unknown, unknown, VersionParams>,
): Promise<{ owner: UserRow; version: PackageVersionInfo }> {
  const owner = ownerOf(req);
  const version = await services.getVersion(owner.id, req.params.type, req.params.name, req.params.version);
  if (!version) throw ApiError.notFound('package does not exist');
  return { owner, version };
}

/** Gitea's stand-in for a deleted user. */
function ghostUser(root: string): Record<string, unknown> {
  return {
    id: -1,
    login: 'Ghost',
    login_name: '',
    full_name: '',
    email: '',
    avatar_url: `${root}assets/img/avatar_default.png`,
    language: '',
    is_admin: false,
    last_login: GO_ZERO_TIME,
    created: GO_ZERO_TIME,
    restricted: false,
    active: false,
    prohibit_login: false,
    location: '',
    website: '',
    description: '',
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: 'Ghost',
  };
}
