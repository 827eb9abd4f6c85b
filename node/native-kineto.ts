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

/** The staged columns, and the staged names kept in native memory for arrange(). */
type NativeStaged = KinetoColumns & { names: unknown };
type NativeAnswer = { staged: NativeStaged } | { declined: string } | { cancelled: true };

interface KinetoAddon {
  readKineto(
    source: string | Uint8Array,
    options: typeof KINETO_VOCABULARY & { gzip: boolean; limit: number; control: Float64Array },
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
  /** Bytes taken from the source so far, a few times a second. */
  onProgress?: (bytes: number) => void;
  signal?: AbortSignal;
}

/** How often progress is read from the reader's shared counter. */
const PROGRESS_MS = 100;

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
  opts.signal?.throwIfAborted();
  // [0]: bytes taken, written by the reader; [1]: set to stop it.
  const control = new Float64Array(2);
  const stop = () => (control[1] = 1);
  opts.signal?.addEventListener('abort', stop);
  const timer = opts.onProgress && setInterval(() => opts.onProgress?.(control[0]), PROGRESS_MS);
  try {
    // A fault of the reader itself (memory it could not have) leaves the file to the JavaScript reader too.
    const answer: NativeAnswer = await addon
      .readKineto(source, { ...KINETO_VOCABULARY, gzip: opts.gzip, limit: opts.limit, control })
      .catch((e: Error) => ({ declined: e.message }));
    opts.signal?.throwIfAborted();
    if (!('staged' in answer)) return undefined;
    opts.onProgress?.(control[0]);
    const staged = stagedFromColumns(answer.staged);
    const names = answer.staged.names;
    if (staged) staged.arrange = (input, out) => addon.arrange(names, staged.host, staged.gpu, input, out);
    return staged;
  } finally {
    if (timer) clearInterval(timer);
    opts.signal?.removeEventListener('abort', stop);
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
  const answer = await addon.readKineto(source, { ...KINETO_VOCABULARY, gzip, limit, control: new Float64Array(2) });
  if ('declined' in answer) return answer.declined;
  return stagedFromColumns((answer as { staged: NativeStaged }).staged) ? undefined : 'the text around the events';
}
