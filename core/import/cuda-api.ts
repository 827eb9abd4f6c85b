// What a CUDA runtime, CUDA driver or HIP API name means for the host: the call kind of the trace model.
import type { CallKind, CopyKind, HostMemory } from '../trace/model';

// One table serves both vendors: an entry point is named by what follows its prefix, which is
// `cuda` (CUDA runtime), `cu` (CUDA driver) or `hip` (HIP, which ROCm's Kineto traces record
// under the same categories). Suffixes: CUDA's version (`_v2`) and per-thread default stream
// (`_ptsz`, `_ptds`) forms, HIP's per-thread form (`_spt`).
const PREFIX = '(cuda|cu|hip)';
const SUFFIX = '(_v\\d+|_ptsz|_ptds|_spt)*';

/** `names` after a vendor prefix; `exact`: nothing but a suffix may follow, else any tail may. */
const api = (names: string, exact = true): RegExp => new RegExp(`^${PREFIX}(${names})${exact ? SUFFIX + '$' : ''}`);

const RULES: [RegExp, CallKind][] = [
  [
    api(
      'LaunchKernel|LaunchCooperativeKernel|LaunchKernelEx|LaunchKernelExC|ExtLaunchKernel|ModuleLaunchKernel|ExtModuleLaunchKernel|GraphLaunch',
    ),
    'launch',
  ],
  [api('EventRecord', false), 'record'],
  [api('StreamWaitEvent', false), 'streamWait'],
  [api('EventQuery'), 'query'],
  [api('EventSynchronize'), 'eventSync'],
  [api('StreamSynchronize'), 'streamSync'],
  [api('DeviceSynchronize|ThreadSynchronize|CtxSynchronize'), 'deviceSync'],
  [api('EventElapsedTime', false), 'elapsed'],
  [api('Memcpy', false), 'memcpy'],
  [api('Memset', false), 'memset'],
  [api('LaunchHostFunc', false), 'hostFunc'],
];

const cache = new Map<string, CallKind>();

export function callKindOf(name: string): CallKind {
  let kind = cache.get(name);
  if (kind === undefined) {
    kind = RULES.find(([re]) => re.test(name))?.[1] ?? 'api';
    cache.set(name, kind);
  }
  return kind;
}

/** `cudaMemcpy` (`hipMemcpy`, `hipMemcpyWithStream`) without Async returns after the copy (S18); the Async forms only for pageable memory (S17). */
export const isAsyncApi = (name: string): boolean => /Async/.test(name);

/** Kineto names copies like "Memcpy HtoD (Pageable -> Device)" or "Memcpy DtoH (Device -> Pinned)". */
export function copyOf(name: string): { copy: CopyKind; hostMemory: HostMemory } {
  const dir = /\b(HtoD|DtoH|DtoD|HtoH)\b/.exec(name)?.[1] as CopyKind | undefined;
  const host = /Pageable/i.test(name) ? 'pageable' : /Pinned/i.test(name) ? 'pinned' : '';
  return { copy: dir ?? '', hostMemory: host };
}
