// What-if in the editor, in a real VS Code (code-server) with the packaged .vsix, without a GPU: a
// captured trace opens; its loop-sync finding's "Simulate this fix" opens the replayed and the fixed
// runs as one timeline beside it, each lane beside its twin, its title giving the host time saved; "Open as Scenario" writes
// the trace's scenario beside it and the scenario path takes over (its simulated timeline opens).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoPath } from '../helpers/paths';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
const TRACE = 'sync_every_gemm.syncscope.json';
const SCENARIO = 'sync_every_gemm.scenario.json';
const traceText = gunzipSync(
  readFileSync(repoPath('test', 'fixtures', 'capture', 'programs', 'sync_every_gemm.plain.syncscope.json.gz')),
).toString('utf8');

let wb: Workbench;
before(
  async () => {
    if (skip) return;
    wb = await Workbench.start({ [TRACE]: traceText });
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

test(
  "a captured trace's loop-sync fix is simulated beside it, and the trace opens as a scenario",
  { skip, timeout: 240_000 },
  async () => {
    await wb.page.locator('.explorer-folders-view .monaco-list-row', { hasText: TRACE }).waitFor({ timeout: 60_000 });
    // Quick Open lists a new workspace's files only once it has searched them: try again until then.
    for (let attempt = 1; ; attempt++) {
      try {
        await wb.openFile(TRACE);
        break;
      } catch (e) {
        if (attempt === 3) throw e;
        await wb.page.keyboard.press('Escape');
      }
    }
    const frame = await wb.webviewFrame('.findings .simulate-fix', 60_000).catch(async (e: Error) => {
      await wb.shot('whatif-00-no-timeline');
      throw e;
    });
    await wb.showTimeline(frame, 60_000, true);
    const finding = frame.locator('.finding', { hasText: 'in a loop' }).first();
    await finding.locator('.simulate-fix').click();

    // The fixed timeline: its tab and its header carry the saving.
    const afterTab = wb.page.locator('.tab', { hasText: 'What if F1 loop-sync' }).first();
    await afterTab.waitFor({ timeout: 60_000 });
    const title = (await afterTab.getAttribute('aria-label')) ?? (await afterTab.innerText());
    assert.match(title, /What if F1 loop-sync: done [\d.]+ ms -> [\d.]+ ms \(saves [\d.]+ (ms|µs)\)/);
    const fixed = await wb.webviewFrame('.toolbar', 30_000, /What if F1 loop-sync/);
    await fixed.locator('canvas.plot-canvas').waitFor({ timeout: 30_000 });
    // One timeline: the saved time's row, then each row of the replayed run beside the fixed run's.
    await fixed.locator('.row-header', { hasText: 'saved by F1' }).waitFor({ timeout: 30_000 });
    await fixed.locator('.row-header', { hasText: 'before · main' }).waitFor({ timeout: 10_000 });
    await fixed.locator('.row-header', { hasText: 'after · main' }).waitFor({ timeout: 10_000 });
    await wb.shot('whatif-01-before-after');

    // "Open as Scenario" from the trace's toolbar: a new file beside the trace, simulated beside it.
    await wb.page.locator('.tab', { hasText: TRACE }).first().click();
    const traceFrame = await wb.webviewFrame('.toolbar button', 30_000, 'Open as Scenario');
    await traceFrame.locator('.toolbar button', { hasText: 'Open as Scenario' }).click();
    await wb.page
      .locator('.tab', { hasText: `Simulated: ${SCENARIO}` })
      .first()
      .waitFor({ timeout: 60_000 });
    await wb.page.locator('.tab', { hasText: SCENARIO }).first().waitFor({ timeout: 10_000 });
    assert.ok(existsSync(join(wb.workspace, SCENARIO)), 'the scenario is saved beside the trace');
    assert.match(readFileSync(join(wb.workspace, SCENARIO), 'utf8'), /cudaDeviceSynchronize|deviceSync/);
    // The scenario's own timeline draws its simulated run.
    const simulated = await wb.webviewFrame('.toolbar', 60_000, SCENARIO);
    await simulated.locator('canvas.plot-canvas').waitFor({ timeout: 30_000 });
    assert.ok((await simulated.locator('.row-header').count()) > 0, "the scenario's timeline has rows");
    await wb.shot('whatif-02-open-as-scenario');
  },
);
