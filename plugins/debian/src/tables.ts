import type { PluginMigration } from '@hearth/plugin-api';

/** Uploaded files: where each is published (distribution, component) and its ready-made Packages stanza. */
export const FILES = 'debian_package_file';
/** The index files each distribution's current Release lists (content lives in the IndexFileStore). */
export const INDEXES = 'debian_index_file';
/** Each distribution's current Release, InRelease and Release.gpg, switched together. */
export const RELEASES = 'debian_release';

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
      await db.schema.createTable(INDEXES, (t) => {
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
      await db.schema.dropTableIfExists(INDEXES);
      await db.schema.dropTableIfExists(FILES);
    },
  },
];
