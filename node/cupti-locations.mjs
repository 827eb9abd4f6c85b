// Where a CUDA toolkit's CUPTI lives: the first toolkit root (CUDA_HOME, CUDA_PATH, /usr/local/cuda,
// then /usr/local/cuda-* newest first) with a libcupti.so in lib64, extras/CUPTI/lib64 or lib, and,
// when `headers` is asked for (the build), include/cupti.h. The build and `syncscope capture`
// (node/capture-library.ts) both search with this.
export function cuptiLocations(env, exists, list, headers = true) {
  const versioned = list('/usr/local')
    .filter((d) => /^cuda-\d/.test(d))
    .sort((a, b) => b.localeCompare(a, undefined, { numeric: true }))
    .map((d) => `/usr/local/${d}`);
  const roots = [env.CUDA_HOME, env.CUDA_PATH, '/usr/local/cuda', ...versioned].filter(Boolean);
  for (const root of roots) {
    const libs = [`${root}/lib64`, `${root}/extras/CUPTI/lib64`, `${root}/lib`];
    const lib = libs.find((d) => exists(`${d}/libcupti.so`) || list(d).some((f) => /^libcupti\.so\.\d+$/.test(f)));
    const include = [`${root}/include`, `${root}/extras/CUPTI/include`].find((d) => exists(`${d}/cupti.h`));
    if (lib && (include || !headers)) return { root, lib, include };
  }
  return undefined;
}
