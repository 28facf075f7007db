import type { Request, Response } from 'express';
import { ApiError, contentDisposition, type PackageVersionInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { sendDownload } from '@hearth/package-kit';
import type { PackageIdentity } from './identity';
import type { ReleaseRecord, ReleaseService, SwiftSettings } from './release-service';

const SWIFT_VERSION = /^\d+(?:\.\d+){0,2}$/;

const link = (url: string, rel: string, extra = '') => `<${url}>; rel="${rel}"${extra}`;

/** The registry's answers about a package's releases (SE-0292 §4.1-4.4): lists, release metadata, archives and manifests. */
export function releaseResponses(ctx: PluginContext<SwiftSettings>, service: ReleaseService) {
  const packages = ctx.packages;

  async function sendReleaseList(res: Response, owner: UserInfo, pkg: PackageIdentity): Promise<void> {
    const versions = await service.releases(owner.id, pkg);
    if (!versions.length) throw ApiError.notFound(`package ${pkg.id} does not exist`);
    const releases: Record<string, { url: string }> = {};
    for (const v of versions) releases[v.version] = { url: service.releaseUrl(owner, v) };
    const links = [link(service.releaseUrl(owner, versions[0]), 'latest-version')];
    const urls = ((versions[0].metadata as unknown as ReleaseRecord).metadata.repositoryURLs as string[] | undefined) ?? [];
    urls.forEach((u, i) => links.push(link(u, i === 0 ? 'canonical' : 'alternate')));
    res.set('Link', links.join(', ')).type('application/json').json({ releases });
  }

  async function sendRelease(res: Response, owner: UserInfo, pkg: PackageIdentity, version: PackageVersionInfo): Promise<void> {
    const record = version.metadata as unknown as ReleaseRecord;
    const file = (await packages.listFiles(version.id)).find((f) => f.isLead);
    if (!file) throw ApiError.notFound(`release ${pkg.id} ${version.version} has no source archive`);
    const all = await service.releases(owner.id, pkg);
    const at = all.findIndex((v) => v.id === version.id);
    const links = [link(service.releaseUrl(owner, all[0]), 'latest-version')];
    if (at > 0) links.push(link(service.releaseUrl(owner, all[at - 1]), 'successor-version'));
    if (at >= 0 && at < all.length - 1) links.push(link(service.releaseUrl(owner, all[at + 1]), 'predecessor-version'));
    res
      .set('Link', links.join(', '))
      .type('application/json')
      .json({
        id: `${record.scope}.${record.name}`,
        version: version.version,
        resources: [
          {
            name: 'source-archive',
            type: 'application/zip',
            checksum: file.hashes.sha256,
            ...(record.signing ? { signing: record.signing } : {}),
          },
        ],
        metadata: record.metadata,
        publishedAt: version.createdAt.toISOString(),
      });
  }

  async function sendArchive(req: Request, res: Response, version: PackageVersionInfo, pkg: PackageIdentity): Promise<void> {
    const record = version.metadata as unknown as ReleaseRecord;
    const file = (await packages.listFiles(version.id)).find((f) => f.isLead);
    if (!file) throw ApiError.notFound(`release ${pkg.id} ${version.version} has no source archive`);
    const etag = `"${file.hashes.sha256}"`;
    res.set({
      'Content-Type': 'application/zip',
      'Content-Length': String(file.size),
      'Content-Disposition': contentDisposition(`${record.name}-${version.version}.zip`),
      Digest: `sha-256=${Buffer.from(file.hashes.sha256, 'hex').toString('base64')}`,
      ETag: etag,
      'Cache-Control': packages.access(req).owner.visibility === 'public' ? 'public, immutable' : 'private, immutable',
      ...(record.signing
        ? {
            'X-Swift-Package-Signature-Format': record.signing.signatureFormat,
            'X-Swift-Package-Signature': record.signing.signatureBase64Encoded,
          }
        : {}),
    });
    const onAbort = (err: unknown) => ctx.log.debug({ err }, 'swift source archive download ended early');
    await sendDownload(req, res, () => packages.openFile(file), { size: file.size, onAbort });
  }

  /** Package.swift, or its `Package@swift-X.swift` variant asked for by `swift-version` (a 303 to the unqualified one when missing). */
  async function sendManifest(req: Request, res: Response, owner: UserInfo, version: PackageVersionInfo): Promise<void> {
    const manifests = await service.manifests(version.id);
    const wanted = req.query['swift-version'];
    if (wanted !== undefined && (typeof wanted !== 'string' || !SWIFT_VERSION.test(wanted)))
      throw ApiError.badRequest('swift-version must look like 5, 5.7 or 5.7.1');
    const unqualified = `${service.releaseUrl(owner, version)}/Package.swift`;
    const manifest =
      wanted === undefined ? manifests.find((m) => m.swiftVersion === undefined) : manifests.find((m) => m.swiftVersion === wanted);
    if (!manifest) {
      if (wanted === undefined) throw ApiError.notFound('the release has no Package.swift');
      res.status(303).set('Location', unqualified).end();
      return;
    }
    const alternates = manifests
      .filter((m) => m.swiftVersion !== undefined)
      .map((m) =>
        link(
          `${unqualified}?swift-version=${m.swiftVersion}`,
          'alternate',
          `; filename="${m.filename}"${m.toolsVersion ? `; swift-tools-version="${m.toolsVersion}"` : ''}`,
        ),
      );
    const body = Buffer.from(manifest.content, 'utf8');
    res.status(200).set({
      'Content-Type': 'text/x-swift',
      'Content-Disposition': contentDisposition(manifest.filename),
      'Content-Length': String(body.length),
      'Cache-Control': owner.visibility === 'public' ? 'public, immutable' : 'private, immutable',
      ...(alternates.length ? { Link: alternates.join(', ') } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  return { sendReleaseList, sendRelease, sendArchive, sendManifest };
}
