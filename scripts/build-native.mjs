// Builds the CUDA runtime addon (native/) with cmake-js into build/Release/syncscope.node, and the
// PyTorch trace reader's addon into build/Release/syncscope_json.node where simdjson and zlib are
// installed (scripts/setup-native.sh). The runtime needs only cmake and a C++ compiler: the CUDA
// driver is opened at run time. Where either is missing it says so and exits 0, so that machines
// without a C++ toolchain still build the rest.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const has = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
const cxx = process.env.CXX || ['c++', 'g++', 'clang++'].find(has);
if (!has('cmake') || !cxx) {
  console.log(
    `native addon skipped: ${has('cmake') ? 'no C++ compiler' : 'cmake not found'}; GPU runs will fall back to the simulator`,
  );
  process.exit(0);
}
const cmakeJs = join(root, 'node_modules', 'cmake-js', 'bin', 'cmake-js');
if (!existsSync(cmakeJs)) {
  console.log('native addon skipped: cmake-js is not installed (npm install)');
  process.exit(0);
}
// napi_versions in package.json makes cmake-js use the bundled Node-API headers: no download.
const r = spawnSync(
  process.execPath,
  [cmakeJs, 'build', '--directory', 'native', '--out', 'build', '--log-level', 'warn', '--parallel', '2'],
  { cwd: root, stdio: 'inherit' },
);
if (r.status !== 0) {
  console.error('native addon build failed (see above)');
  process.exit(r.status ?? 1);
}
console.log('native addon: build/Release/syncscope.node, and the sync clock: build/Release/libsyncscope_sync_clock.so');
console.log(
  existsSync(join(root, 'build', 'Release', 'syncscope_json.node'))
    ? 'native trace reader: build/Release/syncscope_json.node'
    : 'native trace reader skipped: simdjson or zlib not found (bash scripts/setup-native.sh); PyTorch traces are read by the JavaScript reader',
);
