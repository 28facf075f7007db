import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '@hearth/testing';
import { buildApk, gzipMembers, mustSucceed, requireTool, run, type BuiltApk } from './helpers';

/**
 * No apk client installs on Debian bookworm, so the served APKINDEX.tar.gz is checked the way
 * apk checks it, with the standard tools: GNU tar reads the concatenated gzip members as one
 * stream (signature entry, DESCRIPTION, APKINDEX), `openssl dgst -sha1 -verify` and node:crypto
 * verify the signature over the index member with the key from `/key`, whose file name is the
 * signature's key name; each record's fields and `C:` match the uploaded packages.
 */
describe('alpine APKINDEX checked with openssl and tar', () => {
  let server: TestServer;
  let work: string;
  const apks: BuiltApk[] = [];

  beforeAll(async () => {
    await requireTool('tar', ['--version'], 'tar');
    await requireTool('openssl', ['version'], 'openssl');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-apk-client-'));
    server = await startServer({ plugins: { alpine: { enabled: true } } });
    const alice = await server.user('alice');
    const write = await server.token(alice, ['write:package']);
    // A package signed by its builder (as abuild-sign does), an unsigned one, and a noarch one.
    const builderKey = path.join(work, 'builder.rsa');
    await mustSucceed(run('openssl', ['genrsa', '-out', builderKey, '2048']), 'openssl genrsa');
    const signWith = { keyFile: builderKey, keyName: 'builder-1234.rsa.pub' };
    apks.push(await buildApk(work, { name: 'hello', depends: ['busybox'], signWith }));
    apks.push(await buildApk(work, { name: 'tool', version: '2.3-r1' }));
    apks.push(await buildApk(work, { name: 'tool-doc', version: '2.3-r1', arch: 'noarch' }));
    for (const apk of apks) {
      const target = new URL('api/packages/alice/alpine/v3.19/main', server.url);
      const res = await fetch(target, { method: 'PUT', headers: { Authorization: `token ${write}` }, body: apk.file });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await server?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test('the index verifies with the served key and lists every package with its checksum', async () => {
    const keyRes = await fetch(new URL('api/packages/alice/alpine/key', server.url));
    expect(keyRes.status).toBe(200);
    const keyName = /filename="([^"]+)"/.exec(keyRes.headers.get('content-disposition') ?? '')?.[1] ?? '';
    expect(keyName).toMatch(/^[A-Za-z0-9@._-]+\.rsa\.pub$/);
    const keyPem = await keyRes.text();
    const keyFile = path.join(work, keyName);
    fs.writeFileSync(keyFile, keyPem);

    const indexRes = await fetch(new URL('api/packages/alice/alpine/v3.19/main/x86_64/APKINDEX.tar.gz', server.url));
    const body = Buffer.from(await indexRes.arrayBuffer());
    const indexFile = path.join(work, 'APKINDEX.tar.gz');
    fs.writeFileSync(indexFile, body);

    // apk reads the whole file as one tar stream: the signature entry first, named after the key file.
    const listing = await mustSucceed(run('tar', ['-tzf', indexFile]), 'tar -tzf');
    expect(listing.stdout.toString().trim().split('\n')).toEqual([`.SIGN.RSA.${keyName}`, 'DESCRIPTION', 'APKINDEX']);

    const members = gzipMembers(body);
    expect(members).toHaveLength(2);
    const [sigMember, indexMember] = members;
    const sigDir = path.join(work, 'sig');
    fs.mkdirSync(sigDir);
    fs.writeFileSync(path.join(work, 'sig.tar.gz'), sigMember);
    // The signature segment has no end-of-archive blocks (GNU tar may warn about that).
    await run('tar', ['-xzf', path.join(work, 'sig.tar.gz'), '-C', sigDir]);
    const signature = fs.readFileSync(path.join(sigDir, `.SIGN.RSA.${keyName}`));
    const indexMemberFile = path.join(work, 'index.tar.gz');
    fs.writeFileSync(indexMemberFile, indexMember);

    expect(crypto.verify('sha1', indexMember, keyPem, signature)).toBe(true);
    const sigFile = path.join(sigDir, `.SIGN.RSA.${keyName}`);
    const verified = await run('openssl', ['dgst', '-sha1', '-verify', keyFile, '-signature', sigFile, indexMemberFile]);
    expect([verified.code, verified.stdout.toString().trim()]).toEqual([0, 'Verified OK']);
    // The signature covers exactly the index member: one changed byte fails.
    const tampered = Buffer.from(indexMember);
    tampered[tampered.length - 9] ^= 1;
    fs.writeFileSync(path.join(work, 'tampered.tar.gz'), tampered);
    const refused = await run('openssl', ['dgst', '-sha1', '-verify', keyFile, '-signature', sigFile, path.join(work, 'tampered.tar.gz')]);
    expect(refused.code).not.toBe(0);

    const indexDir = path.join(work, 'index');
    fs.mkdirSync(indexDir);
    await mustSucceed(run('tar', ['-xzf', indexMemberFile, '-C', indexDir]), 'tar -xzf index');
    expect(fs.readFileSync(path.join(indexDir, 'DESCRIPTION'), 'utf8')).toBe('alice v3.19/main');
    const records = fs
      .readFileSync(path.join(indexDir, 'APKINDEX'), 'utf8')
      .split('\n\n')
      .filter((b) => b.trim())
      .map((block) => Object.fromEntries(block.split('\n').map((l) => [l.slice(0, 1), l.slice(2)])));
    expect(records.map((r) => `${r.P} ${r.V} ${r.A}`)).toEqual(['hello 1.0.0-r0 x86_64', 'tool 2.3-r1 x86_64', 'tool-doc 2.3-r1 noarch']);
    for (const [i, apk] of apks.entries()) {
      const r = records[i];
      expect(r.C).toBe(`Q1${crypto.createHash('sha1').update(apk.control).digest('base64')}`);
      expect(r.S).toBe(String(apk.file.length));
      const lines = apk.pkginfo.split('\n').filter((l) => l.includes(' = ') && !l.startsWith('#'));
      const info = Object.fromEntries(lines.map((l) => l.split(' = ')));
      expect([r.P, r.V, r.A, r.I, r.T, r.U, r.L, r.t]).toEqual([
        info.pkgname,
        info.pkgver,
        info.arch,
        info.size,
        info.pkgdesc,
        info.url,
        info.license,
        info.builddate,
      ]);
      // The package the index names is the one served, byte for byte, under the index's arch.
      const file = await fetch(new URL(`api/packages/alice/alpine/v3.19/main/x86_64/${r.P}-${r.V}.apk`, server.url));
      expect(Buffer.from(await file.arrayBuffer()).equals(apk.file)).toBe(true);
    }
    expect(records[0].D).toBe('busybox');
  });
});
