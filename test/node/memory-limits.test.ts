// Reading the process's memory limits from the text Linux keeps them in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressSpaceLimit, cgroupLimit, processMemoryLimits, statusBytes } from '../../node/memory-limits';

const LIMITS = (soft: string, hard: string) =>
  [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max data size             unlimited            unlimited            bytes     ',
    `Max address space         ${soft.padEnd(21)}${hard.padEnd(21)}bytes     `,
    'Max file locks            unlimited            unlimited            locks     ',
  ].join('\n');

test('the address-space limit is the soft one of /proc/self/limits, none where unlimited', () => {
  // `ulimit -v 4194304` (KiB) sets both to 4 GiB.
  assert.equal(addressSpaceLimit(LIMITS('4294967296', '4294967296')), 4_294_967_296);
  assert.equal(addressSpaceLimit(LIMITS('2147483648', 'unlimited')), 2_147_483_648);
  assert.equal(addressSpaceLimit(LIMITS('unlimited', 'unlimited')), undefined);
  assert.equal(addressSpaceLimit(''), undefined);
});

test('VmSize and VmRSS of /proc/self/status are read in bytes', () => {
  const status = 'Name:\tnode\nVmPeak:\t  728472 kB\nVmSize:\t  728256 kB\nVmRSS:\t   40412 kB\n';
  assert.equal(statusBytes(status, 'VmSize'), 728_256 * 1024);
  assert.equal(statusBytes(status, 'VmRSS'), 40_412 * 1024);
  assert.equal(statusBytes(status, 'VmSwap'), undefined);
});

test('a cgroup without a limit reads as 0 or near 2^63 or 2^64: none', () => {
  assert.equal(cgroupLimit(2 * 2 ** 30), 2 * 2 ** 30);
  for (const none of [undefined, 0, 9_223_372_036_854_771_712, 2 ** 64]) assert.equal(cgroupLimit(none), undefined);
});

test("this process's limits are plausible numbers", () => {
  const l = processMemoryLimits();
  assert.ok(l.heapLimit > l.heapUsed && l.heapUsed > 0);
  assert.ok(l.physical > l.resident && l.resident > 0);
  if (process.platform === 'linux') assert.ok(l.mapped >= l.resident);
});
