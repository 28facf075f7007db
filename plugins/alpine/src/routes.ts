import { Router, type Request, type Response } from 'express';
import { ApiError, contentDisposition, type PluginContext } from '@hearth/plugin-api';
import { APK_ARCH } from './apk-package';
import { keyNameOf, TYPE, type AlpineRepositories, type AlpineSettings, type RepositoryRef } from './repository';
import { sendBytes, sendDownload } from '@hearth/package-kit';

/** Branches (`v3.19`, `edge`) and repositories (`main`, `community`): one safe path segment each. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_+-]*(?:\.[A-Za-z0-9_+-]+)*$/;
const APK_FILE = /^[A-Za-z0-9][A-Za-z0-9._+~-]{0,255}\.apk$/;

function refOf(params: Record<string, string>): RepositoryRef {
  const { branch, repository } = params;
  for (const [what, value] of [
    ['branch', branch],
    ['repository', repository],
  ]) {
    if (!SEGMENT.test(value) || value.length > 64) {
      throw ApiError.badRequest(`invalid ${what} "${value}": letters, digits and . _ + - only`);
    }
  }
  return { branch, repository };
}

function archOf(arch: string): string {
  if (!APK_ARCH.test(arch)) throw ApiError.notFound('unknown architecture');
  return arch;
}

export function alpineRoutes(ctx: PluginContext<AlpineSettings>, repos: AlpineRepositories): Router {
  const { packages } = ctx;
  const router = Router({ mergeParams: true });

  router.get('/key', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const key = await packages.signingKeys.rsa(owner.id, TYPE);
    const body = Buffer.from(key.publicKeyPem);
    res.set({
      'Content-Type': 'application/x-pem-file',
      'Content-Disposition': contentDisposition(keyNameOf(key.publicKeyPem)),
      'Content-Length': String(body.length),
    });
    res.status(200).end(req.method === 'HEAD' ? undefined : body);
  });

  router.put('/:branch/:repository', async (req: Request, res: Response) => {
    const ref = refOf(req.params as Record<string, string>);
    const access = packages.access(req);
    await repos.publish(req, access.owner, access.principal?.user ?? null, ref);
    res.status(201).end();
  });

  router.get('/:branch/:repository/:arch/APKINDEX.tar.gz', async (req: Request, res: Response) => {
    const ref = refOf(req.params as Record<string, string>);
    const arch = archOf(String(req.params.arch));
    const { owner } = packages.access(req);
    const index = await repos.index(owner, ref, arch);
    if (!index) throw ApiError.notFound('the repository has no packages');
    // 304 for a matching If-None-Match while the index is unchanged.
    sendBytes(req, res, index.body, { contentType: 'application/gzip', etag: `"${index.sha256}"` });
  });

  router.get('/:branch/:repository/:arch/:filename', async (req: Request, res: Response) => {
    const ref = refOf(req.params as Record<string, string>);
    const arch = archOf(String(req.params.arch));
    const filename = String(req.params.filename);
    if (!APK_FILE.test(filename)) throw ApiError.notFound('package file does not exist');
    const { owner } = packages.access(req);
    const { file } = await repos.findFile(owner.id, ref, arch, filename);
    res.set({
      'Content-Type': 'application/octet-stream',
      'Content-Disposition': contentDisposition(file.name),
      'Content-Length': String(file.size),
      ETag: `"${file.hashes.sha256}"`,
    });
    const onAbort = (err: unknown) => ctx.log.debug({ err }, 'apk download ended early');
    await sendDownload(req, res, () => packages.openFile(file), { size: file.size, onAbort });
  });

  router.delete('/:branch/:repository/:arch/:filename', async (req: Request, res: Response) => {
    const ref = refOf(req.params as Record<string, string>);
    const arch = archOf(String(req.params.arch));
    const filename = String(req.params.filename);
    if (!APK_FILE.test(filename)) throw ApiError.notFound('package file does not exist');
    const access = packages.access(req);
    await repos.remove(access.owner, access.principal?.user ?? null, ref, arch, filename);
    res.status(204).end();
  });

  return router;
}
