import type { PluginMigration } from '@hearth/plugin-api';

/** Uploaded files: where each is published (distribution, component) and its ready-made Packages stanza. */
export const FILES = 'debian_package_file';
/** Version 1's list of each Release's index files: replaced by `debian_release.index_files` in migration 002. */
const LEGACY_INDEXES = 'debian_index_file';
/**
 * Each distribution's current Release, InRelease, Release.gpg and the index files it lists (JSON),
 * switched together in one row, with the generation of the distribution it was built from.
 */
export const RELEASES = 'debian_release';
/** Each distribution's generation: raised by every publish and delete; a Release built from an older one is stale. */
export const DISTRIBUTIONS = 'debian_distribution';

export const migrations: PluginMigration[] = [
  {
    name: '001_debian_tables',
    async up(db) {
      await db.schema.createTable(FILES, (t) => {
        t.increments('id');
        t.integer('owner_id').notNullable();
        t.string('distribution', 64).notNullable();
        t.string('component', 64).notNullable();
        t.string('architecture', 32).notNullable();
        t.string('name', 128).notNullable();
        t.string('version', 128).notNullable();
        t.string('pool_name', 255).notNullable();
        t.integer('package_version_id').notNullable();
        t.integer('package_file_id').notNullable();
        t.text('stanza', 'mediumtext').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.unique(['owner_id', 'distribution', 'component', 'pool_name'], { indexName: 'debian_package_file_pool' });
        t.index(['owner_id', 'distribution', 'component', 'architecture'], 'debian_package_file_index');
        t.index(['owner_id', 'name', 'version'], 'debian_package_file_version');
      });
      await db.schema.createTable(LEGACY_INDEXES, (t) => {
        t.increments('id');
        t.integer('owner_id').notNullable();
        t.string('distribution', 64).notNullable();
        t.string('path', 255).notNullable();
        t.bigInteger('size').notNullable();
        t.string('md5', 32).notNullable();
        t.string('sha256', 64).notNullable();
        t.unique(['owner_id', 'distribution', 'path'], { indexName: 'debian_index_file_path' });
      });
      await db.schema.createTable(RELEASES, (t) => {
        t.increments('id');
        t.integer('owner_id').notNullable();
        t.string('distribution', 64).notNullable();
        t.text('release', 'mediumtext').notNullable();
        t.text('in_release', 'mediumtext').notNullable();
        t.text('release_gpg').notNullable();
        t.bigInteger('updated_unix').notNullable();
        t.unique(['owner_id', 'distribution'], { indexName: 'debian_release_distribution' });
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists(RELEASES);
      await db.schema.dropTableIfExists(LEGACY_INDEXES);
      await db.schema.dropTableIfExists(FILES);
    },
  },
  {
    // Publishing only records the file and raises the distribution's generation; indexes are built
    // on the first read after a change (see DebianRepository), so a publish costs the same whatever the index size.
    name: '002_debian_lazy_indexes',
    async up(db) {
      await db.schema.createTable(DISTRIBUTIONS, (t) => {
        t.increments('id');
        t.integer('owner_id').notNullable();
        t.string('distribution', 64).notNullable();
        t.bigInteger('generation').notNullable();
        t.unique(['owner_id', 'distribution'], { indexName: 'debian_distribution_name' });
      });
      const existing: Array<{ owner_id: number; distribution: string }> = await db(FILES).distinct('owner_id', 'distribution');
      const rows = existing.map((e) => ({ owner_id: e.owner_id, distribution: e.distribution, generation: 1 }));
      if (rows.length) await db.batchInsert(DISTRIBUTIONS, rows, 200);
      // Existing Releases get generation 0: each is rebuilt (with its index file list) on its first read.
      await db.schema.alterTable(RELEASES, (t) => {
        t.bigInteger('generation').notNullable().defaultTo(0);
        t.text('index_files', 'mediumtext');
      });
      await db.schema.dropTableIfExists(LEGACY_INDEXES);
    },
    async down(db) {
      await db.schema.createTable(LEGACY_INDEXES, (t) => {
        t.increments('id');
        t.integer('owner_id').notNullable();
        t.string('distribution', 64).notNullable();
        t.string('path', 255).notNullable();
        t.bigInteger('size').notNullable();
        t.string('md5', 32).notNullable();
        t.string('sha256', 64).notNullable();
        t.unique(['owner_id', 'distribution', 'path'], { indexName: 'debian_index_file_path' });
      });
      // Version 1 rebuilds only what a change touches and expects index rows for the rest: start it from no Release.
      await db(RELEASES).delete();
      await db.schema.alterTable(RELEASES, (t) => {
        t.dropColumn('generation');
        t.dropColumn('index_files');
      });
      await db.schema.dropTableIfExists(DISTRIBUTIONS);
    },
  },
  {
    // Packages.xz: every stored Release is rebuilt on its first read (and then lists Packages.xz);
    // generation -1 is older than any distribution's, and the rebuild's conditional update accepts it.
    name: '003_debian_packages_xz',
    async up(db) {
      await db(RELEASES).update({ generation: -1 });
    },
    async down(db) {
      // The previous version serves no Packages.xz by name: rebuild without it.
      await db(RELEASES).update({ generation: -1 });
    },
  },
];
