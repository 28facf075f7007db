import type { Knex } from 'knex';
import type { PluginMigration } from '@hearth/plugin-api';

/**
 * Issue text search (`q=` on the issue lists and `/repos/issues/search`) through the database's own
 * full-text index, which the database keeps in sync on every write of an issue's title or body:
 *
 * - SQLite: an FTS5 table over `issue` (external content, so the text is not stored twice) and
 *   three triggers;
 * - PostgreSQL: a GIN index over `to_tsvector('simple', title || ' ' || body)`;
 * - MariaDB/MySQL: a FULLTEXT index over (title, body), built without the stopword list.
 *
 * Matching is word-prefix on the three: every word of the query (letters, digits and `_`) must
 * begin a word of the title or the body, case-insensitively (`cras` finds "Crash", `task 1` finds
 * "Task 1" and "Task 12" but not "Task 21"). MariaDB's index keeps `snake_case` as one word, so
 * `case` finds it on SQLite and PostgreSQL only, and it leaves out words shorter than
 * `innodb_ft_min_token_size` (3): there, shorter query words are matched by a regular expression
 * over the rows the indexed words selected. A query with no word at all (`%%`) is matched as a
 * substring, as before.
 */

/** MariaDB's default `innodb_ft_min_token_size`: shorter words are not in its FULLTEXT index. */
const MARIADB_MIN_TOKEN = 3;
/** The indexed expression on PostgreSQL; a query must use it verbatim for the index to serve it. */
const PG_DOCUMENT = "to_tsvector('simple', coalesce(name, '') || ' ' || coalesce(content, ''))";

type Dialect = 'sqlite' | 'postgres' | 'mysql';

function dialectOf(db: Knex): Dialect {
  const client = String(db.client.config.client);
  if (client === 'pg') return 'postgres';
  if (client === 'mysql2' || client === 'mysql') return 'mysql';
  return 'sqlite';
}

function whereContains(q: Knex.QueryBuilder, text: string, column: (name: string) => string): void {
  const like = `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
  q.where((w) =>
    w.whereRaw(`LOWER(${column('name')}) LIKE ? ESCAPE '!'`, [like]).orWhereRaw(`LOWER(${column('content')}) LIKE ? ESCAPE '!'`, [like]),
  );
}

/**
 * Narrow `q` (a query over the `issue` table, possibly aliased as `alias`) to the issues whose title
 * or body matches `text` as described above.
 */
export function whereIssueText(db: Knex, q: Knex.QueryBuilder, text: string, alias = 'issue'): void {
  const column = (name: string) => `${alias}.${name}`;
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]*[\p{L}\p{N}][\p{L}\p{N}_]*/gu) ?? [])];
  if (words.length === 0) {
    whereContains(q, text, column);
    return;
  }
  // Words are letters, digits and `_` only: safe inside each engine's query syntax as written.
  switch (dialectOf(db)) {
    case 'sqlite':
      q.whereRaw(`${column('id')} IN (SELECT rowid FROM issue_fts WHERE issue_fts MATCH ?)`, [words.map((w) => `"${w}"*`).join(' AND ')]);
      return;
    case 'postgres':
      q.whereRaw(`${PG_DOCUMENT.replace(/\b(name|content)\b/g, (c) => column(c))} @@ to_tsquery('simple', ?)`, [
        words.map((w) => `${w}:*`).join(' & '),
      ]);
      return;
    case 'mysql': {
      const indexed = words.filter((w) => [...w].length >= MARIADB_MIN_TOKEN);
      for (const word of words.filter((w) => !indexed.includes(w))) {
        const startsWord = `(^|[^\\p{L}\\p{N}_])${word}`;
        q.where((w) =>
          w.whereRaw(`LOWER(${column('name')}) REGEXP ?`, [startsWord]).orWhereRaw(`LOWER(${column('content')}) REGEXP ?`, [startsWord]),
        );
      }
      if (indexed.length) {
        q.whereRaw(`MATCH (${column('name')}, ${column('content')}) AGAINST (? IN BOOLEAN MODE)`, [indexed.map((w) => `+${w}*`).join(' ')]);
      }
      return;
    }
  }
}

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER issue_fts_insert AFTER INSERT ON issue BEGIN
     INSERT INTO issue_fts (rowid, name, content) VALUES (new.id, new.name, new.content);
   END`,
  `CREATE TRIGGER issue_fts_delete AFTER DELETE ON issue BEGIN
     INSERT INTO issue_fts (issue_fts, rowid, name, content) VALUES ('delete', old.id, old.name, old.content);
   END`,
  `CREATE TRIGGER issue_fts_update AFTER UPDATE OF name, content ON issue BEGIN
     INSERT INTO issue_fts (issue_fts, rowid, name, content) VALUES ('delete', old.id, old.name, old.content);
     INSERT INTO issue_fts (rowid, name, content) VALUES (new.id, new.name, new.content);
   END`,
];

/**
 * `0013_issue_text_index`: the full-text index of each database, filled from the existing issues.
 * On SQLite the triggers belong to the `issue` table: a later migration that rebuilds that table
 * (knex does so for some column changes on SQLite) must create them again.
 */
export const issueTextSearchMigrations: PluginMigration[] = [
  {
    name: '0013_issue_text_index',
    async up(db: Knex) {
      switch (dialectOf(db)) {
        case 'sqlite':
          await db.raw(
            "CREATE VIRTUAL TABLE issue_fts USING fts5(name, content, content='issue', content_rowid='id', " +
              "tokenize='unicode61 remove_diacritics 0')",
          );
          for (const trigger of SQLITE_TRIGGERS) await db.raw(trigger);
          await db.raw("INSERT INTO issue_fts (issue_fts) VALUES ('rebuild')");
          return;
        case 'postgres':
          await db.raw(`CREATE INDEX issue_text_search ON issue USING GIN (${PG_DOCUMENT})`);
          return;
        case 'mysql':
          // Without the stopword list, "the" or "will" in a query match like any other word.
          await db.raw('SET SESSION innodb_ft_enable_stopword = 0');
          try {
            await db.raw('ALTER TABLE issue ADD FULLTEXT INDEX issue_text_search (name, content)');
          } finally {
            await db.raw('SET SESSION innodb_ft_enable_stopword = 1');
          }
          return;
      }
    },
    async down(db: Knex) {
      switch (dialectOf(db)) {
        case 'sqlite':
          for (const name of ['issue_fts_insert', 'issue_fts_delete', 'issue_fts_update']) await db.raw(`DROP TRIGGER IF EXISTS ${name}`);
          await db.raw('DROP TABLE IF EXISTS issue_fts');
          return;
        case 'postgres':
          await db.raw('DROP INDEX IF EXISTS issue_text_search');
          return;
        case 'mysql':
          await db.raw('ALTER TABLE issue DROP INDEX issue_text_search');
          return;
      }
    },
  },
];
