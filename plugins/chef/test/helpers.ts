import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { runCommand } from '@hearth/testing';
import { tarFile } from '@hearth/package-kit';

/** One ustar header block + the padded content. */
export const tarEntry = (name: string, content: Buffer, type = '0'): Buffer => tarFile(name, content, { type });

export function metadataJson(name: string, version: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    version,
    description: `the ${name} cookbook`,
    long_description: '',
    maintainer: 'Alice',
    maintainer_email: 'alice@example.com',
    license: 'Apache-2.0',
    platforms: { ubuntu: '>= 20.04' },
    dependencies: {},
    recipes: {},
    source_url: `https://example.com/${name}`,
    issues_url: '',
    privacy: false,
    chef_versions: [],
    gems: [],
    ...extra,
  };
}

/** A cookbook tarball as knife builds it: `<name>/metadata.json`, recipes, README. */
export function cookbookTarball(
  name: string,
  version: string,
  extra: Record<string, unknown> = {},
  metadata: Buffer | null = Buffer.from(JSON.stringify(metadataJson(name, version, extra))),
): Buffer {
  return zlib.gzipSync(
    Buffer.concat([
      tarEntry(`${name}/README.md`, Buffer.from(`# ${name}\n`)),
      ...(metadata ? [tarEntry(`${name}/metadata.json`, metadata)] : []),
      tarEntry(`${name}/recipes/default.rb`, Buffer.from('log "hello"\n')),
      Buffer.alloc(1024),
    ]),
  );
}

/** knife supermarket share's multipart body: `tarball` file part and `cookbook` JSON field. */
export function shareBody(
  tarball: Buffer,
  category = 'Other',
  boundary = `----hearth${crypto.randomBytes(6).toString('hex')}`,
): { body: Buffer; contentType: string } {
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="cookbook"\r\n\r\n${JSON.stringify({ category })}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="tarball"; filename="cookbook.tgz"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    tarball,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

export type SignVersion = '1.0' | '1.1' | '1.3';

/**
 * Chef's signed headers computed in Node from mixlib-authentication's algorithm (for the data
 * tests on every database; chef.client.test.ts signs with the real Ruby library).
 */
export function signHeaders(o: {
  method: string;
  path: string;
  userId: string;
  privateKey: crypto.KeyObject | string;
  body?: Buffer;
  version?: SignVersion;
  timestamp?: Date;
  serverApiVersion?: string;
}): Record<string, string> {
  const version = o.version ?? '1.1';
  const algorithm = version === '1.3' ? 'sha256' : 'sha1';
  const b64 = (alg: string, data: string | Buffer) => crypto.createHash(alg).update(data).digest('base64');
  const timestamp = (o.timestamp ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const contentHash = b64(algorithm, o.body ?? Buffer.alloc(0));
  const path = o.path.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  const userId = version === '1.1' ? b64('sha1', o.userId) : o.userId;
  const apiVersion = o.serverApiVersion ?? '0';
  const canonical =
    version === '1.3'
      ? [
          `Method:${o.method}`,
          `Path:${path}`,
          `X-Ops-Content-Hash:${contentHash}`,
          'X-Ops-Sign:version=1.3',
          `X-Ops-Timestamp:${timestamp}`,
          `X-Ops-UserId:${userId}`,
          `X-Ops-Server-API-Version:${apiVersion}`,
        ].join('\n')
      : [
          `Method:${o.method}`,
          `Hashed Path:${b64('sha1', path)}`,
          `X-Ops-Content-Hash:${contentHash}`,
          `X-Ops-Timestamp:${timestamp}`,
          `X-Ops-UserId:${userId}`,
        ].join('\n');
  const signature =
    version === '1.3'
      ? crypto.sign('sha256', Buffer.from(canonical), o.privateKey)
      : crypto.privateEncrypt({ key: o.privateKey, padding: crypto.constants.RSA_PKCS1_PADDING }, Buffer.from(canonical));
  const headers: Record<string, string> = {
    'X-Ops-Sign': `algorithm=${algorithm};version=${version};`,
    'X-Ops-Userid': o.userId,
    'X-Ops-Timestamp': timestamp,
    'X-Ops-Content-Hash': contentHash,
  };
  if (version === '1.3') headers['X-Ops-Server-API-Version'] = apiVersion;
  (signature.toString('base64').match(/.{1,60}/g) ?? []).forEach((line, i) => (headers[`X-Ops-Authorization-${i + 1}`] = line));
  return headers;
}

export function keyPair(): { privateKey: crypto.KeyObject; publicPem: string; privatePem: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privatePem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
}

export const run = (cmd: string, args: string[], input: string) => runCommand(cmd, args, { input, timeoutMs: 60_000 });
