// Where the capture library and CUPTI are on this machine. The library is built with an RPATH to
// the toolkit it was built against; the program may run where the toolkit sits elsewhere (lib64
// or extras/CUPTI/lib64), so the CUPTI directory found here also goes on LD_LIBRARY_PATH.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the build puts the library, relative to the repository or the installed extension. */
export const CAPTURE_LIBRARY = join('build', 'Release', 'libsyncscope_capture.so');

export type CaptureLibrary = { ok: true; path: string; cuptiDir?: string } | { ok: false; reason: string };

/** $SYNCSCOPE_CAPTURE_LIB, else build/Release/ in the first folder above this file that has the library. */
export function captureLibraryPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SYNCSCOPE_CAPTURE_LIB) return env.SYNCSCOPE_CAPTURE_LIB;
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, CAPTURE_LIBRARY))) return join(dir, CAPTURE_LIBRARY);
    if (dirname(dir) === dir) return join(__dirname, '..', CAPTURE_LIBRARY);
  }
}

/** The directory holding libcupti.so.*: the first toolkit of CUDA_HOME, CUDA_PATH, /usr/local/cuda, /usr/local/cuda-* (newest first). */
export function cuptiDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const list = (d: string): string[] => {
    try {
      return readdirSync(d);
    } catch {
      return [];
    }
  };
  const versioned = list('/usr/local').filter((d) => /^cuda-\d/.test(d))
    .sort((a, b) => b.localeCompare(a, undefined, { numeric: true })).map((d) => `/usr/local/${d}`);
  const roots = [env.CUDA_HOME, env.CUDA_PATH, '/usr/local/cuda', ...versioned].filter((r): r is string => !!r);
  for (const root of roots) {
    for (const d of [`${root}/lib64`, `${root}/extras/CUPTI/lib64`, `${root}/lib`]) {
      if (list(d).some((f) => /^libcupti\.so(\.\d+)*$/.test(f))) return d;
    }
  }
  return undefined;
}

export function findCaptureLibrary(env: NodeJS.ProcessEnv = process.env): CaptureLibrary {
  const path = captureLibraryPath(env);
  if (!existsSync(path)) {
    return { ok: false, reason: `the capture library is not built (${path} not found): build on a machine with a CUDA toolkit (CUPTI), e.g. npm run build with CUDA_HOME set` };
  }
  return { ok: true, path, cuptiDir: cuptiDir(env) };
}
