// What a CUDA runtime or driver API name means for the host: the call kind of the trace model.
import type { CallKind, CopyKind, HostMemory } from '../trace/model';

const RULES: [RegExp, CallKind][] = [
  [
    /^(cuda|cu)(LaunchKernel|LaunchCooperativeKernel|LaunchKernelEx|LaunchKernelExC|GraphLaunch)(_v\d+|_ptsz|_ptds)*$/,
    'launch',
  ],
  [/^(cudaEventRecord|cuEventRecord)/, 'record'],
  [/^(cudaStreamWaitEvent|cuStreamWaitEvent)/, 'streamWait'],
  [/^(cudaEventQuery|cuEventQuery)$/, 'query'],
  [/^(cudaEventSynchronize|cuEventSynchronize)$/, 'eventSync'],
  [/^(cudaStreamSynchronize|cuStreamSynchronize)(_ptsz|_ptds)?$/, 'streamSync'],
  [/^(cudaDeviceSynchronize|cudaThreadSynchronize|cuCtxSynchronize)(_v\d+)?$/, 'deviceSync'],
  [/^(cudaEventElapsedTime|cuEventElapsedTime)/, 'elapsed'],
  [/^(cudaMemcpy|cuMemcpy)/, 'memcpy'],
  [/^(cudaMemset|cuMemset)/, 'memset'],
  [/^(cudaLaunchHostFunc|cuLaunchHostFunc)/, 'hostFunc'],
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

/** `cudaMemcpy` without Async returns after the copy (S18); the Async forms only for pageable memory (S17). */
export const isAsyncApi = (name: string): boolean => /Async/.test(name);

/** Kineto names copies like "Memcpy HtoD (Pageable -> Device)" or "Memcpy DtoH (Device -> Pinned)". */
export function copyOf(name: string): { copy: CopyKind; hostMemory: HostMemory } {
  const dir = /\b(HtoD|DtoH|DtoD|HtoH)\b/.exec(name)?.[1] as CopyKind | undefined;
  const host = /Pageable/i.test(name) ? 'pageable' : /Pinned/i.test(name) ? 'pinned' : '';
  return { copy: dir ?? '', hostMemory: host };
}
