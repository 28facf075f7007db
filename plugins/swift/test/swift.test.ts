import crypto from 'node:crypto';
import http from 'node:http';
import { startServer, type TestServer } from '@hearth/testing';
import { ACCEPT, SwiftRegistryClient } from './registry-client';
import { makeZip, manifest, sourceArchive } from './zip-writer';

const basic = (user: { name: string; password: string }) => `Basic ${Buffer.from(`${user.name}:${user.password}`).toString('base64')}`;

describe('swift registry (SE-0292)', () => {
  let server: TestServer;
  let alice: { name: string; password: string; id: number };
  let bob: { name: string; password: string; id: number };
  let writer: SwiftRegistryClient;
  let anonymous: SwiftRegistryClient;
  const base = (owner: string) => `${server.url}api/packages/${owner}/swift`;
  const swiftVersions = async (owner: string) =>
    (await server.api('GET', `/packages/${owner}?type=swift`, { basic: [alice.name, alice.password] })).body as any[];

  beforeAll(async () => {
    server = await startServer({ plugins: { swift: { enabled: true, settings: { maxArchiveSize: 64 * 1024 } } } });
    alice = await server.user('alice');
    bob = await server.user('bob');
    writer = new SwiftRegistryClient(base('alice'), `token ${await server.token(alice, ['write:package'])}`);
    anonymous = new SwiftRegistryClient(base('alice'));
  });
  afterAll(() => server.close());

  test('publish, list, metadata, manifests and archive round trip', async () => {
    const archive = sourceArchive('LinkedList', { '4.2': '4.2', '5': '5.0' });
    const metadata = {
      description: 'a linked list',
      author: { name: 'Mona' },
      repositoryURLs: ['https://github.com/mona/LinkedList.git'],
      licenseURL: 'https://example.com/LICENSE',
    };
    const published = await writer.publish('mona', 'LinkedList', '1.1.0', { archive, metadata });
    expect(published.status).toBe(201);
    expect(published.headers.get('location')).toBe(`${base('alice')}/mona/LinkedList/1.1.0`);
    expect((await writer.publish('mona', 'LinkedList', '1.0.0', { archive: sourceArchive('LinkedList'), base64: true })).status).toBe(201);
    expect((await writer.publish('mona', 'LinkedList', '1.2.0-beta.1', { archive: sourceArchive('LinkedList') })).status).toBe(201);

    const list = await anonymous.listReleases('mona', 'LinkedList');
    expect(list.versions).toEqual(['1.2.0-beta.1', '1.1.0', '1.0.0']);
    expect(list.releases['1.1.0'].url).toBe(`${base('alice')}/mona/LinkedList/1.1.0`);
    expect(list.links.find((l) => l.rel === 'latest-version')?.url).toBe(`${base('alice')}/mona/LinkedList/1.2.0-beta.1`);
    // `.json` suffix and case-insensitive scope and name.
    expect((await anonymous.listReleases('MONA', 'linkedlist', '.json')).versions).toHaveLength(3);

    const info = await anonymous.release('mona', 'LinkedList', '1.1.0');
    expect(info.body.id).toBe('mona.LinkedList');
    expect(info.body.metadata).toEqual(metadata);
    expect(info.checksum).toBe(crypto.createHash('sha256').update(archive).digest('hex'));
    expect(info.links.map((l) => l.rel).sort()).toEqual(['latest-version', 'predecessor-version', 'successor-version']);
    expect(info.links.find((l) => l.rel === 'predecessor-version')?.url).toMatch(/\/1\.0\.0$/);
    expect((await anonymous.release('Mona', 'LINKEDLIST', '1.1.0', '.json')).checksum).toBe(info.checksum);

    const plain = await anonymous.manifest('mona', 'LinkedList', '1.1.0');
    expect(plain.filename).toBe('Package.swift');
    expect(plain.content).toBe(manifest('5.7', 'LinkedList'));
    expect(plain.alternates.map((a) => [a.params.filename, a.params['swift-tools-version']]).sort()).toEqual([
      ['Package@swift-4.2.swift', '4.2'],
      ['Package@swift-5.swift', '5.0'],
    ]);
    const variant = await anonymous.manifest('mona', 'LinkedList', '1.1.0', '4.2');
    expect([variant.filename, variant.redirected, variant.content]).toEqual([
      'Package@swift-4.2.swift',
      false,
      manifest('4.2', 'LinkedList'),
    ]);
    const missing = await anonymous.manifest('mona', 'LinkedList', '1.1.0', '6.0');
    expect([missing.filename, missing.redirected]).toEqual(['Package.swift', true]);

    const downloaded = await anonymous.download('mona', 'LinkedList', '1.1.0');
    expect(downloaded.equals(archive)).toBe(true);
    expect((await anonymous.download('mona', 'LinkedList', '1.0.0')).equals(sourceArchive('LinkedList'))).toBe(true);
    const head = await fetch(`${base('alice')}/mona/LinkedList/1.1.0.zip`, { method: 'HEAD', headers: { Accept: ACCEPT.zip } });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, String(archive.length)]);

    expect(await anonymous.identifiers('https://github.com/mona/linkedlist')).toEqual(['mona.LinkedList']);
    expect(
      await SwiftRegistryClient.problem(await anonymous.raw('GET', '/identifiers?url=https://example.com/none', ACCEPT.json)),
    ).toMatchObject({ status: 404 });
    expect(await SwiftRegistryClient.problem(await anonymous.raw('GET', '/identifiers', ACCEPT.json))).toMatchObject({ status: 400 });
  });

  test('Accept negotiation: v1 variants served, unknown version 400, unsupported 415', async () => {
    await writer.publish('neg', 'Pkg', '1.0.0', { archive: sourceArchive('Pkg') });
    for (const accept of [
      null,
      '*/*',
      'application/json',
      'application/vnd.swift.registry.v1',
      'application/vnd.swift.registry+json',
      `text/html, ${ACCEPT.json};q=0.9`,
    ]) {
      const res = await anonymous.raw('GET', '/neg/Pkg', accept);
      expect([accept, res.status, res.headers.get('content-version')]).toEqual([accept, 200, '1']);
    }
    const cases: [string, string, number][] = [
      ['/neg/Pkg', 'application/vnd.swift.registry.v2+json', 415],
      ['/neg/Pkg', 'application/vnd.swift.registry.vx+json', 400],
      ['/neg/Pkg', 'application/vnd.swift.registry.v1+xml', 400],
      ['/neg/Pkg/1.0.0', ACCEPT.zip, 415],
      ['/neg/Pkg/1.0.0.zip', ACCEPT.json, 415],
      ['/neg/Pkg/1.0.0/Package.swift', ACCEPT.zip, 415],
    ];
    for (const [path, accept, status] of cases) {
      const problem = await SwiftRegistryClient.problem(await anonymous.raw('GET', path, accept));
      expect([path, accept, problem.status]).toEqual([path, accept, status]);
    }
  });

  test('bad publishes are problem details and store nothing', async () => {
    const before = (await swiftVersions('alice')).length;
    const good = sourceArchive('Bad');
    const cases: [string, string, string, Parameters<SwiftRegistryClient['publish']>[3], number, RegExp][] = [
      ['bad scope', '-bad', 'Bad', { archive: good }, 400, /scope/],
      ['scope too long', 'a'.repeat(40), 'Bad', { archive: good }, 400, /scope/],
      ['bad name', 'ok', 'Bad__Name', { archive: good }, 400, /name/],
      ['no archive', 'ok', 'Bad', { metadata: {} }, 422, /source-archive/],
      ['not a zip', 'ok', 'Bad', { archive: Buffer.from('plain text') }, 422, /not a zip/],
      ['no manifest', 'ok', 'Bad', { archive: makeZip([{ name: 'Bad/README.md', content: 'x' }]) }, 422, /Package\.swift/],
      ['unsafe entry', 'ok', 'Bad', { archive: makeZip([{ name: '../Package.swift', content: 'x' }]) }, 422, /unsafe/],
      ['metadata not JSON', 'ok', 'Bad', { archive: good, metadata: '{"a":' }, 400, /metadata/],
      ['metadata wrong type', 'ok', 'Bad', { archive: good, metadata: { repositoryURLs: 'https://x' } }, 422, /repositoryURLs/],
      ['author without name', 'ok', 'Bad', { archive: good, metadata: { author: {} } }, 422, /author\.name/],
      ['signature without format', 'ok', 'Bad', { archive: good, signature: Buffer.from('sig') }, 422, /Signature-Format/],
      [
        'too large',
        'ok',
        'Bad',
        {
          archive: makeZip([
            { name: 'Bad/Package.swift', content: manifest('5.7', 'Bad') },
            { name: 'Bad/big', content: crypto.randomBytes(70 * 1024), store: true },
          ]),
        },
        413,
        /larger/,
      ],
    ];
    for (const [what, scope, name, parts, status, detail] of cases) {
      const problem = await SwiftRegistryClient.problem(await writer.publish(scope, name, '1.0.0', parts));
      expect([what, problem.status]).toEqual([what, status]);
      expect([what, problem.detail]).toEqual([what, expect.stringMatching(detail)]);
    }
    for (const version of ['1.0', 'v1.0.0', '01.0.0', '1.0.0+', 'latest']) {
      const problem = await SwiftRegistryClient.problem(await writer.publish('ok', 'Bad', version, { archive: good }));
      expect([version, problem.status]).toEqual([version, 400]);
    }
    const noBoundary = await fetch(`${base('alice')}/ok/Bad/1.0.0`, {
      method: 'PUT',
      headers: { Authorization: `token ${await server.token(alice, ['write:package'])}`, 'Content-Type': 'application/zip' },
      body: good,
    });
    expect((await SwiftRegistryClient.problem(noBoundary)).status).toBe(400);
    expect((await swiftVersions('alice')).length).toBe(before);
  });

  test('duplicate versions are 409, also with another case of scope and name; signatures are served', async () => {
    const signature = crypto.randomBytes(64);
    expect(
      (await writer.publish('dup', 'Thing', '2.0.0', { archive: sourceArchive('Thing'), signature, signatureFormat: 'cms-1.0.0' })).status,
    ).toBe(201);
    for (const [scope, name] of [
      ['dup', 'Thing'],
      ['DUP', 'thing'],
    ]) {
      const problem = await SwiftRegistryClient.problem(
        await writer.publish(scope, name, '2.0.0', { archive: sourceArchive('Thing', {}, 'changed\n') }),
      );
      expect([problem.status, problem.detail]).toEqual([409, 'a release with version 2.0.0 already exists']);
    }
    const info = await anonymous.release('dup', 'Thing', '2.0.0');
    expect(info.body.resources[0].signing).toEqual({ signatureBase64Encoded: signature.toString('base64'), signatureFormat: 'cms-1.0.0' });
    const zip = await fetch(`${base('alice')}/dup/Thing/2.0.0.zip`, { headers: { Accept: ACCEPT.zip } });
    expect(zip.headers.get('x-swift-package-signature-format')).toBe('cms-1.0.0');
    expect(zip.headers.get('x-swift-package-signature')).toBe(signature.toString('base64'));
    expect((await anonymous.download('dup', 'Thing', '2.0.0')).equals(sourceArchive('Thing'))).toBe(true);
  });

  test('Expect: 100-continue is honoured', async () => {
    const token = await server.token(alice, ['write:package']);
    const body = Buffer.concat([
      Buffer.from('--b\r\nContent-Disposition: form-data; name="source-archive"\r\n\r\n'),
      sourceArchive('Cont'),
      Buffer.from('\r\n--b--\r\n'),
    ]);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${base('alice')}/cont/Cont/1.0.0`, {
        method: 'PUT',
        headers: {
          Authorization: `token ${token}`,
          Accept: ACCEPT.json,
          'Content-Type': 'multipart/form-data; boundary=b',
          'Content-Length': body.length,
          Expect: '100-continue',
        },
      });
      req.on('continue', () => req.end(body));
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
    expect(status).toBe(201);
  });

  test('login check, permissions and private owners', async () => {
    expect((await new SwiftRegistryClient(base('alice'), basic(alice)).login()).status).toBe(200);
    const anonymousLogin = await anonymous.login();
    expect((await SwiftRegistryClient.problem(anonymousLogin)).status).toBe(401);
    expect(anonymousLogin.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await new SwiftRegistryClient(base('alice'), 'Basic ' + Buffer.from('alice:wrong').toString('base64')).login()).status).toBe(
      401,
    );

    expect((await anonymous.publish('perm', 'Pkg', '1.0.0', { archive: sourceArchive('Pkg') })).status).toBe(401);
    const reader = new SwiftRegistryClient(base('alice'), `token ${await server.token(alice, ['read:package'])}`);
    expect((await reader.publish('perm', 'Pkg', '1.0.0', { archive: sourceArchive('Pkg') })).status).toBe(403);
    const other = new SwiftRegistryClient(base('alice'), basic(bob));
    expect((await other.publish('perm', 'Pkg', '1.0.0', { archive: sourceArchive('Pkg') })).status).toBe(403);
    expect((await anonymous.raw('GET', '/perm/Pkg', ACCEPT.json)).status).toBe(404);

    const hidden = await server.user('hidden', { visibility: 'private' });
    const hiddenWriter = new SwiftRegistryClient(base('hidden'), basic(hidden));
    expect((await hiddenWriter.publish('sec', 'Pkg', '1.0.0', { archive: sourceArchive('Pkg') })).status).toBe(201);
    expect((await hiddenWriter.download('sec', 'Pkg', '1.0.0')).length).toBeGreaterThan(0);
    // The package guard's refusals are problem details too (SE-0292 §3.3).
    const invisible = await SwiftRegistryClient.problem(await new SwiftRegistryClient(base('hidden')).raw('GET', '/sec/Pkg', ACCEPT.json));
    expect(invisible.status).toBe(404);
    const other404 = await new SwiftRegistryClient(base('hidden'), basic(bob)).raw('GET', '/sec/Pkg/1.0.0.zip', ACCEPT.zip);
    expect((await SwiftRegistryClient.problem(other404)).status).toBe(404);
    const readOnly = new SwiftRegistryClient(base('hidden'), `token ${await server.token(hidden, ['read:package'])}`);
    const scope = await SwiftRegistryClient.problem(await readOnly.publish('sec', 'Pkg', '2.0.0', { archive: sourceArchive('Pkg') }));
    expect([scope.status, scope.detail]).toEqual([403, expect.stringMatching(/write:package/)]);
    const badLogin = new SwiftRegistryClient(base('hidden'), 'Basic ' + Buffer.from('hidden:wrong').toString('base64'));
    expect((await SwiftRegistryClient.problem(await badLogin.raw('GET', '/sec/Pkg', ACCEPT.json))).status).toBe(401);
  });

  test('a release deleted through the package API is gone everywhere', async () => {
    await writer.publish('gone', 'Pkg', '1.0.0', {
      archive: sourceArchive('Pkg'),
      metadata: { repositoryURLs: ['https://example.com/gone/pkg'] },
    });
    await writer.publish('gone', 'Pkg', '1.1.0', { archive: sourceArchive('Pkg') });
    expect(await anonymous.identifiers('https://example.com/gone/pkg')).toEqual(['gone.Pkg']);
    const versionId = (await server.api('GET', '/packages/alice/swift/gone.Pkg/1.0.0')).body.id;
    expect(Number((await server.kernel.db('swift_manifest').where({ version_id: versionId }).count({ n: '*' }).first())?.n)).toBe(1);
    const del = await server.api('DELETE', '/packages/alice/swift/gone.Pkg/1.0.0', {
      token: await server.token(alice, ['delete:package']),
    });
    expect(del.status).toBe(204);
    expect((await anonymous.listReleases('gone', 'Pkg')).versions).toEqual(['1.1.0']);
    for (const path of [
      '/gone/Pkg/1.0.0',
      '/gone/Pkg/1.0.0.zip',
      '/gone/Pkg/1.0.0/Package.swift',
      '/identifiers?url=https://example.com/gone/pkg',
    ]) {
      expect([path, (await SwiftRegistryClient.problem(await anonymous.raw('GET', path, null))).status]).toEqual([path, 404]);
    }
    expect(Number((await server.kernel.db('swift_manifest').where({ version_id: versionId }).count({ n: '*' }).first())?.n)).toBe(0);
    expect(Number((await server.kernel.db('swift_repository_url').where({ version_id: versionId }).count({ n: '*' }).first())?.n)).toBe(0);
  });
});

test('a server without the swift plugin has no swift routes and no swift tables', async () => {
  const server = await startServer();
  try {
    await server.user('carol');
    const res = await fetch(`${server.url}api/packages/carol/swift/mona/LinkedList`, { headers: { Accept: ACCEPT.json } });
    expect(res.status).toBe(404);
    expect(await server.kernel.db.schema.hasTable('swift_manifest')).toBe(false);
    expect(await server.kernel.db.schema.hasTable('swift_repository_url')).toBe(false);
  } finally {
    await server.close();
  }
});
