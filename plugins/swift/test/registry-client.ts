import crypto from 'node:crypto';

/**
 * A Swift package registry client written from the registry service specification (SE-0292,
 * SwiftPM's Registry.md) and SE-0378/SE-0391, standing in for SwiftPM (no Swift toolchain on
 * Debian). Every call sends the Accept header the spec tells clients to send and checks what
 * the spec mandates of the answer (status, Content-Type, Content-Version, Content-Length,
 * Content-Disposition, Digest and checksum, Link relations); errors must be problem details.
 */
export class SpecViolation extends Error {}

function must(condition: unknown, what: string): asserts condition {
  if (!condition) throw new SpecViolation(what);
}

export interface Problem {
  status: number;
  detail: string;
  headers: Headers;
}

export interface LinkValue {
  url: string;
  rel: string;
  params: Record<string, string>;
}

/** RFC 8288 Link header values (the subset the spec uses: quoted or bare parameters). */
export function parseLinks(header: string | null): LinkValue[] {
  if (!header) return [];
  const links: LinkValue[] = [];
  for (const m of header.matchAll(/<([^>]*)>((?:\s*;\s*[\w-]+=(?:"[^"]*"|[^;,\s]*))*)/g)) {
    const params: Record<string, string> = {};
    for (const p of m[2].matchAll(/;\s*([\w-]+)=(?:"([^"]*)"|([^;,\s]*))/g)) params[p[1]] = p[2] ?? p[3];
    links.push({ url: m[1], rel: params.rel ?? '', params });
  }
  return links;
}

export const ACCEPT = {
  json: 'application/vnd.swift.registry.v1+json',
  zip: 'application/vnd.swift.registry.v1+zip',
  swift: 'application/vnd.swift.registry.v1+swift',
};

const SHA256_HEX = /^[0-9a-f]{64}$/;

export class SwiftRegistryClient {
  constructor(
    readonly baseUrl: string,
    private readonly authorization?: string,
  ) {}

  private async call(
    method: string,
    path: string,
    accept: string | null,
    init: { body?: Buffer; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (accept !== null) headers.Accept = accept;
    if (this.authorization) headers.Authorization = this.authorization;
    return fetch(`${this.baseUrl}${path}`, { method, headers, body: init.body, redirect: 'manual' });
  }

  /** §3.3/§3.5: an error is problem details with Content-Version 1; returns it for the caller's status check. */
  static async problem(res: Response): Promise<Problem> {
    must(res.status >= 400, `expected an error status, got ${res.status}`);
    must(
      (res.headers.get('content-type') ?? '').startsWith('application/problem+json'),
      `error ${res.status} is not application/problem+json but ${res.headers.get('content-type')}`,
    );
    must(res.headers.get('content-version') === '1', `error ${res.status} lacks Content-Version: 1`);
    const body = (await res.json()) as { detail?: unknown };
    must(typeof body.detail === 'string' && body.detail.length > 0, 'problem details without a detail');
    return { status: res.status, detail: body.detail as string, headers: res.headers };
  }

  private static async json(res: Response, what: string): Promise<any> {
    if (res.status >= 400) {
      const p = await SwiftRegistryClient.problem(res);
      throw new SpecViolation(`${what}: ${p.status} ${p.detail}`);
    }
    must(res.status === 200, `${what}: expected 200, got ${res.status}`);
    must(
      (res.headers.get('content-type') ?? '').startsWith('application/json'),
      `${what}: Content-Type is ${res.headers.get('content-type')}`,
    );
    must(res.headers.get('content-version') === '1', `${what}: Content-Version must be 1`);
    return res.json();
  }

  /** Endpoint 1: list package releases. */
  async listReleases(
    scope: string,
    name: string,
    suffix = '',
  ): Promise<{ versions: string[]; releases: Record<string, { url?: string; problem?: unknown }>; links: LinkValue[] }> {
    const res = await this.call('GET', `/${scope}/${name}${suffix}`, ACCEPT.json);
    const body = await SwiftRegistryClient.json(res, 'list releases');
    must(typeof body.releases === 'object' && body.releases !== null, 'list releases: no top-level "releases" object');
    const links = parseLinks(res.headers.get('link'));
    const versions = Object.keys(body.releases);
    if (versions.length)
      must(
        links.some((l) => l.rel === 'latest-version'),
        'list releases: no Link with rel="latest-version"',
      );
    return { versions, releases: body.releases, links };
  }

  /** Endpoint 2: release metadata. */
  async release(scope: string, name: string, version: string, suffix = ''): Promise<{ body: any; checksum: string; links: LinkValue[] }> {
    const res = await this.call('GET', `/${scope}/${name}/${version}${suffix}`, ACCEPT.json);
    const body = await SwiftRegistryClient.json(res, 'release metadata');
    for (const key of ['id', 'version', 'resources', 'metadata']) must(key in body, `release metadata: required key "${key}" missing`);
    must(body.version === version, `release metadata: version ${body.version} ≠ ${version}`);
    must(typeof body.metadata === 'object' && body.metadata !== null, 'release metadata: metadata must be an object');
    if (body.publishedAt !== undefined) must(!Number.isNaN(Date.parse(body.publishedAt)), 'release metadata: publishedAt is not ISO 8601');
    const archives = (body.resources as any[]).filter((r) => r.name === 'source-archive' && r.type === 'application/zip');
    must(archives.length === 1, 'release metadata: exactly one source-archive/application/zip resource is required');
    must(SHA256_HEX.test(archives[0].checksum), 'release metadata: checksum must be a hex SHA-256');
    const links = parseLinks(res.headers.get('link'));
    must(
      links.some((l) => l.rel === 'latest-version'),
      'release metadata: no Link with rel="latest-version"',
    );
    return { body, checksum: archives[0].checksum, links };
  }

  /** Endpoint 3: a manifest, following the 303 for a missing version-specific one as SwiftPM does. */
  async manifest(
    scope: string,
    name: string,
    version: string,
    swiftVersion?: string,
  ): Promise<{ content: string; filename: string; alternates: LinkValue[]; redirected: boolean }> {
    const query = swiftVersion === undefined ? '' : `?swift-version=${encodeURIComponent(swiftVersion)}`;
    let res = await this.call('GET', `/${scope}/${name}/${version}/Package.swift${query}`, ACCEPT.swift);
    let redirected = false;
    if (res.status === 303) {
      const location = res.headers.get('location');
      must(location && location.endsWith('/Package.swift'), `manifest: 303 must point at the unqualified Package.swift, got ${location}`);
      must(swiftVersion !== undefined, 'manifest: 303 without a swift-version');
      res = await fetch(location, {
        headers: { Accept: ACCEPT.swift, ...(this.authorization ? { Authorization: this.authorization } : {}) },
        redirect: 'manual',
      });
      redirected = true;
    }
    if (res.status >= 400) {
      const p = await SwiftRegistryClient.problem(res);
      throw new SpecViolation(`manifest: ${p.status} ${p.detail}`);
    }
    must(res.status === 200, `manifest: expected 200, got ${res.status}`);
    must(
      (res.headers.get('content-type') ?? '').startsWith('text/x-swift'),
      `manifest: Content-Type is ${res.headers.get('content-type')}`,
    );
    const disposition = /^attachment;\s*filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '');
    must(disposition, 'manifest: Content-Disposition must be attachment with a filename');
    const body = Buffer.from(await res.arrayBuffer());
    must(res.headers.get('content-length') === String(body.length), 'manifest: Content-Length must be the manifest size');
    const alternates = parseLinks(res.headers.get('link')).filter((l) => l.rel === 'alternate');
    for (const a of alternates) {
      must(
        /^Package@swift-\d+(?:\.\d+){0,2}\.swift$/.test(a.params.filename ?? ''),
        `manifest: alternate link without a Package@swift-X.swift filename: ${a.url}`,
      );
      must(a.params['swift-tools-version'], `manifest: alternate link without swift-tools-version: ${a.url}`);
    }
    return { content: body.toString('utf8'), filename: disposition[1], alternates, redirected };
  }

  /** Endpoint 4: the source archive, verified against the release's checksum (MUST) and the Digest header (SHOULD). */
  async download(scope: string, name: string, version: string): Promise<Buffer> {
    const { checksum } = await this.release(scope, name, version);
    const res = await this.call('GET', `/${scope}/${name}/${version}.zip`, ACCEPT.zip);
    if (res.status >= 400) {
      const p = await SwiftRegistryClient.problem(res);
      throw new SpecViolation(`download: ${p.status} ${p.detail}`);
    }
    must(res.status === 200, `download: expected 200, got ${res.status}`);
    must(res.headers.get('content-type') === 'application/zip', `download: Content-Type is ${res.headers.get('content-type')}`);
    const length = res.headers.get('content-length');
    must(length !== null, 'download: Content-Length is mandatory');
    const disposition = res.headers.get('content-disposition') ?? '';
    must(
      /^attachment;\s*filename="[^"]+-[^"]+\.zip"/.test(disposition),
      `download: Content-Disposition must name <Name>-<version>.zip, got ${disposition}`,
    );
    const bytes = Buffer.from(await res.arrayBuffer());
    must(String(bytes.length) === length, 'download: body size differs from Content-Length');
    const sha = crypto.createHash('sha256').update(bytes).digest();
    must(sha.toString('hex') === checksum, 'download: SHA-256 differs from the release checksum');
    const digest = res.headers.get('digest');
    if (digest) must(digest === `sha-256=${sha.toString('base64')}`, `download: Digest header ${digest} does not match the archive`);
    return bytes;
  }

  /** Endpoint 5. */
  async identifiers(url: string): Promise<string[]> {
    const res = await this.call('GET', `/identifiers?url=${encodeURIComponent(url)}`, ACCEPT.json);
    const body = await SwiftRegistryClient.json(res, 'identifiers');
    must(Array.isArray(body.identifiers), 'identifiers: no top-level "identifiers" array');
    return body.identifiers;
  }

  /** SE-0378: `swift package-registry login` posts to `<registry>/login`. */
  login(): Promise<Response> {
    return this.call('POST', '/login', ACCEPT.json);
  }

  /** Endpoint 6 (SE-0391), with the multipart body SwiftPM sends (no filename on the archive part). */
  async publish(
    scope: string,
    name: string,
    version: string,
    parts: { archive?: Buffer; metadata?: unknown; signature?: Buffer; signatureFormat?: string; base64?: boolean },
  ): Promise<Response> {
    const boundary = `hearth-${crypto.randomBytes(8).toString('hex')}`;
    const chunks: Buffer[] = [];
    const part = (field: string, type: string, data: Buffer) => {
      const encoded = parts.base64 ? Buffer.from(data.toString('base64')) : data;
      const transfer = parts.base64 ? 'Content-Transfer-Encoding: base64\r\n' : '';
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\nContent-Type: ${type}\r\n${transfer}\r\n`),
        encoded,
        Buffer.from('\r\n'),
      );
    };
    if (parts.archive) part('source-archive', 'application/zip', parts.archive);
    if (parts.signature) part('source-archive-signature', 'application/octet-stream', parts.signature);
    if (parts.metadata !== undefined)
      part(
        'metadata',
        'application/json',
        Buffer.from(typeof parts.metadata === 'string' ? parts.metadata : JSON.stringify(parts.metadata)),
      );
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    const headers: Record<string, string> = { 'Content-Type': `multipart/form-data;boundary="${boundary}"` };
    if (parts.signatureFormat) headers['X-Swift-Package-Signature-Format'] = parts.signatureFormat;
    const res = await this.call('PUT', `/${scope}/${name}/${version}`, ACCEPT.json, { body: Buffer.concat(chunks), headers });
    if (res.status === 201 || res.status === 202) {
      must(res.headers.get('location'), 'publish: 201/202 must carry Location');
      must(res.headers.get('content-version') === '1', 'publish: Content-Version must be 1');
    }
    return res;
  }

  /** A raw request, for negotiation tests. */
  raw(method: string, path: string, accept: string | null): Promise<Response> {
    return this.call(method, path, accept);
  }
}
