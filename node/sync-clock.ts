// The sync clock (native/sync-clock/): preloaded into the Python process that `syncscope profile`
// and a capture's plain run start, so that the launcher can time the plain steps' waits in the CUDA
// runtime's synchronizing calls (TraceMeta.plainStep.syncNs). Where it is not built, the run goes
// on without it and the plain step has no waits timed.
import { existsSync } from 'node:fs';
import { builtFile } from './built-file';

/** $SYNCSCOPE_SYNC_CLOCK_LIB, else build/Release/ in the first folder above this file that has the library. */
export const syncClockPath = (env: NodeJS.ProcessEnv = process.env): string =>
  builtFile('libsyncscope_sync_clock.so', env.SYNCSCOPE_SYNC_CLOCK_LIB);

/** `env` with the sync clock preloaded ahead of what it preloads already, where the library is built (Linux). */
export function withSyncClock(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const path = syncClockPath(env);
  if (process.platform !== 'linux' || !existsSync(path)) return env;
  const preload = [path, ...(env.LD_PRELOAD ?? '').split(/[: ]/).filter((p) => p && p !== path)].join(':');
  return { ...env, LD_PRELOAD: preload, SYNCSCOPE_SYNC_CLOCK: path };
}
