import crypto from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { KeyedQueue, nowUnix, type PluginContext, type UserInfo } from '@hearth/plugin-api';
import { IndexFileStore } from './index-files';
import { releaseFile, type IndexFileEntry } from './release-file';
import { DISTRIBUTIONS, FILES, RELEASES } from './tables';
import { XzCompressor } from './xz';

export const TYPE = 'debian';

/** The parts of a distribution's current Release row the routes serve. */
export type ReleasePart = 'release' | 'in_release' | 'release_gpg';

interface StanzaRow {
  component: string;
  architecture: string;
  stanza: string;
}

interface SignedRelease {
  release: string;
  in_release: string;
  release_gpg: string;
}

interface ReleaseState {
  /** The distribution's generation. */
  current: number;
  /** The generation its stored Release was built from (-1: none). */
  built: number;
  /** When the stored Release was built. */
  updated: Date;
  /** The column asked for ('' counts as none). */
  value: string | null;
}

/** A column of the current Release row and when the row was built. */
export interface ReleaseValue {
  value: string;
  updated: Date;
}

/** A distribution without files has a Release row with empty texts: every index of it is a 404. */
const NO_RELEASE: SignedRelease = { release: '', in_release: '', release_gpg: '' };
/** How often (at most) each owner's unused index files are collected: collection reads the whole directory. */
const COLLECT_INTERVAL_MS = 60_000;

const gzip = promisify(zlib.gzip);
const md5 = (b: Buffer) => crypto.createHash('md5').update(b).digest('hex');
const packagesPath = (component: string, architecture: string) => `${component}/binary-${architecture}/Packages`;

/**
 * The indexes of each distribution (Packages, Packages.gz, Packages.xz, Release, InRelease, Release.gpg),
 * built lazily. A publish or delete only raises the distribution's generation (one row, so it
 * costs the same whatever the index size); the first read that finds the stored Release older
 * than the generation rebuilds the distribution's indexes: it writes the Packages files as
 * immutable content-addressed files, then stores Release, InRelease, Release.gpg and the list of
 * index files in one row with the generation it was built from. Every read compares that row's
 * generation with the distribution's, in the database (one indexed read), so every process
 * serving the database sees every change (nothing is cached in memory), and the row switches
 * atomically: a client always gets a Release whose by-hash files exist. Builds are deterministic
 * in content (stanzas in a fixed order, gzip without a time stamp, xz with one liblzma version
 * and preset), so two processes building one generation list the same hashes.
 */
export class DistributionIndexes {
  readonly store: IndexFileStore;
  readonly xz: XzCompressor;
  private readonly builds = new KeyedQueue();
  private readonly collectedAt = new Map<number, number>();

  constructor(
    private readonly ctx: PluginContext,
    dataDir: string,
  ) {
    this.store = new IndexFileStore(dataDir);
    this.xz = new XzCompressor((reason) => ctx.log.warn(`debian: Packages.xz is not served (${reason}); apt uses Packages.gz`));
  }

  private get db() {
    return this.ctx.db;
  }

  /** Record a change of a distribution's files (after it is committed): the next read rebuilds its indexes. */
  async changed(ownerId: number, distribution: string): Promise<void> {
    const where = { owner_id: ownerId, distribution };
    if (await this.db(DISTRIBUTIONS).where(where).increment('generation', 1)) return;
    await this.db(DISTRIBUTIONS)
      .insert({ ...where, generation: 0 })
      .onConflict(['owner_id', 'distribution'])
      .ignore();
    await this.db(DISTRIBUTIONS).where(where).increment('generation', 1);
  }

  /** A part of the distribution's current Release (built now when it is stale), or null when the distribution has no files. */
  async releasePart(owner: UserInfo, distribution: string, part: ReleasePart): Promise<ReleaseValue | null> {
    const state = await this.current(owner, distribution, part);
    return state?.value ? { value: state.value, updated: state.updated } : null;
  }

  /** The current index file at `relativePath` (e.g. `main/binary-amd64/Packages.gz`), or undefined. */
  async indexFile(owner: UserInfo, distribution: string, relativePath: string): Promise<IndexFileEntry | undefined> {
    const list = (await this.current(owner, distribution, 'index_files'))?.value;
    return list ? (JSON.parse(list) as IndexFileEntry[]).find((f) => f.path === relativePath) : undefined;
  }

  /** The distribution's generation, its Release row's and one column of that row (null: no such distribution). */
  private async state(ownerId: number, distribution: string, part: ReleasePart | 'index_files' | null): Promise<ReleaseState | null> {
    const row: Record<string, unknown> | undefined = await this.db(`${DISTRIBUTIONS} as d`)
      .leftJoin(`${RELEASES} as r`, function joinRelease() {
        this.on('r.owner_id', '=', 'd.owner_id').andOn('r.distribution', '=', 'd.distribution');
      })
      .where({ 'd.owner_id': ownerId, 'd.distribution': distribution })
      .first(['d.generation as current', 'r.generation as built', 'r.updated_unix as updated', ...(part ? [`r.${part} as ${part}`] : [])]);
    if (!row) return null;
    const built = row.built === null || row.built === undefined ? -1 : Number(row.built);
    const value = part ? row[part] : null;
    return {
      current: Number(row.current),
      built,
      updated: new Date(Number(row.updated ?? 0) * 1000),
      value: typeof value === 'string' && value !== '' ? value : null,
    };
  }

  private async current(owner: UserInfo, distribution: string, part: ReleasePart | 'index_files') {
    const first = await this.state(owner.id, distribution, part);
    if (!first || first.built >= first.current) return first;
    await this.rebuild(owner, distribution);
    // Built at least up to the generation this request saw (a change made meanwhile waits for the next read).
    return this.state(owner.id, distribution, part);
  }

  /** Rebuild a stale distribution; one build per distribution at a time in this process (others see the stored row). */
  private rebuild(owner: UserInfo, distribution: string): Promise<void> {
    return this.builds.run(`${owner.id}/${distribution}`, async () => {
      // Read the generation before the files: changes committed after this read raise it again.
      const state = await this.state(owner.id, distribution, null);
      if (!state || state.built >= state.current) return;
      const rows: StanzaRow[] = await this.db(FILES)
        .where({ owner_id: owner.id, distribution })
        .orderBy([{ column: 'component' }, { column: 'name' }, { column: 'version' }, { column: 'architecture' }, { column: 'id' }])
        .select('component', 'architecture', 'stanza');
      const { files, components, architectures } = await this.writePackagesFiles(owner.id, rows);
      const release = files.length ? await this.signedRelease(owner, distribution, components, architectures, files) : NO_RELEASE;
      await this.storeRelease(owner.id, distribution, state.current, release, files);
      await this.collectGarbage(owner.id);
    });
  }

  /**
   * Packages, Packages.gz and Packages.xz per component and architecture, written to the store.
   * `all` packages go into every architecture of their component; `all` is an architecture of its
   * own only when the distribution has nothing else. Without liblzma (see XzCompressor) there is no
   * Packages.xz and the Release does not list one.
   */
  private async writePackagesFiles(ownerId: number, rows: StanzaRow[]) {
    const components = [...new Set(rows.map((r) => r.component))].sort();
    const specific = [...new Set(rows.map((r) => r.architecture).filter((a) => a !== 'all'))].sort();
    const architectures = specific.length ? specific : rows.length ? ['all'] : [];
    const files: IndexFileEntry[] = [];
    for (const component of components) {
      const ofComponent = rows.filter((r) => r.component === component);
      for (const architecture of architectures) {
        const stanzas = ofComponent.filter((r) => r.architecture === architecture || r.architecture === 'all').map((r) => r.stanza);
        const plain = Buffer.from(stanzas.join('\n'), 'utf8');
        const [gz, xz] = await Promise.all([
          gzip(plain, { level: 6 }),
          this.xz.compress(plain).catch((err: unknown) => {
            this.ctx.log.warn({ err }, 'debian: xz compression failed: this build lists no Packages.xz');
            return null;
          }),
        ]);
        const variants: Array<[string, Buffer]> = [
          ['', plain],
          ['.gz', gz],
        ];
        if (xz) variants.push(['.xz', xz]);
        for (const [suffix, content] of variants) {
          const sha256 = await this.store.put(ownerId, content);
          files.push({ path: `${packagesPath(component, architecture)}${suffix}`, size: content.length, md5: md5(content), sha256 });
        }
      }
    }
    return { files, components, architectures };
  }

  private async signedRelease(
    owner: UserInfo,
    distribution: string,
    components: string[],
    architectures: string[],
    files: IndexFileEntry[],
  ): Promise<SignedRelease> {
    const release = releaseFile({ owner: owner.name, distribution, components, architectures, files, date: new Date() });
    const key = await this.ctx.packages.signingKeys.openpgp(owner.id, TYPE);
    const [inRelease, releaseGpg] = await Promise.all([key.signCleartext(release), key.signDetached(release, { armor: true })]);
    return { release, in_release: inRelease, release_gpg: String(releaseGpg) };
  }

  /**
   * Store a build of `generation` unless a build of the same or a newer generation is already
   * stored (another process, or a slower build of this one): one conditional statement, so the
   * row only moves forward.
   */
  private async storeRelease(
    ownerId: number,
    distribution: string,
    generation: number,
    release: SignedRelease,
    files: IndexFileEntry[],
  ): Promise<void> {
    const values = { ...release, generation, index_files: JSON.stringify(files), updated_unix: nowUnix() };
    const where = { owner_id: ownerId, distribution };
    const updated = await this.db(RELEASES).where(where).where('generation', '<', generation).update(values);
    if (updated) return;
    await this.db(RELEASES)
      .insert({ ...where, ...values })
      .onConflict(['owner_id', 'distribution'])
      .ignore();
  }

  /** Index files no Release of the owner lists any more go after a grace period (clients may hold the previous Release). */
  private async collectGarbage(ownerId: number): Promise<void> {
    const last = this.collectedAt.get(ownerId) ?? 0;
    if (Date.now() - last < COLLECT_INTERVAL_MS) return;
    this.collectedAt.set(ownerId, Date.now());
    const rows: { index_files: string | null }[] = await this.db(RELEASES).where({ owner_id: ownerId }).select('index_files');
    const inUse = new Set<string>();
    for (const row of rows) for (const f of JSON.parse(row.index_files ?? '[]') as IndexFileEntry[]) inUse.add(f.sha256);
    await this.store.collect(ownerId, inUse).catch((err: unknown) => this.ctx.log.warn({ err }, 'debian: removing old index files failed'));
  }
}
