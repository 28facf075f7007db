import { startServer, type TestServer } from '@hearth/testing';
import { condaPackage, sha256 } from './helpers';

/**
 * The real client: rattler's solver (npm @conda-org/rattler, the library behind pixi) fetches the
 * served repodata, solves an environment, and names the files to download. It cannot install
 * (no conda here), so the test downloads the chosen files and checks them against the solution.
 */
describe('the rattler solver against a served channel', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ plugins: { conda: { enabled: true } } });
  });
  afterAll(() => server?.close());

  test('simpleSolve picks an uploaded package and its dependency; the files match the solved sha256', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { simpleSolve } = require('@conda-org/rattler') as typeof import('@conda-org/rattler');
    const owner = await server.user('condadev');
    const token = await server.token(owner, ['write:package']);
    const uploads = [
      await condaPackage({ name: 'libdep', version: '1.1.0', subdir: 'linux-64' }, '.tar.bz2'),
      await condaPackage({ name: 'libdep', version: '1.2.0', subdir: 'linux-64' }, '.conda'),
      await condaPackage({ name: 'libdep', version: '2.0.0', subdir: 'linux-64' }, '.conda'),
      await condaPackage({ name: 'app', version: '0.5', depends: ['libdep >=1.1,<2'] }, '.conda'),
    ];
    for (const u of uploads) {
      const res = await fetch(new URL(`api/packages/condadev/conda/forge/${u.filename}`, server.url), {
        method: 'PUT',
        headers: { Authorization: `token ${token}` },
        body: u.data,
      });
      expect([u.filename, res.status]).toEqual([u.filename, 201]);
    }
    const channel = new URL('api/packages/condadev/conda/forge', server.url).href;
    const solved = await simpleSolve(['app'], [channel], ['linux-64', 'noarch'], []);
    const chosen = solved.map((p) => ({ name: p.packageName, version: p.version, url: p.url, sha256: p.sha256, filename: p.filename }));
    expect(chosen.map((p) => `${p.name}=${p.version}`).sort()).toEqual(['app=0.5', 'libdep=1.2.0']);
    for (const p of chosen) {
      expect(p.url).toBe(`${channel}/${p.name === 'app' ? 'noarch' : 'linux-64'}/${p.filename}`);
      const res = await fetch(p.url);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(sha256(bytes)).toBe(p.sha256);
      expect(bytes.equals(uploads.find((u) => u.filename === p.filename)!.data)).toBe(true);
    }
    // An unsatisfiable request is the solver's error, not a transport one.
    await expect(simpleSolve(['app', 'libdep >=3'], [channel], ['linux-64', 'noarch'], [])).rejects.toBeDefined();
  }, 60_000);
});
