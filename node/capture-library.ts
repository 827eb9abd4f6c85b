// Where the capture library and CUPTI are on this machine. The library is built with an RPATH to
// the toolkit it was built against; the program may run where the toolkit sits elsewhere (lib64
// or extras/CUPTI/lib64), so the CUPTI directory found here also goes on LD_LIBRARY_PATH.
import { existsSync, readdirSync } from 'node:fs';
import { cuptiLocations } from './cupti-locations.mjs';
import { builtFile } from './built-file';

export type CaptureLibrary = { ok: true; path: string; cuptiDir?: string } | { ok: false; reason: string };

/** $SYNCSCOPE_CAPTURE_LIB, else build/Release/ in the first folder above this file that has the library. */
export const captureLibraryPath = (env: NodeJS.ProcessEnv = process.env): string =>
  builtFile('libsyncscope_capture.so', env.SYNCSCOPE_CAPTURE_LIB);

/** The directory holding libcupti.so.*, searched as the build searches (headers aside). */
export function cuptiDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const list = (d: string): string[] => {
    try {
      return readdirSync(d);
    } catch {
      return [];
    }
  };
  return cuptiLocations(env, existsSync, list, false)?.lib;
}

export function findCaptureLibrary(env: NodeJS.ProcessEnv = process.env): CaptureLibrary {
  const path = captureLibraryPath(env);
  if (!existsSync(path)) {
    return {
      ok: false,
      reason: `the capture library is not built (${path} not found): build on a machine with a CUDA toolkit (CUPTI), e.g. npm run build with CUDA_HOME set`,
    };
  }
  return { ok: true, path, cuptiDir: cuptiDir(env) };
}
