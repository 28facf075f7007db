import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN, startServer, type TestServer } from './helpers/server';

/** ctx.packages.signingKeys through a fixture plugin that serves public keys and signs request bodies. */
const SIGNING_PROBE = path.join(__dirname, 'fixtures/plugins/signing-probe');

interface OpenPgpKeyReply {
  publicKeyArmored: string;
  fingerprint: string;
  keyId: string;
}

/** A request to the probe; POSTs (signing) are writes, so they go as the owner named in `p`. */
async function probe(server: TestServer, method: string, p: string, body?: Buffer): Promise<Response> {
  const owner = p.split('/')[0];
  const headers: Record<string, string> =
    method === 'GET' ? {} : { Authorization: `Basic ${Buffer.from(`${owner}:${owner}-password-1`).toString('base64')}` };
  const res = await fetch(new URL(`api/packages/${p}`, server.url), { method, body, headers });
  if (res.status !== 200) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
  return res;
}

async function openpgpKey(server: TestServer, owner: string, format: string): Promise<OpenPgpKeyReply> {
  const res = await probe(server, 'GET', `${owner}/signing-probe/openpgp/${format}`);
  return (await res.json()) as OpenPgpKeyReply;
}

/** The binary packets of an ASCII-armored block (gpgv's keyring wants them). */
function dearmor(armored: string): Buffer {
  const lines = armored.trim().split(/\r?\n/);
  const start = lines.indexOf('') + 1;
  const body = lines
    .slice(
      start,
      lines.findIndex((l) => l.startsWith('-----END')),
    )
    .filter((l) => !l.startsWith('='));
  return Buffer.from(body.join(''), 'base64');
}

/** Run gpgv (package gnupg / gpgv) with `keyArmored` as its only trusted key; resolves with its exit code and output. */
async function gpgv(keyArmored: string, files: Record<string, Buffer | string>, args: string[]): Promise<{ code: number; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-gpgv-'));
  try {
    fs.writeFileSync(path.join(dir, 'key.gpg'), dearmor(keyArmored));
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
    return await new Promise((resolve, reject) => {
      execFile(
        'gpgv',
        ['--homedir', dir, '--keyring', path.join(dir, 'key.gpg'), ...args.map((a) => path.join(dir, a))],
        (err, stdout, stderr) => {
          if (err && (err as NodeJS.ErrnoException).code === 'ENOENT')
            reject(new Error('gpgv is missing: install the Debian package gpgv (or gnupg)'));
          else resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}${stderr}` });
        },
      );
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('package signing keys (ctx.packages.signingKeys)', () => {
  let server: TestServer;
  let alice: { id: number };
  let bob: { id: number };

  beforeAll(async () => {
    server = await startServer({ plugins: { 'signing-probe': { package: SIGNING_PROBE } } });
    alice = await server.user('alice');
    bob = await server.user('bob');
  });
  afterAll(() => server.close());

  test('concurrent first use creates one key; later calls return the same key', async () => {
    const first = await Promise.all(Array.from({ length: 6 }, () => openpgpKey(server, 'alice', 'debian')));
    expect(new Set(first.map((k) => k.fingerprint)).size).toBe(1);
    const [key] = first;
    expect(key.fingerprint).toMatch(/^[0-9A-F]{40}$/);
    expect(key.keyId).toBe(key.fingerprint.slice(-16));
    expect(key.publicKeyArmored).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    expect(await openpgpKey(server, 'alice', 'debian')).toEqual(key);
    const rows = await server.kernel.db('package_signing_keys').where({ owner_id: alice.id, format: 'debian' });
    expect(rows).toHaveLength(1);
    expect(rows[0].public_key).toBe(key.publicKeyArmored);

    const pems = await Promise.all(
      Array.from({ length: 4 }, async () => (await probe(server, 'GET', 'alice/signing-probe/rsa/alpine')).text()),
    );
    expect(new Set(pems).size).toBe(1);
    expect(pems[0]).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(await server.kernel.db('package_signing_keys').where({ owner_id: alice.id, format: 'alpine' })).toHaveLength(1);
  });

  test('keys are per owner and per format', async () => {
    const aliceDebian = await openpgpKey(server, 'alice', 'debian');
    const aliceRpm = await openpgpKey(server, 'alice', 'rpm');
    const bobDebian = await openpgpKey(server, 'bob', 'debian');
    expect(new Set([aliceDebian.fingerprint, aliceRpm.fingerprint, bobDebian.fingerprint]).size).toBe(3);
    const aliceAlpine = await (await probe(server, 'GET', 'alice/signing-probe/rsa/alpine')).text();
    const bobAlpine = await (await probe(server, 'GET', 'bob/signing-probe/rsa/alpine')).text();
    expect(aliceAlpine).not.toBe(bobAlpine);
    const rows = await server.kernel.db('package_signing_keys').where('owner_id', bob.id).select('format', 'algorithm');
    expect(rows.map((r: any) => `${r.format}/${r.algorithm}`).sort()).toEqual(['alpine/rsa4096', 'debian/openpgp-rsa3072']);
  });

  test('private keys are stored sealed, never in clear', async () => {
    const rows = await server.kernel.db('package_signing_keys').select('*');
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const row of rows) {
      expect(row.private_key_sealed).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
      expect(row.private_key_sealed).not.toMatch(/PRIVATE KEY/);
      const sealed = Buffer.from(row.private_key_sealed.slice(3), 'base64').toString('latin1');
      expect(sealed).not.toMatch(/PRIVATE KEY/);
      for (const value of Object.values(row)) expect(String(value)).not.toMatch(/PRIVATE KEY-----/);
    }
  });

  test('OpenPGP signatures (detached binary, detached armored, cleartext) verify with gpgv', async () => {
    const key = await openpgpKey(server, 'alice', 'debian');
    const release = Buffer.from('Origin: alice\nLabel: alice\nSuite: stable\nDate: Thu, 01 Jan 2026 00:00:00 UTC\n');
    const binary = Buffer.from(await (await probe(server, 'POST', 'alice/signing-probe/openpgp/debian/binary', release)).arrayBuffer());
    expect(binary[0] & 0x80).toBe(0x80);
    const good = await gpgv(key.publicKeyArmored, { Release: release, 'Release.gpg': binary }, ['Release.gpg', 'Release']);
    expect(good.output).toContain(`using RSA key ${key.fingerprint}`);
    expect(good.code).toBe(0);
    const tampered = await gpgv(key.publicKeyArmored, { Release: Buffer.concat([release, Buffer.from('X')]), 'Release.gpg': binary }, [
      'Release.gpg',
      'Release',
    ]);
    expect(tampered.code).not.toBe(0);
    const otherKey = await openpgpKey(server, 'bob', 'debian');
    expect((await gpgv(otherKey.publicKeyArmored, { Release: release, 'Release.gpg': binary }, ['Release.gpg', 'Release'])).code).not.toBe(
      0,
    );

    const armored = await (await probe(server, 'POST', 'alice/signing-probe/openpgp/debian/armored', release)).text();
    expect(armored).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
    expect((await gpgv(key.publicKeyArmored, { r: release, 'r.asc': armored }, ['r.asc', 'r'])).code).toBe(0);

    const clear = await (await probe(server, 'POST', 'alice/signing-probe/openpgp/debian/cleartext', release)).text();
    expect(clear).toMatch(/^-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n/);
    expect((await gpgv(key.publicKeyArmored, { InRelease: clear }, ['InRelease'])).code).toBe(0);
    expect(
      (await gpgv(key.publicKeyArmored, { InRelease: clear.replace('Suite: stable', 'Suite: unstable') }, ['InRelease'])).code,
    ).not.toBe(0);
  });

  test('RSA signatures verify with the served public key (sha1 and sha256)', async () => {
    const pem = await (await probe(server, 'GET', 'alice/signing-probe/rsa/alpine')).text();
    const data = Buffer.from('APKINDEX control segment');
    for (const hash of ['sha1', 'sha256']) {
      const signature = Buffer.from(await (await probe(server, 'POST', `alice/signing-probe/rsa/alpine/${hash}`, data)).arrayBuffer());
      expect(crypto.verify(hash, data, pem, signature)).toBe(true);
      expect(crypto.verify(hash, Buffer.from('other'), pem, signature)).toBe(false);
    }
  });

  test("an owner's keys are deleted with the owner", async () => {
    const carol = await server.user('carol');
    await openpgpKey(server, 'carol', 'rpm');
    expect(await server.kernel.db('package_signing_keys').where('owner_id', carol.id)).toHaveLength(1);
    const adminToken = await server.token({ name: ADMIN.name, password: ADMIN.password }, ['all']);
    expect((await server.api('DELETE', '/admin/users/carol', { token: adminToken })).status).toBe(204);
    expect(await server.kernel.db('package_signing_keys').where('owner_id', carol.id)).toEqual([]);
    // A new user (the id may even be reused on SQLite) gets a new key, not a cached one.
    await server.user('carol');
    const fresh = await openpgpKey(server, 'carol', 'rpm');
    expect(await server.kernel.db('package_signing_keys').where('public_key', fresh.publicKeyArmored)).toHaveLength(1);
  });
});
