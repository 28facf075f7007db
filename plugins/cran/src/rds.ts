import zlib from 'node:zlib';

/**
 * R's serialization (XDR, format version 2) of a character matrix with column names, gzip'd:
 * what `saveRDS(m)` writes for the matrix that `tools::write_PACKAGES` stores as PACKAGES.rds.
 * Only the few SEXP kinds such a matrix needs are written.
 */
const SEXP = { NIL_VALUE: 254, SYM: 1, LIST: 2, CHAR: 9, INT: 13, STR: 16, VEC: 19 } as const;
const HAS_ATTR = 1 << 9;
const HAS_TAG = 1 << 10;
/** CHARSXP encoding flags, in the "levels" bits (gp << 12). */
const ASCII = 64 << 12;
const UTF8 = 8 << 12;
/** R 4.2.2 wrote it; R 2.3.0 can read it (what R itself declares for version 2). */
const WRITER_VERSION = (4 << 16) | (2 << 8) | 2;
const MIN_READER_VERSION = (2 << 16) | (3 << 8) | 0;

class XdrWriter {
  private parts: Buffer[] = [];

  int(value: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32BE(value);
    this.parts.push(b);
    return this;
  }

  charsxp(value: string | null): this {
    if (value === null) return this.int(SEXP.CHAR).int(-1);
    const bytes = Buffer.from(value, 'utf8');
    const flags = /^[\x00-\x7f]*$/.test(value) ? ASCII : UTF8;
    this.int(SEXP.CHAR | flags).int(bytes.length);
    this.parts.push(bytes);
    return this;
  }

  strsxp(values: (string | null)[], attributes = false): this {
    this.int(SEXP.STR | (attributes ? HAS_ATTR : 0)).int(values.length);
    for (const v of values) this.charsxp(v);
    return this;
  }

  symbol(name: string): this {
    return this.int(SEXP.SYM).charsxp(name);
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** `saveRDS` of a character matrix (`null` = NA) with `dimnames = list(NULL, columns)`. */
export function characterMatrixRds(columns: string[], rows: (string | null)[][]): Buffer {
  const w = new XdrWriter();
  const header = Buffer.from('X\n', 'latin1');
  w.int(2).int(WRITER_VERSION).int(MIN_READER_VERSION);
  // Column-major values.
  const values: (string | null)[] = [];
  for (let c = 0; c < columns.length; c++) for (const row of rows) values.push(row[c] ?? null);
  w.strsxp(values, true);
  // Attributes: a pairlist dim = c(nrow, ncol), dimnames = list(NULL, columns).
  w.int(SEXP.LIST | HAS_TAG)
    .symbol('dim')
    .int(SEXP.INT)
    .int(2)
    .int(rows.length)
    .int(columns.length);
  w.int(SEXP.LIST | HAS_TAG)
    .symbol('dimnames')
    .int(SEXP.VEC)
    .int(2)
    .int(SEXP.NIL_VALUE)
    .strsxp(columns);
  w.int(SEXP.NIL_VALUE);
  return zlib.gzipSync(Buffer.concat([header, w.bytes()]));
}
