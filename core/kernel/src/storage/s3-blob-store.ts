import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { ApiError, type ByteRange } from '@hearth/plugin-api';
import { stageToTempFile, type BlobStore, type StagedBlob } from './blob-store';

/** Gitea's `[storage]` MINIO_* settings. */
export interface S3Settings {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  location: string;
  useSsl: boolean;
  /** Key prefix inside the bucket, e.g. `hearth/`. */
  basePath: string;
}

const EMPTY_SHA256 = crypto.createHash('sha256').update('').digest('hex');
const hmac = (key: crypto.BinaryLike, data: string) => crypto.createHmac('sha256', key).update(data).digest();
/** RFC 3986 encoding as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const encodeRfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Blobs in an S3-compatible bucket (MinIO, AWS S3, Ceph…), path-style, signed with AWS
 * Signature V4 over the payload's real sha256 (known from staging). Keys are
 * `<basePath><area>/ab/cd/<sha256>`. Uploads are staged to a local temporary file while hashed,
 * then sent with a known length; downloads stream.
 */
export class S3BlobStore implements BlobStore {
  private bucketReady?: Promise<void>;
  private readonly transport: typeof http | typeof https;

  constructor(
    private readonly s3: S3Settings,
    private readonly area: string,
    private readonly tmpDir: string,
  ) {
    this.transport = s3.useSsl ? https : http;
  }

  private key(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return `${this.s3.basePath}${this.area}/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
  }

  async stage(body: Readable, maxBytes = Number.MAX_SAFE_INTEGER): Promise<StagedBlob> {
    const { tmp, size, hashes } = await stageToTempFile(this.tmpDir, body, maxBytes);
    return {
      size,
      hashes,
      commit: async () => {
        try {
          if (!(await this.exists(hashes.sha256))) {
            await this.ensureBucket();
            const res = await this.request('PUT', this.key(hashes.sha256), { body: fs.createReadStream(tmp), size, sha256: hashes.sha256 });
            await this.expect(res, [200], 'store');
          }
        } finally {
          await fs.promises.rm(tmp, { force: true });
        }
      },
      discard: () => fs.promises.rm(tmp, { force: true }),
    };
  }

  async open(sha256: string, range?: ByteRange): Promise<{ stream: Readable; size: number }> {
    const res = await this.request('GET', this.key(sha256), undefined, range ? { range: `bytes=${range.start}-${range.end}` } : {});
    if (res.statusCode === 404) {
      res.resume();
      throw ApiError.notFound('file content is missing from storage');
    }
    if (res.statusCode !== 200 && res.statusCode !== 206) await this.expect(res, [200, 206], 'read');
    // A ranged answer names the whole size in Content-Range (`bytes 0-9/1234`).
    const total = /\/(\d+)$/.exec(String(res.headers['content-range'] ?? ''))?.[1];
    return { stream: res, size: Number(total ?? res.headers['content-length'] ?? 0) };
  }

  async exists(sha256: string): Promise<boolean> {
    const res = await this.request('HEAD', this.key(sha256));
    res.resume();
    if (res.statusCode === 404) return false;
    await this.expect(res, [200], 'check');
    return true;
  }

  async delete(sha256: string): Promise<void> {
    const res = await this.request('DELETE', this.key(sha256));
    await this.expect(res, [200, 204, 404], 'delete');
  }

  /** Create the bucket on first write when it does not exist (as Gitea does). */
  private ensureBucket(): Promise<void> {
    this.bucketReady ??= (async () => {
      const head = await this.request('HEAD', '');
      head.resume();
      if (head.statusCode === 200) return;
      const body =
        this.s3.location && this.s3.location !== 'us-east-1'
          ? `<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>${this.s3.location}</LocationConstraint></CreateBucketConfiguration>`
          : '';
      const sha = crypto.createHash('sha256').update(body).digest('hex');
      const res = await this.request('PUT', '', { body: body || undefined, size: Buffer.byteLength(body), sha256: sha });
      await this.expect(res, [200, 409], 'create the bucket');
    })().catch((err) => {
      this.bucketReady = undefined;
      throw err;
    });
    return this.bucketReady;
  }

  private async expect(res: http.IncomingMessage, statuses: number[], what: string): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of res) if (chunks.length < 16) chunks.push(chunk as Buffer);
    if (statuses.includes(res.statusCode ?? 0)) return;
    const code = /<Code>([^<]*)<\/Code>/.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '';
    // Storage trouble is the server's problem, not the client's: a 500 whose details go to the log.
    throw new Error(`object storage could not ${what}: HTTP ${res.statusCode}${code ? ` ${code}` : ''}`);
  }

  /** One signed request on `/<bucket>/<key>`. */
  private request(
    method: string,
    key: string,
    payload?: { body?: Readable | string; size: number; sha256: string },
    unsigned: Record<string, string> = {},
  ): Promise<http.IncomingMessage> {
    const now = new Date();
    const amzDate = now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    const region = this.s3.location || 'us-east-1';
    const pathname = `/${encodeRfc3986(this.s3.bucket)}${key ? `/${key.split('/').map(encodeRfc3986).join('/')}` : ''}`;
    const payloadHash = payload?.sha256 ?? EMPTY_SHA256;
    const headers: Record<string, string> = {
      host: this.s3.endpoint,
      'x-amz-content-sha256': payloadHash,
      'x-amz-date': amzDate,
    };
    if (payload) headers['content-length'] = String(payload.size);
    const signed = Object.keys(headers).sort();
    const canonical = [method, pathname, '', ...signed.map((h) => `${h}:${headers[h]}`), '', signed.join(';'), payloadHash].join('\n');
    const scope = `${day}/${region}/s3/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, crypto.createHash('sha256').update(canonical).digest('hex')].join('\n');
    const key4 = hmac(hmac(hmac(hmac(`AWS4${this.s3.secretAccessKey}`, day), region), 's3'), 'aws4_request');
    const signature = crypto.createHmac('sha256', key4).update(toSign).digest('hex');
    headers.authorization =
      `AWS4-HMAC-SHA256 Credential=${this.s3.accessKeyId}/${scope}, SignedHeaders=` + `${signed.join(';')}, Signature=${signature}`;

    return new Promise((resolve, reject) => {
      const req = this.transport.request({
        method,
        host: this.s3.endpoint.replace(/:\d+$/, ''),
        port: /:(\d+)$/.exec(this.s3.endpoint)?.[1],
        path: pathname,
        headers: { ...headers, ...unsigned },
      });
      req.setTimeout(60_000, () => req.destroy(new Error('object storage timed out')));
      req.once('error', reject);
      req.once('response', resolve);
      const body = payload?.body;
      if (body === undefined) req.end();
      else if (typeof body === 'string') req.end(body);
      else {
        body.once('error', (err) => req.destroy(err));
        body.pipe(req);
      }
    });
  }
}
