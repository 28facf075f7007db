/**
 * A case-insensitive "contains" condition that treats the keyword literally on all three
 * databases: `%`, `_` and the escape character are escaped, and the escape character is named
 * explicitly because SQLite has no default one.
 */
export function containsCondition(column: string, keyword: string): [string, string[]] {
  const pattern = `%${keyword.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
  return [`lower(${column}) like ? escape '!'`, [pattern]];
}
