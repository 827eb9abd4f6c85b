// A Python script's profile in the editor, in a real VS Code (code-server) with the packaged .vsix,
// without a GPU: a recorded trace whose waits carry call sites (test/fixtures/editor) is opened, then
// the script. Each line where the host waited shows a CodeLens saying how long and what released
// it, the findings go to the Problems panel on their lines, and a click on a lens reveals the wait
// in the timeline; a finding's quick fix on its line simulates the fix. The trace names the script
// by the path it was recorded at; the workspace holds it elsewhere, so it is found by its file name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { siteLines, siteLineText } from '../../core/analyze/site-lines';
import { parseTrace } from '../../core/trace/json';
import { repoPath } from '../helpers/paths';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
const SCRIPT = 'side_stream_sync.py';
const TRACE = 'side_stream_sync.syncscope.json';
const traceText = readFileSync(repoPath('test', 'fixtures', 'editor', TRACE), 'utf8');
const scriptText = readFileSync(repoPath('test', 'gpu', 'torch', 'programs', SCRIPT), 'utf8');

let wb: Workbench;
before(
  async () => {
    if (skip) return;
    wb = await Workbench.start({ [SCRIPT]: scriptText, [TRACE]: traceText });
    // The script predates its profile (a file newer than the trace's createdAt makes the lens say "stale").
    const before = new Date(Date.parse(JSON.parse(traceText).meta.createdAt) - 3600_000);
    utimesSync(join(wb.workspace, SCRIPT), before, before);
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

test(
  "a recorded profile shows its waits on the script's lines and its findings in Problems",
  { skip, timeout: 180_000 },
  async () => {
    await wb.openTraceThenScript(TRACE, SCRIPT);
    // What core says about the event.synchronize line: the lens shows exactly that.
    const trace = parseTrace(traceText, TRACE);
    const wait = siteLines(trace).find((s) => s.line === 18);
    assert.ok(wait, 'the trace has waits on line 18');
    const text = siteLineText(wait);
    assert.match(
      text,
      /^host blocked 10\.3 ms, 3 waits of up to 5\.28 ms: eventSync, released by "xmma_gemm f32 nn" on stream 13$/,
    );
    await wb.lensAbove(text, 18);
    await wb.lensAbove('streamSync', 19);
    assert.equal(await wb.page.locator('.codelens-decoration', { hasText: 'stale' }).count(), 0);
    await wb.shot('source-lines-01-codelens');

    await wb.page.keyboard.press('Control+Shift+M');
    const row = wb.page.locator('.markers-panel .monaco-list-row', { hasText: 'aten::item' }).first();
    await row.waitFor({ timeout: 30_000 });
    const problem = await row.innerText();
    assert.ok(problem.includes('Fix: keep the value on the GPU'), problem);
    assert.ok(problem.includes('S17'), problem);
    assert.ok(problem.includes('[Ln 19'), problem);
    await wb.shot('source-lines-02-problems');

    // One click on the lens: the timeline comes forward with the longest of those waits selected.
    await wb.page.locator('.codelens-decoration a', { hasText: 'eventSync' }).first().click();
    const frame = await wb.webviewFrame('.details .details-title', 30_000, 'cudaEventSynchronize');
    const released = await frame
      .locator('.details dt', { hasText: 'Released by' })
      .locator('xpath=following-sibling::dd[1]')
      .innerText();
    assert.ok(released.includes('stream 13'), released);
    assert.equal(await frame.locator('canvas.plot-canvas').getAttribute('data-selected'), `calls:${wait.longest}`);
    await wb.shot('source-lines-03-revealed');
  },
);

test('an edit to the script makes its lenses say the profile is stale', { skip, timeout: 90_000 }, async () => {
  // Back from the timeline to the script's tab, as a user would.
  await wb.page.locator('.tab', { hasText: SCRIPT }).first().click();
  await wb.page.locator('.codelens-decoration', { hasText: 'eventSync' }).first().waitFor({ timeout: 30_000 });
  await wb.page.locator('.monaco-editor .view-line', { hasText: 'done.synchronize()' }).first().click();
  await wb.page.keyboard.press('Control+End');
  await wb.page.keyboard.type('# edited');
  await wb.page.locator('.codelens-decoration', { hasText: 'stale profile' }).first().waitFor({ timeout: 30_000 });
  await wb.shot('source-lines-04-stale');
  await wb.command('File: Revert File');
});

test("a finding's quick fix on its line simulates the fix beside the trace", { skip, timeout: 180_000 }, async () => {
  await wb.page.locator('.tab', { hasText: SCRIPT }).first().click();
  await wb.page.locator('.monaco-editor .view-line', { hasText: 'd.sum().item()' }).first().click();
  await wb.page.keyboard.press('Control+.');
  const fix = wb.page.locator('.action-widget .monaco-list-row', { hasText: 'Simulate this fix (F1 hidden-sync)' });
  await fix.first().waitFor({ timeout: 30_000 });
  // The menu takes keys, not clicks (a pointer block covers it): down to the fix, then Enter.
  for (let i = 0; i < 5 && !/\bfocused\b/.test((await fix.first().getAttribute('class')) ?? ''); i++)
    await wb.page.keyboard.press('ArrowDown');
  await wb.shot('source-lines-05-quick-fix');
  await wb.page.keyboard.press('Enter');
  // As `syncscope whatif` reports for this trace: the moved synchronize waits as long at the next wait.
  const afterTab = wb.page.locator('.tab', { hasText: 'What if F1 hidden-sync' }).first();
  await afterTab.waitFor({ timeout: 60_000 });
  const title = (await afterTab.getAttribute('aria-label')) ?? (await afterTab.innerText());
  // Over the trace's recorded window, iterations 2 and 3 (syncscope whatif --fix F1: done 11.3 ms -> 11.3 ms).
  assert.match(title, /What if F1 hidden-sync: done 11\.3 ms -> 11\.3 ms \(saves 7\.84 µs\)/);
  const fixed = await wb.webviewFrame('.toolbar', 30_000, /What if F1 hidden-sync/);
  await fixed.locator('canvas.plot-canvas').waitFor({ timeout: 30_000 });
  // One timeline on one time axis: the replayed run's rows beside the fixed run's.
  await fixed.locator('.row-header', { hasText: 'before · ' }).first().waitFor({ timeout: 30_000 });
  await fixed.locator('.row-header', { hasText: 'after · ' }).first().waitFor({ timeout: 10_000 });
  await wb.shot('source-lines-06-fix-simulated');
});
