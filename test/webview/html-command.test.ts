import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpackTrace, type PackedTrace } from '../../core/protocol';
import { traceToJson } from '../../core/trace/json';
import { run } from '../../cli/commands/html';
import { UsageError } from '../../cli/io';
import { repoPath } from '../helpers/paths';
import { ensureWebviewBundle } from './browser';
import { sampleTrace } from './sample';

/** The command in-process, as the dispatcher calls it. */
async function runHtml(argv: string[]) {
  let stderr = '';
  const code = await run(argv, {
    stdout: () => assert.fail('html prints nothing on stdout'),
    stderr: (t) => (stderr += t),
    cwd: repoPath(),
  });
  return { code, stderr };
}

const embedded = (html: string) => {
  const text = /<script type="application\/json" id="syncscope-data">([^]*?)<\/script>/.exec(html)?.[1];
  assert.ok(text, 'the page embeds its data');
  const data = JSON.parse(text) as { title: string; trace: PackedTrace };
  return { title: data.title, trace: unpackTrace(data.trace, (s) => new Uint8Array(Buffer.from(s, 'base64'))) };
};

test('syncscope html <scenario> -o writes a page with the simulated trace and its findings', async () => {
  ensureWebviewBundle();
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-html-'));
  const out = join(dir, 'timeline.html');
  const r = await runHtml([repoPath('examples', 'seed-side-stream-event-sync.scenario.json'), '-o', out]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, `timeline written to ${out}\n`);
  const { title, trace } = embedded(readFileSync(out, 'utf8'));
  assert.equal(title, 'Side stream adds, the host waits on its event, then copies the result back');
  assert.equal(trace.meta.source, 'simulator');
  assert.ok(trace.ops.count > 0 && trace.calls.count > 0);
  assert.deepEqual([...new Set(trace.findings.map((f) => f.rule))], ['S17']);
});

test('syncscope html <trace> keeps the trace exactly, and asks for -o when it is missing', async () => {
  ensureWebviewBundle();
  const dir = mkdtempSync(join(tmpdir(), 'syncscope-html-'));
  const input = join(dir, 'sample.syncscope.json');
  const t = sampleTrace();
  writeFileSync(input, traceToJson(t));
  const r = await runHtml([input, '--out', join(dir, 'page.html')]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(traceToJson(embedded(readFileSync(join(dir, 'page.html'), 'utf8')).trace), traceToJson(t));
  await assert.rejects(
    runHtml([input]),
    (e: Error) => e instanceof UsageError && /missing -o <file\.html>/.test(e.message),
  );
});
