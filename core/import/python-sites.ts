// Where in the user's Python program each call of an imported PyTorch trace was made. Two sources,
// both described in docs/import.md: the Kineto `python_function` events of a trace recorded with
// with_stack (each names the line where a frame was entered, so the site is only a function), and
// the call-site markers of `syncscope profile` (the call's own line).
import {
  isFrameLine,
  isSourceLine,
  MAX_SOURCE_LINE,
  PLAIN_STEP_TIMES,
  type CallSite,
  type PlainStep,
  type SourceFrame,
} from '../trace/model';

/** The launcher that `syncscope profile` runs scripts under: its frames are never the user's. */
const LAUNCHER = 'syncscope_profile.py';
/** At most this many frames of a stack are kept, innermost first: it bounds the work per site. */
export const MAX_STACK = 32;
/** The record_function name prefix of a call-site marker, followed by compact JSON. */
export const SITE_MARKER = 'syncscope.site:';
/**
 * The prefix of a marker emitted just after a synchronizing call, where the launcher learned its
 * line from torch's sync-debug warning (which reaches Python once the op has returned): the first
 * wait at a line that no marker could precede.
 */
export const SITE_AFTER_MARKER = 'syncscope.after:';

/** Whether a record_function name is a call-site marker, and which: before its call, or after it. */
export const markerKind = (name: string): 'before' | 'after' | undefined =>
  name.startsWith(SITE_MARKER) ? 'before' : name.startsWith(SITE_AFTER_MARKER) ? 'after' : undefined;

/**
 * Top-level modules and packages of Python's standard library, and a few that torch depends on.
 * Kineto writes a file relative to the sys.path entry it is under (`pkgutil.py`,
 * `ctypes/__init__.py`), so a relative path is recognized by its first component. Names that scripts are often given (code, profile, test,
 * trace, token) are left out: taking a user's script for the library would hide its frames.
 */
const STDLIB = new Set(
  (
    'abc argparse ast asyncio base64 bdb bisect calendar cmd codecs codeop collections concurrent configparser ' +
    'contextlib contextvars copy copyreg csv ctypes dataclasses datetime decimal difflib dis doctest email encodings ' +
    'enum filecmp fileinput fnmatch fractions functools genericpath getopt gettext glob graphlib gzip hashlib heapq ' +
    'hmac html http importlib inspect io ipaddress json keyword linecache locale logging lzma mimetypes ' +
    'multiprocessing numbers opcode operator optparse os ntpath pathlib pdb pickle pkgutil platform posixpath pprint ' +
    'queue random re reprlib runpy sched secrets selectors shelve shlex shutil signal site socket socketserver ' +
    'sre_compile sre_constants sre_parse ssl stat statistics string struct subprocess sysconfig tarfile tempfile ' +
    'textwrap threading timeit tokenize traceback tracemalloc types typing unittest urllib uuid warnings weakref ' +
    'zipfile zipimport zoneinfo ' +
    // Private modules of the standard library, and packages torch itself depends on.
    '_collections_abc _compat_pickle _weakrefset _threading_local _strptime _sitebuiltins ' +
    'typing_extensions sympy filelock fsspec jinja2 networkx triton numpy'
  ).split(' '),
);

/**
 * Paths the user adds to their own code or takes out of it (`--user-code`, the
 * `syncscope.userCode` setting): a file under one of them is the user's, or not, whatever the
 * rule below says. The longest path that holds the file decides; on a tie, taking out wins.
 */
export interface UserCode {
  add: readonly string[];
  remove: readonly string[];
}

/**
 * `+/srv/app/vendored_lib,-/srv/app/third_party`: paths to add (`+`, or no sign) and to take out
 * (`-`), separated by commas; the reason it is not one, as a string.
 */
export function parseUserCode(text: string): UserCode | string {
  return userCodeOf(text.split(','));
}

/** The same from a list, one path to an entry (the `syncscope.userCode` setting): a path may hold a comma. */
export function userCodeOf(entries: readonly string[]): UserCode | string {
  const add: string[] = [];
  const remove: string[] = [];
  for (const part of entries) {
    const path = part.trim().replace(/^[+-]/, '').trim();
    if (!path) return `"${part}" names no path; expected paths, each with + to add it or - to take it out`;
    (part.trim().startsWith('-') ? remove : add).push(path);
  }
  return { add, remove };
}

/** The length of the longest of `paths` that holds `file` (the path itself, or a folder above it); -1 for none. */
function longestHolding(file: string, paths: readonly string[]): number {
  let best = -1;
  for (const raw of paths) {
    const p = raw.replace(/\\/g, '/').replace(/\/+$/, '');
    if ((file === p || file.startsWith(p + '/')) && p.length > best) best = p.length;
  }
  return best;
}

/** Whether `file` is torch's own module `module` (`profiler/profiler.py`), under any install path. */
export function isTorchModule(file: string, module: string): boolean {
  const f = file.replace(/\\/g, '/');
  return f === `torch/${module}` || f.endsWith(`/torch/${module}`);
}

/**
 * The user-frame rule: a frame is the user's unless its file is under site-packages or
 * dist-packages, in torch.compile's generated code (a torchinductor_* cache folder), inside torch's own package, in Python's standard library, a `<frozen ...>` or
 * `<string>` pseudo-file, or the launcher; paths the user added or took out come first.
 */
export function isUserFile(file: string, userCode?: UserCode): boolean {
  const f = file.replace(/\\/g, '/');
  if (userCode) {
    const add = longestHolding(f, userCode.add);
    const remove = longestHolding(f, userCode.remove);
    if (add >= 0 || remove >= 0) return add > remove;
  }
  if (f === '' || f.startsWith('<')) return false;
  if (/(^|\/)(site|dist)-packages\//.test(f)) return false;
  // torch.compile's generated code, in Inductor's cache (/tmp/torchinductor_<user>/ by default).
  if (/(^|\/)torchinductor_[^/]*\//.test(f)) return false;
  if (/(^|\/)lib\/python\d+(\.\d+)?t?\//.test(f)) return false;
  const base = f.slice(f.lastIndexOf('/') + 1);
  if (base === LAUNCHER) return false;
  if (f.startsWith('/') || /^[A-Za-z]:\//.test(f)) return true;
  // Relative: Kineto stripped the sys.path entry, so the first component names the package.
  const first = f.split('/')[0].replace(/\.py$/, '');
  return first !== 'torch' && !STDLIB.has(first);
}

/**
 * A frame of torch.profiler's schedule and control (torch/profiler/profiler.py: step, stop and the
 * transitions between them): a synchronize made inside one, as it stops a recording, is the
 * profiler's, whatever user line it ran under. (torch/autograd/profiler.py also holds
 * record_function, which the user's own code runs.)
 */
export const isProfilerFrame = (f: SourceFrame): boolean => isTorchModule(f.file, 'profiler/profiler.py');

/**
 * What a Kineto python_function frame is to the launcher that `syncscope profile` runs scripts under:
 * - `chain`: the frames that run the user's script (the launcher's `<module>`, `main` and
 *   `run_script`, and the `runpy` frames they call), and `exec`, the last of them, which runs the
 *   script itself: hidden, and of what they enclose only the script is the user's program;
 * - `runCode`: runpy's `_run_code`, which sets the script's globals and calls exec: hidden, and
 *   inside it only the exec call and the script's `<module>` count. A recording begun inside the
 *   script (at its first step) sees no exec call, whose frame is C's: the `<module>` (`module`, any
 *   module frame not the launcher's) is then directly inside `_run_code`;
 * - `wrapper`: the wrapper around a synchronizing method: hidden, and what it calls is the user's;
 * - `own`: the launcher's own work (profiler control, call-site marks, learning lines): hidden with
 *   every Python frame inside it;
 * - undefined: not the launcher's. `runpy` and `exec` frames are the chain's only at the top of a
 *   thread, before any Python frame that is shown: `topOfThread` says whether that is where `name` is.
 */
export type LauncherRole = 'chain' | 'exec' | 'runCode' | 'module' | 'wrapper' | 'own';
export function launcherRole(name: string, topOfThread: boolean): LauncherRole | undefined {
  if (topOfThread && name === '<built-in function exec>') return 'exec';
  if (topOfThread && /^(<frozen runpy>|(.*\/)?runpy\.py)\(/.test(name))
    return name.endsWith('): _run_code') ? 'runCode' : 'chain';
  const m = /^(?:.*\/)?([^/]+)\(\d+\): (.*)$/.exec(name);
  if (!m || m[1] !== LAUNCHER) return topOfThread && m?.[2] === '<module>' ? 'module' : undefined;
  if (m[2] === 'wrapper') return 'wrapper';
  return m[2] === '<module>' || m[2] === 'main' || m[2] === 'run_script' ? 'chain' : 'own';
}

/**
 * A Kineto python_function name, `file(line): function`; built-in calls (`<built-in method ...>`)
 * are not frames, nor is a name whose line is past any source line.
 */
export function parseFrame(name: string): SourceFrame | undefined {
  const m = /^(.+)\((\d+)\): (.*)$/.exec(name);
  const line = m ? Number(m[2]) : NaN;
  return m && isFrameLine(line) ? { file: m[1], line, function: m[3] } : undefined;
}

/** Whether a Kineto name is a python_function range's: a frame (parseFrame) or a built-in call. */
export const isPythonCall = (name: string): boolean => name.startsWith('<built-in') || parseFrame(name) !== undefined;

/**
 * A call-site marker's frames, and whether it is a line marker (`"line": 1`), which names every call
 * until the next one; or the plain-speed marker (`"plain": {"stepNs": n, "steps": k}`), which names
 * no call: the launcher's measure of the script's steps without the profiler (TraceMeta.plainStep).
 */
export interface MarkerSite {
  stack: SourceFrame[];
  line: boolean;
  plain?: PlainStep;
}

/**
 * A call-site marker's stack (empty for a line marker where the thread's user code ended), or a reason it is not one. Its JSON is percent-encoded, because
 * Kineto writes event names into its trace without escaping quotes or backslashes.
 */
export function parseMarker(name: string): MarkerSite | string {
  let v: unknown;
  try {
    v = JSON.parse(decodeURIComponent(name.slice(name.indexOf(':') + 1)));
  } catch {
    return 'not percent-encoded JSON';
  }
  const plain = (v as { plain?: unknown } | null)?.plain;
  if (plain !== undefined) return plainOf(plain);
  const stack = (v as { stack?: unknown } | null)?.stack;
  const line = (v as { line?: unknown } | null)?.line === 1;
  // An empty line marker ends its thread's user code: the calls after it are no line's.
  if (!Array.isArray(stack) || (stack.length === 0 && !line)) return 'no "stack" list';
  const frames: SourceFrame[] = [];
  for (const f of stack.slice(0, MAX_STACK)) {
    if (!Array.isArray(f) || typeof f[0] !== 'string' || typeof f[2] !== 'string')
      return 'a frame is not ["file", line, "function"]';
    // JSON numbers past 2^53 arrive rounded, so only the bound tells 2^53 + 1 from a line.
    if (!isSourceLine(f[1]))
      return `a frame's line ${typeof f[1] === 'number' ? `is ${f[1]}` : 'is not a number'}; expected an integer from 1 to ${MAX_SOURCE_LINE}`;
    frames.push({ file: f[0], line: f[1], function: f[2] });
  }
  return { stack: frames, line };
}

function plainOf(v: unknown): MarkerSite | string {
  const plain = plainStepOf(v);
  return typeof plain === 'string' ? plain : { stack: [], line: false, plain };
}

/** The longest --step-on text kept: a function's qualified name, or a file's path and a line. */
const MAX_STEP_ON = 1000;

/** The launcher's `{"stepNs": n, "steps": k, "stepOn"?: what}` with PLAIN_STEP_TIMES' times (TraceMeta.plainStep), or why it is not one. */
export function plainStepOf(v: unknown): PlainStep | string {
  const fields = (v ?? {}) as Record<string, unknown>;
  const { stepNs, steps, stepOn } = fields;
  const badNs = (k: string) =>
    fields[k] !== undefined && (!Number.isSafeInteger(fields[k]) || (fields[k] as number) < 0);
  if (
    !Number.isSafeInteger(stepNs) ||
    (stepNs as number) <= 0 ||
    !Number.isSafeInteger(steps) ||
    (steps as number) < 1 ||
    (stepOn !== undefined && (typeof stepOn !== 'string' || !stepOn || stepOn.length > MAX_STEP_ON)) ||
    PLAIN_STEP_TIMES.some(badNs)
  )
    return `"plain" is not {"stepNs": n, "steps": k} with n and k positive integers, "stepOn" (if any) a name of 1 to ${MAX_STEP_ON} characters, and ${PLAIN_STEP_TIMES.map((k) => `"${k}"`).join(', ')} (each if any) integers of at least 0`;
  const plain: PlainStep = { ns: stepNs as number, steps: steps as number };
  if (stepOn !== undefined) plain.stepOn = stepOn as string;
  for (const k of PLAIN_STEP_TIMES) if (fields[k] !== undefined) plain[k] = fields[k] as number;
  return plain;
}

/**
 * Sites shared by the calls made there. Kineto stacks are kept as a tree of frames (one node per
 * distinct stack prefix), so a call's site costs one lookup, and each node's site is worked out
 * once from at most MAX_STACK frames: linear in the events whatever the depth.
 */
export class SiteTable {
  /** Node 0 is the empty stack. */
  private readonly parent: number[] = [-1];
  private readonly frame: (SourceFrame | undefined)[] = [undefined];
  /** Per node: index into `sites`, -1 for none, undefined before it is worked out. */
  private readonly siteOfNode: (number | undefined)[] = [-1];
  private readonly children = new Map<number, number>();
  private readonly parsed = new Map<number, SourceFrame | undefined>();
  private readonly byKey = new Map<string, number>();
  private readonly deducedByKey = new Map<string, number>();

  constructor(
    readonly sites: CallSite[],
    private readonly nameOf: (id: number) => string,
    private readonly userCode?: UserCode,
  ) {}

  /** The node for `node`'s stack with the python_function named by string id `name` entered inside it. */
  enter(node: number, name: number): number {
    const key = node * 2 ** 26 + name; // unique while names stay below 2^26
    let child = name < 2 ** 26 ? this.children.get(key) : undefined;
    if (child === undefined) {
      child = this.parent.length;
      this.parent.push(node);
      this.frame.push(this.frameOf(name));
      this.siteOfNode.push(undefined);
      if (name < 2 ** 26) this.children.set(key, child);
    }
    return child;
  }

  /** The site of a call made with `node`'s stack: the innermost user frame, precision 'function'; -1 for none. */
  siteAt(node: number): number {
    let s = this.siteOfNode[node];
    if (s === undefined) {
      const stack: SourceFrame[] = [];
      for (let n = node; n > 0 && stack.length < MAX_STACK; n = this.parent[n]) {
        const f = this.frame[n];
        if (f) stack.push(f);
      }
      // The profiler's own calls (the synchronize that stops a recording) are no line of the user's.
      s = stack.some(isProfilerFrame) ? -1 : this.add(stack, 'function');
      this.siteOfNode[node] = s;
    }
    return s;
  }

  /**
   * A site from a whole stack, innermost first; -1 when no frame of it is the user's. `unplaced`:
   * the stack's user frames whose line says nowhere the code ran (capture-sites.ts): the call is
   * placed at the next user frame out, as a call inside a library is.
   */
  add(stack: SourceFrame[], precision: CallSite['precision'], unplaced?: ReadonlySet<number>): number {
    const user = (f: SourceFrame, k: number) => isUserFile(f.file, this.userCode) && !unplaced?.has(k);
    const at = stack.findIndex(user);
    if (at < 0) return -1;
    const key =
      precision +
      (unplaced?.size ? ` ${[...unplaced].join(',')}` : '') +
      '\n' +
      stack.map((f) => `${f.file}\n${f.line}\n${f.function}`).join('\n');
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.sites.length;
      const site: CallSite = { frame: stack[at], precision, stack };
      // A function-level stack names where each frame was entered, not the line that called it.
      const caller = precision === 'line' ? stack.find((f, k) => k > at && user(f, k)) : undefined;
      if (caller) site.caller = caller;
      this.sites.push(site);
      this.byKey.set(key, i);
    }
    return i;
  }

  /** Site `site` as a deduction: the same place, with why a rule put a call there (CallSite.deduced). */
  deduced(site: number, why: string): number {
    const key = `${site}\n${why}`;
    let i = this.deducedByKey.get(key);
    if (i === undefined) {
      i = this.sites.length;
      this.sites.push({ ...this.sites[site], deduced: why });
      this.deducedByKey.set(key, i);
    }
    return i;
  }

  private frameOf(name: number): SourceFrame | undefined {
    if (!this.parsed.has(name)) this.parsed.set(name, parseFrame(this.nameOf(name)));
    return this.parsed.get(name);
  }
}
