// Where in the user's Python program each call of an imported PyTorch trace was made. Two sources,
// both described in docs/import.md: the Kineto `python_function` events of a trace recorded with
// with_stack (each names the line where a frame was entered, so the site is only a function), and
// the call-site markers of `syncscope profile` (the call's own line).
import { isFrameLine, isSourceLine, MAX_SOURCE_LINE, type CallSite, type SourceFrame } from '../trace/model';

/** The launcher that `syncscope profile` runs scripts under: its frames are never the user's. */
const LAUNCHER = 'syncscope_profile.py';
/** At most this many frames of a stack are kept, innermost first: it bounds the work per site. */
export const MAX_STACK = 32;
/** The record_function name prefix of a call-site marker, followed by compact JSON. */
export const SITE_MARKER = 'syncscope.site:';

/**
 * Top-level modules and packages of Python's standard library. Kineto writes a file relative to
 * the sys.path entry it is under (`pkgutil.py`, `ctypes/__init__.py`), so a relative path is
 * recognized by its first component. Names that scripts are often given (code, profile, test,
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
    'zipfile zipimport zoneinfo'
  ).split(' '),
);

/**
 * The user-frame rule: a frame is the user's unless its file is under site-packages or
 * dist-packages, inside torch's own package, in Python's standard library, a `<frozen ...>` or
 * `<string>` pseudo-file, or the launcher.
 */
export function isUserFile(file: string): boolean {
  const f = file.replace(/\\/g, '/');
  if (f === '' || f.startsWith('<')) return false;
  if (/(^|\/)(site|dist)-packages\//.test(f)) return false;
  if (/(^|\/)lib\/python\d+(\.\d+)?t?\//.test(f)) return false;
  const base = f.slice(f.lastIndexOf('/') + 1);
  if (base === LAUNCHER) return false;
  if (f.startsWith('/') || /^[A-Za-z]:\//.test(f)) return true;
  // Relative: Kineto stripped the sys.path entry, so the first component names the package.
  const first = f.split('/')[0].replace(/\.py$/, '');
  return first !== 'torch' && !STDLIB.has(first);
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

/**
 * A call-site marker's stack, or a reason it is not one. Its JSON is percent-encoded, because
 * Kineto writes event names into its trace without escaping quotes or backslashes.
 */
export function parseMarker(name: string): SourceFrame[] | string {
  let v: unknown;
  try {
    v = JSON.parse(decodeURIComponent(name.slice(SITE_MARKER.length)));
  } catch {
    return 'not percent-encoded JSON';
  }
  const stack = (v as { stack?: unknown } | null)?.stack;
  if (!Array.isArray(stack) || stack.length === 0) return 'no "stack" list';
  const frames: SourceFrame[] = [];
  for (const f of stack.slice(0, MAX_STACK)) {
    if (!Array.isArray(f) || typeof f[0] !== 'string' || typeof f[2] !== 'string')
      return 'a frame is not ["file", line, "function"]';
    // JSON numbers past 2^53 arrive rounded, so only the bound tells 2^53 + 1 from a line.
    if (!isSourceLine(f[1]))
      return `a frame's line ${typeof f[1] === 'number' ? `is ${f[1]}` : 'is not a number'}; expected an integer from 1 to ${MAX_SOURCE_LINE}`;
    frames.push({ file: f[0], line: f[1], function: f[2] });
  }
  return frames;
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

  constructor(
    readonly sites: CallSite[],
    private readonly nameOf: (id: number) => string,
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
      s = this.add(stack, 'function');
      this.siteOfNode[node] = s;
    }
    return s;
  }

  /** A site from a whole stack, innermost first; -1 when no frame of it is the user's. */
  add(stack: SourceFrame[], precision: CallSite['precision']): number {
    const frame = stack.find((f) => isUserFile(f.file));
    if (!frame) return -1;
    const key = precision + '\n' + stack.map((f) => `${f.file}\n${f.line}\n${f.function}`).join('\n');
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.sites.length;
      this.sites.push({ frame, precision, stack });
      this.byKey.set(key, i);
    }
    return i;
  }

  private frameOf(name: number): SourceFrame | undefined {
    if (!this.parsed.has(name)) this.parsed.set(name, parseFrame(this.nameOf(name)));
    return this.parsed.get(name);
  }
}
