import type { PluginMigration } from '@hearth/plugin-api';

/** The manifests of each release (version-specific ones too), kept out of the version's metadata: they can be large. */
export const MANIFESTS = 'swift_manifest';
/** `repositoryURLs` of each release's metadata, for `GET /identifiers?url=`. */
export const REPOSITORY_URLS = 'swift_repository_url';

export const migrations: PluginMigration[] = [
  {
    name: '001_swift_tables',
    async up(db) {
      await db.schema.createTable(MANIFESTS, (t) => {
        t.increments('id');
        t.integer('version_id').notNullable().index();
        t.string('filename', 64).notNullable();
        t.string('swift_version', 32);
        t.string('tools_version', 32);
        t.text('content', 'mediumtext').notNullable();
        t.unique(['version_id', 'filename']);
      });
      await db.schema.createTable(REPOSITORY_URLS, (t) => {
        t.increments('id');
        t.integer('owner_id').notNullable();
        t.integer('version_id').notNullable().index();
        t.string('package_id', 160).notNullable();
        t.string('url_hash', 64).notNullable();
        t.text('url').notNullable();
        t.index(['owner_id', 'url_hash']);
      });
    },
    async down(db) {
      await db.schema.dropTableIfExists(REPOSITORY_URLS);
      await db.schema.dropTableIfExists(MANIFESTS);
    },
  },
];
