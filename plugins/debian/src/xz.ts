import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** xz's default preset, as `xz` and Debian's archive use it (8 MiB dictionary, ~94 MiB while compressing). */
export const XZ_PRESET = 6;

/**
 * The worker: loads node-liblzma (liblzma 5.8 through its prebuilt N-API binding; an ES module,
 * which a CommonJS plugin cannot require where require(esm) is unavailable, e.g. under Jest) and
 * answers { id, input } with { id, output } or { id, error }, one compression at a time, so at
 * most one encoder's memory is in use.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then(
  (lzma) => {
    let queue = Promise.resolve();
    parentPort.on('message', ({ id, input }) => {
      queue = queue.then(() =>
        lzma.xzAsync(Buffer.from(input), { preset: workerData.preset, check: lzma.check.CRC64 }).then(
          (out) => {
            const output = new Uint8Array(out);
            parentPort.postMessage({ id, output }, [output.buffer]);
          },
          (err) => parentPort.postMessage({ id, error: String((err && err.message) || err) }),
        ),
      );
    });
    parentPort.postMessage({ ready: lzma.versionString() });
  },
  (err) => parentPort.postMessage({ unavailable: String((err && err.message) || err) }),
);
`;

interface Pending {
  /** The compressed bytes, or null when xz turned out to be unavailable. */
  resolve(output: Buffer | null): void;
  reject(err: Error): void;
}

/**
 * xz compression (the .xz format with a CRC64 check, as `xz -6` writes it) off the event loop, in
 * one worker thread started on first use and not keeping the process alive. Output is
 * deterministic for one liblzma version and preset. When liblzma cannot be loaded on this
 * platform (node-liblzma ships prebuilt binaries for linux-x64, darwin-arm64 and win32-x64),
 * `compress` resolves null from then on and `unavailable` says why.
 */
export class XzCompressor {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Why xz cannot be written here (set once loading liblzma failed). */
  unavailable: string | null = null;

  constructor(private readonly onUnavailable: (reason: string) => void = () => undefined) {}

  /** `input` as an .xz file, or null when xz is unavailable. */
  async compress(input: Buffer): Promise<Buffer | null> {
    if (this.unavailable) return null;
    const worker = this.start();
    if (!worker) return null;
    const id = this.nextId++;
    const copy = new Uint8Array(input);
    const output = new Promise<Buffer | null>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    worker.ref(); // a compression in flight keeps the process up; idle, the worker does not
    worker.postMessage({ id, input: copy }, [copy.buffer]);
    try {
      return await output;
    } finally {
      if (!this.pending.size) worker.unref();
    }
  }

  /** Stop the worker (shutdown, tests). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker | null {
    if (this.worker) return this.worker;
    let module: string;
    try {
      module = pathToFileURL(require.resolve('node-liblzma')).href;
    } catch (err) {
      this.disable(`node-liblzma is not installed (${(err as Error).message})`);
      return null;
    }
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, preset: XZ_PRESET } });
    worker.unref();
    worker.on('message', (message: { id?: number; output?: Uint8Array; error?: string; unavailable?: string }) => {
      if (message.unavailable) return this.disable(`liblzma could not be loaded: ${message.unavailable}`);
      if (message.id === undefined) return;
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (!waiting) return;
      if (message.output) waiting.resolve(Buffer.from(message.output.buffer, message.output.byteOffset, message.output.byteLength));
      else waiting.reject(new Error(`xz compression failed: ${message.error}`));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the xz worker exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private disable(reason: string): void {
    if (this.unavailable) return;
    this.unavailable = reason;
    for (const waiting of this.pending.values()) waiting.resolve(null);
    this.pending.clear();
    void this.close();
    this.onUnavailable(reason);
  }
}
