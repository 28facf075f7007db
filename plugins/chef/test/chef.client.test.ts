import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '@hearth/testing';
import { cookbookTarball, keyPair, run, shareBody } from './helpers';

/**
 * The real signer: mixlib-authentication, the library knife and chef-client sign with (Debian's
 * ruby-mixlib-authentication), run by sign.rb for each request. Every protocol version signs a
 * share (the tarball hashed as knife hashes it), a list, a download and a delete; tampered
 * copies of its headers are refused.
 */
const SIGNER = path.join(__dirname, 'sign.rb');
type Version = '1.0' | '1.1' | '1.3';

describe('chef signed requests from mixlib-authentication', () => {
  let server: TestServer;
  let dir: string;
  let keyFile: string;

  async function rubySign(
    method: string,
    urlPath: string,
    version: Version,
    body: { file?: string; text?: string } = {},
  ): Promise<Record<string, string>> {
    const input = JSON.stringify({
      method,
      path: urlPath,
      user_id: 'alice',
      key_file: keyFile,
      version,
      body_file: body.file,
      body: body.text,
    });
    let result;
    try {
      result = await run('ruby', [SIGNER], input);
    } catch (err) {
      throw new Error(
        `cannot run ruby (${(err as Error).message}): ` +
          'install the Debian packages ruby and ruby-mixlib-authentication (scripts/setup-test-deps.sh)',
      );
    }
    if (result.code !== 0)
      throw new Error(
        `sign.rb failed (${result.code}); the Debian packages ruby and ruby-mixlib-authentication are needed:\n${result.stderr}`,
      );
    return JSON.parse(result.stdout);
  }

  const url = (p: string) => new URL(p, server.url);
  const chefPath = (rest: string) => `/api/packages/alice/chef${rest}`;

  beforeAll(async () => {
    server = await startServer({ plugins: { chef: { enabled: true } } });
    const alice = await server.user('alice');
    const key = keyPair();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-chef-client-'));
    keyFile = path.join(dir, 'alice.pem');
    fs.writeFileSync(keyFile, key.privatePem, { mode: 0o600 });
    expect(
      (await server.api('PUT', '/user/chef/key', { basic: [alice.name, alice.password], body: { public_key: key.publicPem } })).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const version of ['1.0', '1.1', '1.3'] as Version[]) {
    test(`protocol ${version}: share, list, show, download and unshare; tampered requests are 401`, async () => {
      const name = `signed${version.replace('.', '')}`;
      const tarball = cookbookTarball(name, '1.0.0', { dependencies: { apt: '>= 1.0' } });
      const tarballFile = path.join(dir, `${name}.tgz`);
      fs.writeFileSync(tarballFile, tarball);
      const { body, contentType } = shareBody(tarball, 'Utilities');
      const sharePath = chefPath('/api/v1/cookbooks');
      const shareHeaders = await rubySign('POST', sharePath, version, { file: tarballFile });
      expect(shareHeaders['X-Ops-Sign']).toBe(`algorithm=${version === '1.3' ? 'sha256' : 'sha1'};version=${version};`);

      // A different tarball under the same signature (its hash is of the signed one): refused, nothing stored.
      const { body: otherBody, contentType: otherType } = shareBody(cookbookTarball(name, '6.6.6'));
      expect(
        (await fetch(url(sharePath), { method: 'POST', headers: { ...shareHeaders, 'Content-Type': otherType }, body: otherBody })).status,
      ).toBe(401);
      const shared = await fetch(url(sharePath), { method: 'POST', headers: { ...shareHeaders, 'Content-Type': contentType }, body });
      expect([shared.status, await shared.text()]).toEqual([201, expect.stringContaining(`/cookbooks/${name}/versions/1.0.0`)]);

      const listPath = chefPath('/api/v1/cookbooks');
      const list = await fetch(url(listPath), { headers: await rubySign('GET', listPath, version) });
      expect(list.status).toBe(200);
      expect(((await list.json()) as any).items.map((i: any) => i.cookbook_name)).toContain(name);

      const showPath = chefPath(`/api/v1/cookbooks/${name}/versions/1.0.0`);
      const show = await fetch(url(showPath), { headers: await rubySign('GET', showPath, version) });
      expect(((await show.json()) as any).dependencies).toEqual({ apt: '>= 1.0' });

      const downloadPath = `${showPath}/download`;
      const downloadHeaders = await rubySign('GET', downloadPath, version);
      const download = await fetch(url(downloadPath), { headers: downloadHeaders });
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(tarball)).toBe(true);

      // Tampered copies of a valid signature.
      const tampered: [string, string, Record<string, string>][] = [
        ['other path', chefPath('/api/v1/cookbooks/apt'), downloadHeaders],
        ['other user', downloadPath, { ...downloadHeaders, 'X-Ops-Userid': 'bob' }],
        [
          'other timestamp',
          downloadPath,
          { ...downloadHeaders, 'X-Ops-Timestamp': new Date(Date.now() + 5000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
        ],
        [
          'other content hash',
          downloadPath,
          { ...downloadHeaders, 'X-Ops-Content-Hash': Buffer.alloc(version === '1.3' ? 32 : 20, 1).toString('base64') },
        ],
        [
          'truncated signature',
          downloadPath,
          { ...downloadHeaders, 'X-Ops-Authorization-1': downloadHeaders['X-Ops-Authorization-1'].slice(0, 40) },
        ],
      ];
      for (const [what, p, headers] of tampered) {
        const res = await fetch(url(p), { headers });
        expect([what, res.status]).toEqual([what, 401]);
      }
      const deleteAsGet = await fetch(url(downloadPath), { method: 'DELETE', headers: downloadHeaders });
      expect(deleteAsGet.status).toBe(401);

      const unsharePath = chefPath(`/api/v1/cookbooks/${name}`);
      const unshare = await fetch(url(unsharePath), { method: 'DELETE', headers: await rubySign('DELETE', unsharePath, version) });
      expect(unshare.status).toBe(200);
      expect((await fetch(url(unsharePath))).status).toBe(404);
    });
  }

  test('an old signature is refused (clock skew)', async () => {
    const p = chefPath('/api/v1/cookbooks');
    const input = JSON.stringify({
      method: 'GET',
      path: p,
      user_id: 'alice',
      key_file: keyFile,
      version: '1.3',
      timestamp: new Date(Date.now() - 3600_000).toISOString(),
    });
    const signed = await run('ruby', [SIGNER], input);
    expect(signed.code).toBe(0);
    const res = await fetch(url(p), { headers: JSON.parse(signed.stdout) });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).message).toMatch(/X-Ops-Timestamp/);
  });
});
