declare module 'unbzip2-stream' {
  import type { Transform } from 'node:stream';
  /** A transform stream that decompresses bzip2 data. */
  function bz2(): Transform;
  export = bz2;
}
