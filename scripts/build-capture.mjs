// Builds the capture library (native/capture/) into build/Release/libsyncscope_capture.so. It needs
// cmake, a C++ compiler and CUPTI from a CUDA toolkit (CUDA_HOME, CUDA_PATH, /usr/local/cuda,
// /usr/local/cuda-*). Where any is missing it says which and exits 0: everything else still builds,
// and `syncscope capture` says the library is not built. `--measure` also builds the capture
// benchmark's variant, build/Release/libsyncscope_capture_measure.so (SYNCSCOPE_CAPTURE_MEASURE in
// native/capture/CMakeLists.txt), which has the measurement switches the shipped library leaves out.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cuptiLocations } from '../node/cupti-locations.mjs';

const root = new URL('..', import.meta.url).pathname;
const measure = process.argv.slice(2).includes('--measure');
const has = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const skip = (why) => {
  console.log(`capture library skipped: ${why}; \`syncscope capture\` will be unavailable`);
  process.exit(0);
};
if (!has('cmake')) skip('cmake not found');
if (!(process.env.CXX || ['c++', 'g++', 'clang++'].find(has))) skip('no C++ compiler');
const found = cuptiLocations(
  process.env,
  (p) => existsSync(p),
  (p) => {
    try {
      return readdirSync(p);
    } catch {
      return [];
    }
  },
);
if (!found) skip('CUPTI not found (set CUDA_HOME to a CUDA toolkit that has include/cupti.h and libcupti.so)');

const buildDir = join(root, 'build', 'capture');
const out = join(root, 'build', 'Release');
const configure = spawnSync(
  'cmake',
  [
    '-S',
    join(root, 'native', 'capture'),
    '-B',
    buildDir,
    '-DCMAKE_BUILD_TYPE=Release',
    `-DCUDA_ROOT=${found.root}`,
    `-DCUPTI_LIB_DIR=${found.lib}`,
    `-DOUTPUT_DIR=${out}`,
    `-DSYNCSCOPE_CAPTURE_MEASURE=${measure ? 'ON' : 'OFF'}`,
    '--log-level=WARNING',
  ],
  { stdio: 'inherit' },
);
if (configure.status !== 0) {
  console.error('capture library: cmake configure failed (see above)');
  process.exit(configure.status ?? 1);
}
const build = spawnSync('cmake', ['--build', buildDir, '--parallel', '2'], { stdio: 'inherit' });
if (build.status !== 0) {
  console.error('capture library build failed (see above)');
  process.exit(build.status ?? 1);
}
console.log(
  `capture library: build/Release/libsyncscope_capture.so${measure ? ' and libsyncscope_capture_measure.so' : ''} (CUPTI from ${found.lib})`,
);
