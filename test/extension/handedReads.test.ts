import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HandedReads } from '../../extension/logic/handedReads';

/** A read that settles when told, and counts how often it was started and stopped. */
function reads() {
  const log = { started: 0, stopped: 0 };
  let finish: (v: string) => void = () => undefined;
  const start = () => {
    log.started++;
    return { result: new Promise<string>((r) => (finish = r)), stop: () => log.stopped++ };
  };
  return { log, start, finish: (v: string) => finish(v) };
}

test('the editor that replaces a blank one takes its read over: the file is read once', async () => {
  const r = reads();
  const handed = new HandedReads<string>();
  const first = handed.open('a.json.gz', r.start);
  handed.handOver('a.json.gz');
  handed.close('a.json.gz', first);
  const second = handed.open('a.json.gz', r.start);
  assert.equal(second, first);
  r.finish('trace');
  assert.equal(await second, 'trace');
  assert.deepEqual(r.log, { started: 1, stopped: 0 });
});

test('closing an editor stops its read, and the next editor of the file reads it anew', async () => {
  const r = reads();
  const handed = new HandedReads<string>();
  const first = handed.open('a.json.gz', r.start);
  handed.close('a.json.gz', first);
  assert.deepEqual(r.log, { started: 1, stopped: 1 });
  handed.open('a.json.gz', r.start);
  assert.deepEqual(r.log, { started: 2, stopped: 1 });
});

test('a read handed over stops when the editor that took it closes, or when no editor can take it', () => {
  const r = reads();
  const handed = new HandedReads<string>();
  const first = handed.open('a.json.gz', r.start);
  handed.handOver('a.json.gz');
  handed.close('a.json.gz', first);
  handed.close('a.json.gz', handed.open('a.json.gz', r.start));
  assert.deepEqual(r.log, { started: 1, stopped: 1 });
  const third = handed.open('a.json.gz', r.start);
  handed.handOver('a.json.gz');
  handed.close('a.json.gz', third, true);
  assert.deepEqual(r.log, { started: 2, stopped: 2 });
});

test("closing one editor of a file leaves another editor's read of it running", () => {
  const r = reads();
  const handed = new HandedReads<string>();
  const first = handed.open('a.json.gz', r.start);
  handed.open('a.json.gz', r.start);
  handed.close('a.json.gz', first);
  assert.deepEqual(r.log, { started: 2, stopped: 0 });
});

test('a finished read is handed over too: a page can stay blank after the trace came', async () => {
  const r = reads();
  const handed = new HandedReads<string>();
  const first = handed.open('a.json.gz', r.start);
  r.finish('trace');
  await first;
  handed.handOver('a.json.gz');
  handed.close('a.json.gz', first);
  assert.equal(await handed.open('a.json.gz', r.start), 'trace');
  assert.deepEqual(r.log, { started: 1, stopped: 0 });
});
