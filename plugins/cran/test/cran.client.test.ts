import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type TestServer } from '@hearth/testing';
import { binaryPackage, run } from './helpers';

/** The real R client (Debian's r-base-core): R CMD build, install.packages, available.packages, readRDS. */
describe('the real R client', () => {
  let server: TestServer;
  let dir: string;

  const rscript = async (code: string) => {
    const r = await run('Rscript', ['--vanilla', '-e', code], {
      cwd: dir,
      env: { ...process.env, R_LIBS_USER: path.join(dir, 'none'), LANG: 'C.UTF-8' },
    });
    if (r.code !== 0) throw new Error(`Rscript failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };

  /** Write a package skeleton and build its source tarball with R CMD build. */
  const build = async (name: string, version: string, descriptionExtra: string, namespace: string, code: string): Promise<Buffer> => {
    const src = path.join(dir, 'src', name);
    fs.mkdirSync(path.join(src, 'R'), { recursive: true });
    fs.writeFileSync(
      path.join(src, 'DESCRIPTION'),
      `Package: ${name}\nVersion: ${version}\nTitle: Test Package ${name}\nDescription: A package for\n    the registry tests.\n` +
        `Author: Tester\nMaintainer: Tester <t@example.com>\nLicense: MIT + file LICENSE\n${descriptionExtra}`,
    );
    fs.writeFileSync(path.join(src, 'LICENSE'), 'YEAR: 2024\nCOPYRIGHT HOLDER: Tester\n');
    fs.writeFileSync(path.join(src, 'NAMESPACE'), namespace);
    fs.writeFileSync(path.join(src, 'R', `${name}.R`), code);
    const r = await run('R', ['CMD', 'build', '--no-build-vignettes', '--no-manual', src], { cwd: dir });
    if (r.code !== 0) throw new Error(`R CMD build failed:\n${r.stdout}\n${r.stderr}`);
    return fs.readFileSync(path.join(dir, `${name}_${version}.tar.gz`));
  };

  beforeAll(async () => {
    const probe = await run('Rscript', ['--version'], { cwd: os.tmpdir() }).catch(() => null);
    if (!probe || probe.code !== 0)
      throw new Error('R is not installed: install the Debian package r-base-core (scripts/setup-test-deps.sh)');
    server = await startServer({ plugins: { cran: { enabled: true } } });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-cran-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('install.packages installs an uploaded package and its dependency from a private owner', async () => {
    const owner = await server.user('rdev', { visibility: 'private' });
    const token = await server.token(owner, ['write:package']);
    const dep = await build('hearthdep', '0.2.1', '', 'export(shout)\n', 'shout <- function(x) toupper(x)\n');
    const pkg = await build(
      'hearthpkg',
      '1.0.0',
      'Imports: hearthdep (>= 0.2)\n',
      'export(greet)\nimportFrom(hearthdep, shout)\n',
      'greet <- function() shout("hello from hearth")\n',
    );
    for (const body of [dep, pkg]) {
      const res = await fetch(new URL('api/packages/rdev/cran/src', server.url), {
        method: 'PUT',
        headers: { Authorization: `token ${token}` },
        body,
      });
      expect(res.status).toBe(201);
    }
    const win = binaryPackage('hearthpkg', '1.0.0', 'zip');
    expect(
      (
        await fetch(new URL('api/packages/rdev/cran/bin?platform=windows&rversion=4.2', server.url), {
          method: 'PUT',
          headers: { Authorization: `token ${token}` },
          body: win,
        })
      ).status,
    ).toBe(201);

    // Credentials in the repository URL: R's libcurl sends them as HTTP Basic.
    const repo = new URL('api/packages/rdev/cran', server.url);
    repo.username = 'rdev';
    repo.password = token;
    const lib = path.join(dir, 'lib');
    fs.mkdirSync(lib);
    const out = await rscript(`
      repo <- "${repo.href}"
      options(warn = 1)
      ap <- available.packages(repos = repo, type = "source", ignore_repo_cache = TRUE)
      cat("available:", paste(sort(rownames(ap)), ap[sort(rownames(ap)), "Version"], sep = "@"), "\\n")
      rds <- readRDS(gzcon(url(paste0(repo, "/src/contrib/PACKAGES.rds"))))
      dcf <- read.dcf(url(paste0(repo, "/src/contrib/PACKAGES")))
      cat("rds-matches-dcf:", identical(unname(rds[, colnames(dcf)]), unname(dcf)), "\\n")
      install.packages("hearthpkg", repos = repo, lib = "${lib}", type = "source", quiet = TRUE)
      library(hearthpkg, lib.loc = "${lib}")
      cat("result:", greet(), "\\n")
      wb <- available.packages(contriburl = contrib.url(repo, type = "win.binary"), type = "win.binary", ignore_repo_cache = TRUE)
      cat("win.binary:", rownames(wb), "\\n")
    `);
    expect(out).toContain('available: hearthdep@0.2.1 hearthpkg@1.0.0');
    expect(out).toContain('rds-matches-dcf: TRUE');
    expect(out).toContain('result: HELLO FROM HEARTH');
    expect(out).toContain('win.binary: hearthpkg');
    expect(fs.existsSync(path.join(lib, 'hearthdep', 'DESCRIPTION'))).toBe(true);

    // Without credentials, R gets no index from the private owner.
    const anonymous = await rscript(`
      ap <- suppressWarnings(available.packages(repos = "${new URL('api/packages/rdev/cran', server.url).href}", type = "source",
        ignore_repo_cache = TRUE))
      cat("anonymous:", nrow(ap), "\\n")
    `);
    expect(anonymous).toContain('anonymous: 0');
  }, 110_000);
});
