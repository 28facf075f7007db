import { Router, type NextFunction, type Request, type Response } from 'express';
import { ApiError, contentDisposition, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { RPM_ARCH, RPM_NAME } from './rpm-metadata';
import { TYPE, type RpmRepositories, type RpmSettings } from './repository';
import { immutableCacheControl, sendBytes, sendDownload } from '@hearth/package-kit';

/** A group is one or more path segments; these words are the route's own and cannot be group segments. */
const GROUP_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;
const RESERVED_SEGMENTS = new Set(['repodata', 'package', 'upload', 'repository.key']);
const MAX_GROUP_DEPTH = 8;
/** A registry version: `[epoch:]version-release`. */
const REGISTRY_VERSION = /^(\d{1,10}:)?[A-Za-z0-9._+~^]{1,128}-[A-Za-z0-9._+~^]{1,128}$/;
const DATA_FILE = /^(?:[0-9a-f]{64}-)?(?:primary|filelists|other)\.xml\.gz$/;

function decodeSegments(path: string): string[] {
  try {
    return path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    throw ApiError.badRequest('malformed percent-encoding in the path');
  }
}

function groupOf(segments: string[]): string {
  if (segments.length > MAX_GROUP_DEPTH) throw ApiError.badRequest(`a group has at most ${MAX_GROUP_DEPTH} path segments`);
  for (const s of segments) {
    if (!GROUP_SEGMENT.test(s) || s.includes('..') || RESERVED_SEGMENTS.has(s) || s.endsWith('.repo')) {
      const reserved = [...RESERVED_SEGMENTS].join(', ');
      throw ApiError.badRequest(`invalid group segment "${s}": letters, digits and . _ + - only, not one of ${reserved}`);
    }
  }
  return segments.join('/');
}

function checkPackagePath(name: string, version: string, arch: string): void {
  if (!RPM_NAME.test(name) || !REGISTRY_VERSION.test(version) || !RPM_ARCH.test(arch)) throw ApiError.notFound('package does not exist');
}

/** `.repo` file section id: dnf wants `[A-Za-z0-9_.:-]`. */
function repoId(owner: UserInfo, group: string): string {
  return [owner.name, ...group.split('/').filter(Boolean)].join('-').replace(/[^A-Za-z0-9_.:-]/g, '_');
}

export function rpmRoutes(ctx: PluginContext<RpmSettings>, repos: RpmRepositories): Router {
  const { packages } = ctx;
  const router = Router({ mergeParams: true });
  const baseUrl = (owner: UserInfo) => `${ctx.forge.appUrl}api/packages/${encodeURIComponent(owner.name)}/${TYPE}`;

  const send = (req: Request, res: Response, body: Buffer, contentType: string, etag: string, cacheControl = 'no-cache') =>
    sendBytes(req, res, body, { contentType, etag: `"${etag}"`, cacheControl });

  async function repositoryKey(req: Request, res: Response): Promise<void> {
    const { owner } = packages.access(req);
    const key = await packages.signingKeys.openpgp(owner.id, TYPE);
    send(req, res, Buffer.from(key.publicKeyArmored), 'application/pgp-keys', key.fingerprint);
  }

  function repoFile(req: Request, res: Response, group: string): void {
    const { owner } = packages.access(req);
    const url = group ? `${baseUrl(owner)}/${group.split('/').map(encodeURIComponent).join('/')}` : baseUrl(owner);
    const body = [
      `[${repoId(owner, group)}]`,
      `name=${owner.name}${group ? ` ${group}` : ''} (${ctx.forge.appName})`,
      `baseurl=${url}`,
      'enabled=1',
      `gpgcheck=${ctx.settings.signPackages ? 1 : 0}`,
      'repo_gpgcheck=1',
      `gpgkey=${baseUrl(owner)}/repository.key`,
      '',
    ].join('\n');
    send(req, res, Buffer.from(body), 'text/plain; charset=utf-8', Buffer.from(body).toString('base64url').slice(-32));
  }

  async function repodata(req: Request, res: Response, group: string, filename: string): Promise<void> {
    const { owner, principal } = packages.access(req);
    if (filename === 'repomd.xml' || filename === 'repomd.xml.asc') {
      const snapshot = await repos.snapshot(owner.id, group);
      const tag = `${snapshot.revision}-${snapshot.repomd.length}-${snapshot.signature.length}`;
      if (filename === 'repomd.xml') send(req, res, snapshot.repomd, 'text/xml; charset=utf-8', tag);
      else send(req, res, snapshot.signature, 'application/pgp-signature', `${tag}-asc`);
      return;
    }
    if (!DATA_FILE.test(filename)) throw ApiError.notFound('repository metadata file does not exist');
    const file = await repos.dataFileNamed(owner.id, group, filename);
    if (!file) throw ApiError.notFound('repository metadata file does not exist');
    // By its content-addressed name (as repomd.xml gives it) the file never changes; by its type name it does.
    const immutable = filename.startsWith(file.sha256);
    send(req, res, file.gz, 'application/gzip', file.sha256, immutable ? immutableCacheControl(!principal) : 'no-cache');
  }

  async function download(req: Request, res: Response, group: string, rest: string[]): Promise<void> {
    const [name, version, arch, filename] = rest;
    checkPackagePath(name, version, arch);
    const { owner } = packages.access(req);
    const file = await repos.findFile(owner.id, group, name, version, arch);
    if (filename !== undefined && filename !== file.name) throw ApiError.notFound('package file does not exist');
    res.set({
      'Content-Type': 'application/x-rpm',
      'Content-Disposition': contentDisposition(file.name),
      'Content-Length': String(file.size),
      ETag: `"${file.hashes.sha256}"`,
      'X-Checksum-Sha256': file.hashes.sha256,
    });
    const onAbort = (err: unknown) => ctx.log.debug({ err }, 'rpm download ended early');
    await sendDownload(req, res, () => packages.openFile(file), { size: file.size, onAbort });
  }

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    const segments = decodeSegments(req.path);
    const last = segments[segments.length - 1] ?? '';
    const read = req.method === 'GET' || req.method === 'HEAD';
    const access = packages.access(req);
    const actor = access.principal?.user ?? null;

    if (read && segments.length === 1 && last === 'repository.key') return repositoryKey(req, res);
    if (read && last.endsWith('.repo')) {
      // `{group}.repo`, and `.repo` for the root repository (also served as `/api/packages/{owner}/rpm.repo`).
      const leaf = last.slice(0, -'.repo'.length);
      return repoFile(req, res, leaf ? groupOf([...segments.slice(0, -1), leaf]) : groupOf(segments.slice(0, -1)));
    }
    if (req.method === 'PUT' && last === 'upload') {
      const group = groupOf(segments.slice(0, -1));
      await repos.publish(req, access.owner, actor, group);
      res.status(201).end();
      return;
    }
    const repodataAt = segments.length - 2;
    if (read && segments[repodataAt] === 'repodata') return repodata(req, res, groupOf(segments.slice(0, repodataAt)), last);
    const packageAt = segments.lastIndexOf('package');
    if (packageAt >= 0 && (segments.length - packageAt === 4 || segments.length - packageAt === 5)) {
      const group = groupOf(segments.slice(0, packageAt));
      const rest = segments.slice(packageAt + 1);
      if (read) return download(req, res, group, rest);
      if (req.method === 'DELETE' && rest.length === 3) {
        const [name, version, arch] = rest;
        checkPackagePath(name, version, arch);
        await repos.remove(access.owner, actor, group, name, version, arch);
        res.status(204).end();
        return;
      }
      throw new ApiError(405, `method ${req.method} is not allowed here`);
    }
    return next();
  });

  return router;
}
