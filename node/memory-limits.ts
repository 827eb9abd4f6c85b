// The memory limits of this process, read where Linux keeps them, for core's budgets
// (core/memory.ts). Where a file is missing (another OS), its limit does not apply.
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { memoryBudget, type MemoryBudget, type MemoryLimits } from '../core/memory';

/** What this process may still allocate, for work on `input` (named in messages). */
export const processMemoryBudget = (input?: string): MemoryBudget => memoryBudget(processMemoryLimits(), input);

export function processMemoryLimits(): MemoryLimits {
  const heap = getHeapStatistics();
  const status = readText('/proc/self/status');
  return {
    heapLimit: heap.heap_size_limit,
    heapUsed: heap.used_heap_size,
    addressSpace: addressSpaceLimit(readText('/proc/self/limits')),
    mapped: statusBytes(status, 'VmSize') ?? 0,
    cgroup: cgroupLimit(process.constrainedMemory?.()),
    resident: statusBytes(status, 'VmRSS') ?? process.memoryUsage.rss(),
    physical: totalmem(),
  };
}

/** The soft "Max address space" of /proc/self/limits, in bytes; undefined where unlimited. */
export function addressSpaceLimit(limits: string): number | undefined {
  const m = /^Max address space\s+(\d+)\s/m.exec(limits);
  return m ? Number(m[1]) : undefined;
}

/** A `Vm...: N kB` line of /proc/self/status, in bytes. */
export function statusBytes(status: string, key: string): number | undefined {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : undefined;
}

/**
 * The cgroup memory limit as libuv reads it (memory.max, or memory.limit_in_bytes under cgroup
 * v1): no limit reads as 0, or as a number near 2^63 or 2^64.
 */
export const cgroupLimit = (bytes: number | undefined): number | undefined =>
  bytes && bytes < 2 ** 60 ? bytes : undefined;

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
