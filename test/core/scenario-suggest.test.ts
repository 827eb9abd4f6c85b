import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closest, closestStepKind, editDistance } from '../../core/scenario/suggest';
import { STEP_KINDS } from '../../core/scenario/kinds';

test('edit distance counts inserts, deletes, substitutions and neighbour swaps', () => {
  assert.equal(editDistance('lanch', 'launch'), 1);
  assert.equal(editDistance('raed', 'read'), 1);
  assert.equal(editDistance('side', 'sdie'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('same', 'same'), 0);
});

test('closest suggests likely typos and nothing for different words', () => {
  assert.equal(closest('sid', ['default', 'legacy', 'side']), 'side');
  assert.equal(closest('Side', ['default', 'side']), 'side');
  assert.equal(closest('nonBlock', ['nonBlocking', 'priority']), 'nonBlocking');
  assert.equal(closest('x', ['h', 'y']), undefined);
  assert.equal(closest('copyEngine', ['default', 'legacy', 'side']), undefined);
});

test('CUDA and PyTorch spellings map to our step kinds', () => {
  const cases: [string, string][] = [
    ['cudaEventSynchronize', 'eventSync'],
    ['eventSynchronize', 'eventSync'],
    ['synchronize', 'deviceSync'],
    ['cudaStreamSynchronize', 'streamSync'],
    ['wait_stream', 'waitStream'],
    ['cudaStreamWaitEvent', 'wait'],
    ['memcpyAsync', 'copy'],
    ['cudaLaunchHostFunc', 'hostFunc'],
    ['elapsed_time', 'elapsed'],
    ['lanch', 'launch'],
    ['DeviceSync', 'deviceSync'],
  ];
  for (const [name, kind] of cases) assert.equal(closestStepKind(name, STEP_KINDS), kind, name);
  assert.equal(closestStepKind('fly', STEP_KINDS), undefined);
});
