// Names for what the raw capture holds as numbers: CUDA status codes, kernel names, CUPTI's
// memory and copy kinds.
import type { CopyKind, HostMemory } from '../trace/model';

const RUNTIME: Record<number, string> = {
  1: 'cudaErrorInvalidValue',
  2: 'cudaErrorMemoryAllocation',
  3: 'cudaErrorInitializationError',
  400: 'cudaErrorInvalidResourceHandle',
  600: 'cudaErrorNotReady',
  700: 'cudaErrorIllegalAddress',
  719: 'cudaErrorLaunchFailure',
};
const DRIVER: Record<number, string> = {
  1: 'CUDA_ERROR_INVALID_VALUE',
  2: 'CUDA_ERROR_OUT_OF_MEMORY',
  3: 'CUDA_ERROR_NOT_INITIALIZED',
  400: 'CUDA_ERROR_INVALID_HANDLE',
  600: 'CUDA_ERROR_NOT_READY',
  700: 'CUDA_ERROR_ILLEGAL_ADDRESS',
  719: 'CUDA_ERROR_LAUNCH_FAILED',
};
export const NOT_READY = 600;
const DRIVER_DOMAIN = 1; // CUPTI_CB_DOMAIN_DRIVER_API; the runtime is 2

/** A call's non-success status, named as its API names it (runtime or driver). */
export const statusName = (domain: number, code: number): string =>
  (domain === DRIVER_DOMAIN ? DRIVER[code] : RUNTIME[code]) ??
  `${domain === DRIVER_DOMAIN ? 'CUresult' : 'cudaError'} ${code}`;

/**
 * A kernel's display name: the demangled name without its parameter list and return type, so
 * `void spin<4>(unsigned long long*, long)` reads `spin<4>`. Template arguments stay: they tell
 * instances apart.
 */
export function kernelName(demangled: string): string {
  // "(anonymous namespace)" is a scope, not a parameter list.
  const full = demangled.replace(/\(anonymous namespace\)/g, '{anonymous}');
  let depth = 0;
  let cut = full.length;
  for (let i = 0; i < full.length; i++) {
    const ch = full[i];
    if (ch === '<') depth++;
    else if (ch === '>') depth--;
    else if (ch === '(' && depth === 0) {
      cut = i;
      break;
    }
  }
  const head = full.slice(0, cut).trim();
  // A return type before the name ("void ns::k<...>"): the name is the last top-level word.
  depth = 0;
  for (let i = head.length - 1; i >= 0; i--) {
    const ch = head[i];
    if (ch === '>') depth++;
    else if (ch === '<') depth--;
    else if (ch === ' ' && depth === 0) return head.slice(i + 1);
  }
  return head || full;
}

/** CUpti_ActivityMemcpyKind to the trace's copy kinds (array copies read as device memory). */
export function copyKindOf(kind: number): CopyKind {
  switch (kind) {
    case 1:
    case 3:
      return 'HtoD';
    case 2:
    case 4:
      return 'DtoH';
    case 5:
    case 6:
    case 7:
    case 8:
      return 'DtoD';
    case 9:
      return 'HtoH';
    case 10:
      return 'PtoP';
    default:
      return '';
  }
}

/** CUpti_ActivityMemoryKind to the trace's host memory kinds; '' for device memory and unknown. */
export function hostMemoryOf(kind: number): HostMemory {
  return kind === 1 ? 'pageable' : kind === 2 ? 'pinned' : '';
}
