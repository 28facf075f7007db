declare module 'unbzip2-stream' {
  import type { Transform } from 'node:stream';
  /** A transform stream that decompresses bzip2 data. */
  function bz2(): Transform;
  export = bz2;
}

declare module 'compressjs' {
  /** bzip2 (pure JavaScript): the whole input in, the .bz2 bytes out. */
  export const Bzip2: { compressFile(input: Uint8Array): Uint8Array | number[] };
}
