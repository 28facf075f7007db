/** One byte range, both ends inclusive. (API 2.3) @public */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * A `Range` header against a body of `size` bytes: a single `bytes=a-b`, `bytes=a-` or
 * `bytes=-n`. Returns null when the header is absent or is to be ignored (another unit, several
 * ranges, bad syntax — RFC 9110 lets a server answer those with the whole body) and
 * 'unsatisfiable' for a well-formed range that selects nothing (416). (API 2.3)
 * @public
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  const unit = /^\s*bytes\s*=(.*)$/i.exec(header);
  if (!unit) return null;
  const specs = unit[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (specs.length !== 1) return null;
  const spec = /^(\d*)\s*-\s*(\d*)$/.exec(specs[0]);
  if (!spec || (spec[1] === '' && spec[2] === '')) return null;
  if (spec[1] === '') {
    const suffix = Number(spec[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(spec[1]);
  const last = spec[2] === '' ? Infinity : Number(spec[2]);
  if (last < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(last, size - 1) };
}
