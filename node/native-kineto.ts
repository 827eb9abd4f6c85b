// The native Kineto reader (native/json/, build/Release/syncscope_json.node): a PyTorch trace read
// from disk in blocks by simdjson, its rows handed over as typed arrays over native memory, with no
// JavaScript string of the text. Loaded on first use, apart from the GPU runtime's addon. Where it
// is not built or cannot load, traces are read by the JavaScript reader, and that is said once.
// Where it declines a file (anything the JavaScript reader would word an error for, or would read
// in a way the native one does not copy), the JavaScript reader reads it: one set of rules and
// messages, two speeds. docs/import.md describes the split.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { builtFile } from './built-file';
import { KINETO_VOCABULARY, stagedFromColumns, type KinetoColumns } from '../core/import/pytorch-columns';
import type { Staged } from '../core/import/pytorch';
import type { ArrangeInput, ArrangeOut, Arranged } from '../core/import/pytorch-arranged';
import { useGraphKernel, type GraphKernel } from '../core/analyze/graph-kernel';

/** The staged columns, and the staged names kept in native memory for arrange(). */
type NativeStaged = KinetoColumns & { names: unknown };
type NativeAnswer = { staged: NativeStaged } | { declined: string } | { cancelled: true };

interface KinetoAddon extends GraphKernel {
  readKineto(
    source: string | Uint8Array,
    options: typeof KINETO_VOCABULARY & {
      gzip: boolean;
      limit: number;
      /** [0]: set to stop the read at its next block. */
      stop: Float64Array;
      /** The bytes taken from the source so far, after each block; every call comes before the answer. */
      progress?: (bytes: number) => void;
    },
  ): Promise<NativeAnswer>;
  arrange(names: unknown, host: Staged['host'], gpu: Staged['gpu'], input: ArrangeInput, out: ArrangeOut): Arranged;
}

/** $SYNCSCOPE_JSON_ADDON, else build/Release/syncscope_json.node where the build put it. */
export const kinetoAddonPath = (): string => builtFile('syncscope_json.node', process.env.SYNCSCOPE_JSON_ADDON);

let loaded: { addon?: KinetoAddon; reason?: string } | undefined;

/** The addon, or why there is none. */
export function kinetoAddon(): { addon?: KinetoAddon; reason?: string } {
  if (loaded) return loaded;
  const path = kinetoAddonPath();
  if (!existsSync(path)) return (loaded = { reason: `the native trace reader is not built (${path} is missing)` });
  try {
    return (loaded = { addon: createRequire(__filename)(path) as KinetoAddon });
  } catch (e) {
    return (loaded = { reason: `the native trace reader failed to load (${(e as Error).message.split('\n')[0]})` });
  }
}

/**
 * The happens-before graph's native half (core/analyze/graph-kernel.ts), from the same addon, for
 * every analysis in this process or thread; whether it loaded. Without it the analysis builds the
 * graph in TypeScript, with the same results.
 */
export function useNativeGraph(): boolean {
  const { addon } = kinetoAddon();
  useGraphKernel(addon);
  return addon !== undefined;
}

let notice: ((text: string) => void) | undefined = (text) => void process.stderr.write(text + '\n');

/** Where the one notice that traces are read the slow way goes (stderr unless set). */
export function onSlowReaderNotice(write: (text: string) => void): void {
  notice = write;
}

function sayOnce(reason: string): void {
  notice?.(`syncscope: ${reason}; PyTorch traces are read by the JavaScript reader, which is slower`);
  notice = undefined;
}

export interface NativeReadOptions {
  gzip: boolean;
  /** The most text a gzipped source may expand to. */
  limit: number;
  /** Bytes taken from the source so far, after each block read. */
  onProgress?: (bytes: number) => void;
  signal?: AbortSignal;
}

/**
 * A PyTorch trace's Staged rows read natively from a file or from bytes, or undefined when the
 * JavaScript reader must read it (no addon, or the native reader declined the file).
 */
export async function readKinetoNatively(
  source: string | Uint8Array,
  opts: NativeReadOptions,
): Promise<Staged | undefined> {
  const { addon, reason } = kinetoAddon();
  if (!addon) {
    sayOnce(reason as string);
    return undefined;
  }
  const { signal, onProgress } = opts;
  signal?.throwIfAborted();
  const stop = new Float64Array(1);
  const stopRead = () => (stop[0] = 1);
  signal?.addEventListener('abort', stopRead);
  // A progress callback that throws stops the read, and the import fails with its error, as it does
  // when the JavaScript reader calls it.
  let thrown: { error: unknown } | undefined;
  const progress = (bytes: number) => {
    if (signal?.aborted || thrown) return;
    try {
      onProgress?.(bytes);
    } catch (error) {
      thrown = { error };
      stop[0] = 1;
    }
  };
  try {
    // A fault of the reader itself (memory it could not have) leaves the file to the JavaScript reader too.
    const answer: NativeAnswer = await addon
      .readKineto(source, {
        ...KINETO_VOCABULARY,
        gzip: opts.gzip,
        limit: opts.limit,
        stop,
        // Nothing is reported once the read is aborted, as the JavaScript reader reads no chunk after it.
        progress: onProgress && progress,
      })
      .catch((e: Error) => ({ declined: e.message }));
    signal?.throwIfAborted();
    if (thrown) throw thrown.error;
    if (!('staged' in answer)) return undefined;
    const staged = stagedFromColumns(answer.staged);
    const names = answer.staged.names;
    if (staged) staged.arrange = (input, out) => addon.arrange(names, staged.host, staged.gpu, input, out);
    return staged;
  } finally {
    signal?.removeEventListener('abort', stopRead);
  }
}

/** Why the native reader declined a source, or undefined when it read it: for tests and benchmarks. */
export async function nativeVerdict(
  source: string | Uint8Array,
  gzip: boolean,
  limit: number,
): Promise<string | undefined> {
  const { addon, reason } = kinetoAddon();
  if (!addon) return reason;
  const answer = await addon.readKineto(source, { ...KINETO_VOCABULARY, gzip, limit, stop: new Float64Array(1) });
  if ('declined' in answer) return answer.declined;
  return stagedFromColumns((answer as { staged: NativeStaged }).staged) ? undefined : 'the text around the events';
}
