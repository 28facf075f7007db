import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Tables of the package registry framework (names start with 0007_), after Gitea's generic model:
 * a package per (owner, type, name), its versions, their files, and content-addressed blobs that
 * files reference (deduplicated; a blob goes with its last file).
 */
export const packageMigrations: PluginMigration[] = [
  {
    name: '0007_packages',
    async up(db: Knex) {
      await db.schema.createTable('package_blob', (t) => {
        t.increments('id').primary();
        t.bigInteger('size').notNullable().defaultTo(0);
        t.string('hash_md5', 32).notNullable();
        t.string('hash_sha1', 40).notNullable();
        t.string('hash_sha256', 64).notNullable().unique();
        t.string('hash_sha512', 128).notNullable();
        t.bigInteger('created_unix').notNullable();
      });
      await db.schema.createTable('package', (t) => {
        t.increments('id').primary();
        t.integer('owner_id').notNullable().index();
        t.string('type', 64).notNullable();
        t.string('name', 255).notNullable();
        t.string('lower_name', 255).notNullable();
        t.boolean('semver_compatible').notNullable().defaultTo(false);
        t.boolean('is_internal').notNullable().defaultTo(false);
        t.integer('repo_id').notNullable().defaultTo(0);
        t.bigInteger('created_unix').notNullable();
        t.unique(['owner_id', 'type', 'lower_name']);
      });
      await db.schema.createTable('package_version', (t) => {
        t.increments('id').primary();
        t.integer('package_id').notNullable();
        t.integer('creator_id').notNullable().defaultTo(0);
        t.string('version', 255).notNullable();
        t.string('lower_version', 255).notNullable();
        t.bigInteger('created_unix').notNullable().index();
        t.text('metadata_json');
        t.bigInteger('download_count').notNullable().defaultTo(0);
        t.unique(['package_id', 'lower_version']);
      });
      await db.schema.createTable('package_file', (t) => {
        t.increments('id').primary();
        t.integer('version_id').notNullable();
        t.integer('blob_id').notNullable().index();
        t.string('name', 255).notNullable();
        t.string('lower_name', 255).notNullable();
        t.string('composite_key', 255).notNullable().defaultTo('');
        t.boolean('is_lead').notNullable().defaultTo(false);
        t.bigInteger('created_unix').notNullable();
        t.unique(['version_id', 'lower_name', 'composite_key']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('package_file');
      await db.schema.dropTable('package_version');
      await db.schema.dropTable('package');
      await db.schema.dropTable('package_blob');
    },
  },
  {
    // Per-owner signing keys of the formats that sign their indexes (signing-keys.ts); the private key is sealed.
    name: '0007_package_signing_keys',
    async up(db: Knex) {
      await db.schema.createTable('package_signing_keys', (t) => {
        t.increments('id').primary();
        t.integer('owner_id').notNullable();
        t.string('format', 64).notNullable();
        t.string('algorithm', 32).notNullable();
        t.text('public_key').notNullable();
        t.text('private_key_sealed').notNullable();
        t.bigInteger('created_unix').notNullable();
        t.unique(['owner_id', 'format', 'algorithm']);
      });
    },
    async down(db: Knex) {
      await db.schema.dropTable('package_signing_keys');
    },
  },
];
