import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type NextFunction, type Request, type Response } from 'express';
import semver from 'semver';
import fs from 'node:fs';
import path from 'node:path';
import { ApiError, definePlugin, isApiError, type PackageVersionInfo, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import {
  CRATE_NAME,
  PublishError,
  normalizeName,
  splitPublishBody,
  toIndexEntry,
  validateCrate,
  withoutBuild,
  type IndexEntry,
} from './crate';
import { GitIndexStore, indexPath, type IndexChange } from './git-index';
import { KeyedChain } from './queue';

const TYPE = 'cargo';
/** The plugin's own tables: the crates of each owner (name collisions, search), and yanked versions. */
const CRATES = 'cargo_crate';
const YANKED = 'cargo_yanked';

interface Settings {
  maxPublishSize: number;
}

interface CrateRow {
  id: number;
  owner_id: number;
  name: string;
  norm_name: string;
  description: string | null;
}

/** Cargo prints `errors[].detail`; `message` keeps the body readable for Gitea-style clients. */
function cargoError(res: Response, status: number, detail: string, headers?: Record<string, string>): void {
  if (headers) res.set(headers);
  res.status(status).json({ errors: [{ detail }], message: detail });
}

/** Read the whole request body, refusing more than `limit` bytes. */
async function readBody(req: Request, limit: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) {
    req.resume();
    throw new ApiError(413, `the publish body is larger than ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw new ApiError(413, `the publish body is larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Publish order: by creation, then by id (creation times have second resolution). */
function publishOrder(versions: PackageVersionInfo[]): PackageVersionInfo[] {
  return [...versions].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id - b.id);
}

/** Where cargo is told to log in when a private owner's index asks for credentials. */
function loginUrl(ctx: PluginContext<Settings>): string {
  return `${ctx.forge.appUrl}user/settings/applications`;
}

/**
 * The index content shared by both protocols: a crate's index file (one JSON line per version,
 * in publish order) and config.json, computed from the database. The git index repository holds
 * the same files, committed on every publish, yank and unyank.
 */
function indexService(ctx: PluginContext<Settings>) {
  const { db, packages } = ctx;
  const store = new GitIndexStore(path.join(ctx.forge.dataDir, 'cargo-index'), ctx.log);

  async function yankedIds(versionIds: number[]): Promise<Set<number>> {
    if (!versionIds.length) return new Set();
    const rows: { version_id: number | string }[] = await db(YANKED).whereIn('version_id', versionIds).select('version_id');
    return new Set(rows.map((r) => Number(r.version_id)));
  }

  /** The index file of a crate (lower-cased name), or null when it has no versions. */
  async function crateFile(ownerId: number, name: string): Promise<string | null> {
    const versions = publishOrder(await packages.listVersions(ownerId, TYPE, name.toLowerCase())).filter((v) => v.metadata);
    if (!versions.length) return null;
    const yanked = await yankedIds(versions.map((v) => v.id));
    const lines = versions.map((v) => {
      const m = v.metadata as unknown as IndexEntry;
      const line: Record<string, unknown> = {
        name: m.name,
        vers: m.vers,
        deps: m.deps,
        cksum: m.cksum,
        features: m.features,
        yanked: yanked.has(v.id),
        links: m.links ?? null,
        v: m.v ?? 2,
      };
      if (m.features2) line.features2 = m.features2;
      if (m.rust_version) line.rust_version = m.rust_version;
      if (m.pubtime) line.pubtime = m.pubtime;
      return JSON.stringify(line);
    });
    return `${lines.join('\n')}\n`;
  }

  function config(owner: UserInfo): { dl: string; api: string; 'auth-required': boolean } {
    const base = `${ctx.forge.appUrl}api/packages/${encodeURIComponent(owner.name)}/cargo`;
    return { dl: `${base}/api/v1/crates`, api: base, 'auth-required': owner.visibility !== 'public' };
  }
  const configFile = (owner: UserInfo): IndexChange => ({ path: 'config.json', content: `${JSON.stringify(config(owner), null, 2)}\n` });

  /** Every file of an owner's index, from the database. */
  async function allFiles(owner: UserInfo): Promise<IndexChange[]> {
    const rows: { name: string }[] = await db(CRATES).where({ owner_id: owner.id }).orderBy('norm_name').select('name');
    const files: IndexChange[] = [configFile(owner)];
    for (const { name } of rows) {
      const content = await crateFile(owner.id, name);
      if (content !== null) files.push({ path: indexPath(name), content });
    }
    return files;
  }

  /** Recreate an owner's git index from the database (one commit). */
  function rebuild(owner: UserInfo, reason = 'Rebuild the index from the registry database'): Promise<{ head: string; files: number }> {
    return store.serialize(owner.id, async () => {
      const files = await allFiles(owner);
      const head = await store.create(owner.id, files, reason);
      return { head, files: files.length };
    });
  }

  /**
   * Bring the git index up to date after a crate changed: one commit with its index file (and
   * config.json when the owner's name, visibility or the public URL changed). The owner's first
   * publish (or first fetch: cargo reads the index before publishing) creates the repository. An
   * update whose content the index has already (a concurrent publish committed it) makes no
   * commit. A failure is logged: the database stays the truth, and the next change of the crate
   * or `rebuild-index` repairs the index.
   */
  async function crateChanged(owner: UserInfo, name: string, message: string): Promise<void> {
    try {
      await store.serialize(owner.id, async () => {
        if (!store.exists(owner.id)) {
          await store.create(owner.id, await allFiles(owner), message);
          return;
        }
        await store.commit(owner.id, [configFile(owner), { path: indexPath(name), content: await crateFile(owner.id, name) }], message);
      });
    } catch (err) {
      ctx.log.error(
        { err, owner: owner.name, crate: name },
        'updating the cargo git index failed; run `hearth plugins run cargo rebuild-index` to repair it',
      );
    }
  }

  /** Create the owner's index from the database unless it exists. */
  function ensure(owner: UserInfo): Promise<void> {
    return store.serialize(owner.id, async () => {
      if (!store.exists(owner.id)) await store.create(owner.id, await allFiles(owner), 'Create the index');
    });
  }

  /** Refresh config.json (after a rename). */
  async function configChanged(owner: UserInfo): Promise<void> {
    if (!store.exists(owner.id)) return;
    try {
      await store.serialize(owner.id, () => store.commit(owner.id, [configFile(owner)], 'Update config.json'));
    } catch (err) {
      ctx.log.error({ err, owner: owner.name }, 'updating the cargo index config.json failed');
    }
  }

  return { store, yankedIds, crateFile, config, rebuild, ensure, crateChanged, configChanged };
}

type IndexService = ReturnType<typeof indexService>;

/** The git index repository `/{owner}/_cargo-index.git`, read-only over smart HTTP. */
function gitIndexRouter(ctx: PluginContext<Settings>, index: IndexService): Router {
  return ctx.git.readOnlyRouter(async (req, principal) => {
    let owner: UserInfo;
    try {
      owner = (await ctx.packages.ownerAccess(String(req.params.owner), principal, 'read')).owner;
    } catch (err) {
      // git sends credentials only when challenged.
      if (!principal && isApiError(err) && err.status === 404)
        throw ApiError.unauthorized('authentication required to read this cargo index');
      throw err;
    }
    // cargo fetches the index before its first publish: an owner's index starts with config.json.
    if (!index.store.exists(owner.id)) await index.ensure(owner);
    return index.store.dirOf(owner.id);
  });
}

function routes(ctx: PluginContext<Settings>, index: IndexService): Router {
  const packages = ctx.packages;
  const db = ctx.db;
  const router = Router({ mergeParams: true });
  const { yankedIds } = index;
  const publishes = new KeyedChain<number>();

  const crateFileName = (v: { name: string; version: string }) => `${v.name}-${v.version}.crate`;

  /** The crate's row, dropped when the package is gone (deleted through /api/v1/packages). */
  async function crateRow(ownerId: number, name: string): Promise<CrateRow | null> {
    const row: CrateRow | undefined = await db(CRATES)
      .where({ owner_id: ownerId, norm_name: normalizeName(name) })
      .first();
    if (!row) return null;
    if ((await packages.listVersions(ownerId, TYPE, row.name)).length === 0) {
      await db(CRATES).where({ id: row.id }).delete();
      return null;
    }
    return row;
  }

  async function findVersion(req: Request): Promise<PackageVersionInfo> {
    const { name, version } = req.params as Record<string, string>;
    if (!CRATE_NAME.test(name)) throw ApiError.notFound(`crate \`${name}\` does not exist`);
    const { owner } = packages.access(req);
    const found = await packages.getVersion(owner.id, TYPE, name, version);
    if (!found) throw ApiError.notFound(`crate \`${name}\` version \`${version}\` does not exist`);
    return found;
  }

  router.get('/config.json', (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    res.set('Cache-Control', 'no-cache').json(index.config(owner));
  });

  // ---- web API (before the index routes: `api/v1/crates` would match `{ab}/{cd}/{name}`) ----

  router.put('/api/v1/crates/new', async (req: Request, res: Response) => {
    // The registry's guard let only writers of the owner's packages through (a PUT needs write).
    const access = packages.access(req);
    const body = await readBody(req, ctx.settings.maxPublishSize);
    const { meta, crate } = splitPublishBody(body);
    const cksum = crypto.createHash('sha256').update(crate).digest('hex');
    const entry: IndexEntry = toIndexEntry(meta, cksum, new Date());
    await validateCrate(crate, entry.name, entry.vers);

    const ownerId = access.owner.id;
    // One publish of an owner at a time (in this process): the name and version checks, the
    // upload and the index commit go together, so each publish makes its own commit.
    await publishes.run(ownerId, async () => {
      const existing = await crateRow(ownerId, entry.name);
      if (existing && existing.name !== entry.name) {
        throw ApiError.conflict(
          `crate \`${entry.name}\` conflicts with the existing crate \`${existing.name}\` (names are ` +
            `unique ignoring case and '-'/'_'); publish it as \`${existing.name}\``,
        );
      }
      const versions = await packages.listVersions(ownerId, TYPE, entry.name);
      const same = versions.find((v) => withoutBuild(v.version) === withoutBuild(entry.vers));
      if (same) throw ApiError.conflict(`crate version \`${entry.name}@${same.version}\` is already uploaded`);

      await packages.upload({
        ownerId,
        type: TYPE,
        name: entry.name,
        version: entry.vers,
        filename: crateFileName({ name: entry.name, version: entry.vers }),
        body: Readable.from([crate]),
        declaredSize: crate.length,
        metadata: entry as unknown as Record<string, unknown>,
        semverCompatible: true,
        isLead: true,
        actor: access.principal?.user ?? null,
      });

      const description = typeof meta.description === 'string' ? meta.description.slice(0, 1000) : null;
      if (existing) await db(CRATES).where({ id: existing.id }).update({ description });
      else
        await db(CRATES)
          .insert({ owner_id: ownerId, name: entry.name, norm_name: normalizeName(entry.name), description })
          .onConflict(['owner_id', 'norm_name'])
          .ignore();
      await index.crateChanged(access.owner, entry.name, `Publish ${entry.name} ${entry.vers}`);
    });
    res.status(200).json({ warnings: { invalid_categories: [], invalid_badges: [], other: [] } });
  });

  router.get('/api/v1/crates', async (req: Request, res: Response) => {
    const { owner } = packages.access(req);
    const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 64) : '';
    const perPageRaw = Number(typeof req.query.per_page === 'string' ? req.query.per_page : 10);
    const perPage = Number.isInteger(perPageRaw) && perPageRaw > 0 ? Math.min(perPageRaw, 100) : 10;
    const query = db(CRATES).where({ owner_id: owner.id });
    if (q) query.whereRaw(`norm_name like ? escape '!'`, [`%${normalizeName(q).replace(/[!%_]/g, (c) => `!${c}`)}%`]);
    const rows: CrateRow[] = await query.clone().orderBy('norm_name').limit(perPage).select('*');
    const counted = await query.clone().count({ n: '*' }).first();
    let total = Number((counted as { n: number | string } | undefined)?.n ?? 0);
    const crates: { name: string; max_version: string; description: string }[] = [];
    for (const row of rows) {
      const versions = await packages.listVersions(owner.id, TYPE, row.name);
      if (!versions.length) {
        await db(CRATES).where({ id: row.id }).delete();
        total--;
        continue;
      }
      const yanked = await yankedIds(versions.map((v) => v.id));
      const live = versions.filter((v) => !yanked.has(v.id));
      const pool = (live.length ? live : versions).map((v) => v.version);
      const max = pool.reduce((a, b) => (semver.valid(a) && semver.valid(b) && semver.gt(b, a) ? b : a));
      crates.push({ name: row.name, max_version: max, description: row.description ?? '' });
    }
    res.json({ crates, meta: { total } });
  });

  router.get('/api/v1/crates/:name/owners', async (req: Request, res: Response) => {
    const { name } = req.params as Record<string, string>;
    const { owner } = packages.access(req);
    if (!CRATE_NAME.test(name) || !(await crateRow(owner.id, name)) || !(await packages.listVersions(owner.id, TYPE, name)).length) {
      throw ApiError.notFound(`crate \`${name}\` does not exist`);
    }
    res.json({ users: [{ id: owner.id, login: owner.name, name: owner.fullName || owner.name }] });
  });

  router.get('/api/v1/crates/:name/:version/download', async (req: Request, res: Response) => {
    const version = await findVersion(req);
    const file =
      (await packages.getFile(version.id, crateFileName(version))) ?? (await packages.listFiles(version.id)).find((f) => f.isLead);
    if (!file) throw ApiError.notFound('crate file does not exist');
    const download = await packages.openFile(file);
    res.status(200).set({
      'Content-Type': 'application/x-tar',
      'Content-Length': String(download.size),
      'Content-Disposition': `attachment; filename="${file.name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"`,
      ETag: `"${download.hashes.sha256}"`,
    });
    try {
      await pipeline(download.stream, res);
    } catch (err) {
      ctx.log.debug({ err }, 'crate download ended early');
    }
  });

  router.delete('/api/v1/crates/:name/:version/yank', async (req: Request, res: Response) => {
    const version = await findVersion(req);
    await db(YANKED).insert({ version_id: version.id }).onConflict('version_id').ignore();
    await index.crateChanged(packages.access(req).owner, version.name, `Yank ${version.name} ${version.version}`);
    res.json({ ok: true });
  });

  router.put('/api/v1/crates/:name/:version/unyank', async (req: Request, res: Response) => {
    const version = await findVersion(req);
    await db(YANKED).where({ version_id: version.id }).delete();
    await index.crateChanged(packages.access(req).owner, version.name, `Unyank ${version.name} ${version.version}`);
    res.json({ ok: true });
  });

  // ---- sparse index ----

  async function indexFile(req: Request, res: Response, name: string, ok: boolean): Promise<void> {
    const lower = name.toLowerCase();
    if (!ok || !CRATE_NAME.test(name) || name !== lower) throw ApiError.notFound(`crate \`${name}\` does not exist`);
    const { owner } = packages.access(req);
    const body = await index.crateFile(owner.id, lower);
    if (body === null) throw ApiError.notFound(`crate \`${name}\` does not exist`);
    const etag = `"${crypto.createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    res.set({ ETag: etag, 'Cache-Control': 'no-cache', 'Content-Type': 'text/plain; charset=utf-8' });
    const inm = req.headers['if-none-match'];
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).send(body);
  }

  router.get('/1/:name', (req: Request, res: Response) => {
    const { name } = req.params as Record<string, string>;
    return indexFile(req, res, name, name.length === 1);
  });
  router.get('/2/:name', (req: Request, res: Response) => {
    const { name } = req.params as Record<string, string>;
    return indexFile(req, res, name, name.length === 2);
  });
  router.get('/3/:c/:name', (req: Request, res: Response) => {
    const { c, name } = req.params as Record<string, string>;
    return indexFile(req, res, name, name.length === 3 && c === name.slice(0, 1));
  });
  router.get('/:ab/:cd/:name', (req: Request, res: Response) => {
    const { ab, cd, name } = req.params as Record<string, string>;
    return indexFile(req, res, name, name.length >= 4 && ab === name.slice(0, 2) && cd === name.slice(2, 4));
  });

  // Everything under the cargo mount answers in cargo's error shape.
  router.use((req: Request, res: Response) => cargoError(res, 404, `not found: ${req.method} ${req.originalUrl.split('?')[0]}`));
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    if (err instanceof PublishError) return cargoError(res, 400, err.message);
    if (isApiError(err)) return cargoError(res, err.status, err.message, err.headers);
    return next(err);
  });

  return router;
}

/**
 * The Cargo registry: the sparse index (config.json and index files at cargo's sharded paths),
 * the git index repository `/{owner}/_cargo-index.git` holding the same files (isomorphic-git,
 * one commit per publish, yank and unyank; `hearth plugins run cargo rebuild-index <owner>`
 * recreates it), and the web API (publish, download, yank/unyank, search, owners). Built only on
 * the public plugin API; yanked flags and the per-owner crate list (case and '-'/'_' collisions,
 * search) live in the plugin's own tables.
 */
export default definePlugin<Settings>({
  name: 'cargo',
  version: '0.1.0',
  apiVersion: '^2.0.0',
  description: 'The Cargo registry (sparse index and git index repository)',
  settingsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      maxPublishSize: {
        type: 'integer',
        minimum: 1024,
        default: 10 * 1024 * 1024 + 1024 * 1024,
        description: 'largest publish body (metadata + .crate) in bytes',
      },
    },
  },
  migrations: [
    {
      name: '001_cargo_tables',
      async up(db) {
        await db.schema.createTable(CRATES, (t) => {
          t.increments('id');
          t.integer('owner_id').notNullable();
          t.string('name', 64).notNullable();
          t.string('norm_name', 64).notNullable();
          t.text('description');
          t.unique(['owner_id', 'norm_name']);
        });
        await db.schema.createTable(YANKED, (t) => {
          t.integer('version_id').notNullable().primary();
        });
      },
      async down(db) {
        await db.schema.dropTableIfExists(YANKED);
        await db.schema.dropTableIfExists(CRATES);
      },
    },
  ],
  apply(ctx) {
    const index = indexService(ctx);
    // Stage -10: before the kernel's repository smart HTTP routes, which would take
    // `/{owner}/_cargo-index.git` for a repository named `_cargo-index`.
    ctx.hooks.http.routes.tap({ name: 'cargo', stage: -10 }, (r) => {
      // Yanking is a DELETE that only flips a flag: it needs write:package, not delete:package.
      r.packages(TYPE, routes(ctx, index), {
        levelFor: (method, path) => (method === 'DELETE' && path.endsWith('/yank') ? 'write' : undefined),
        // Cargo sends its token only after a 401 (then `auth-required` in config.json keeps it sending).
        anonymousChallenge: () => `Cargo login_url="${loginUrl(ctx)}"`,
      });
      r.root('/:owner/_cargo-index{.git}', gitIndexRouter(ctx, index));
    });
    // The owner's packages go with a purged user; so do the crate rows and the index repository.
    ctx.hooks.user.deleting.tapPromise('cargo', async ({ user, trx }) => {
      await trx(CRATES).where({ owner_id: user.id }).delete();
    });
    ctx.hooks.user.deleted.tapPromise('cargo', async ({ user }) => {
      await index.store.serialize(user.id, async () => fs.rmSync(index.store.dirOf(user.id), { recursive: true, force: true }));
    });
    // config.json names the owner in its URLs.
    ctx.hooks.user.renamed.tapPromise('cargo', ({ user }) => index.configChanged(user));
    // A version deleted through /api/v1/packages leaves the git index as it left the sparse one.
    ctx.hooks.package.deleted.tapPromise('cargo', async (e) => {
      if (e.type !== TYPE || !index.store.exists(e.ownerId)) return;
      const owner = await ctx.users.byId(e.ownerId);
      if (owner) await index.crateChanged(owner, e.name, `Delete ${e.name} ${e.version}`);
    });

    ctx.commands.add({
      name: 'rebuild-index',
      usage: '<owner>',
      description: "recreate an owner's cargo git index repository (/{owner}/_cargo-index.git) from the database",
      async run(args, out) {
        if (args.length !== 1) throw ApiError.badRequest('usage: hearth plugins run cargo rebuild-index <owner>');
        const owner = await ctx.users.byName(args[0]);
        if (!owner) throw ApiError.notFound(`user does not exist [name: ${args[0]}]`);
        const { head, files } = await index.rebuild(owner);
        out(
          `rebuilt the cargo index of ${owner.name}: ${files - 1} crate file(s) and config.json in ` +
            `${index.store.dirOf(owner.id)} (commit ${head})`,
        );
        return 0;
      },
    });
  },
});
