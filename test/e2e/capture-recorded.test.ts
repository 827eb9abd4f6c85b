// A capture recorded on an H200 of a mixed-precision training loop (test/gpu/python/programs/amp_scaler.py,
// pinned as test/fixtures/python/amp_scaler.capture.syncscope.json.gz), opened in a real VS Code
// (code-server) with the packaged .vsix, without a GPU. Above `end.synchronize()` (line 36), a lens
// names the kernel that released its waits, GradScaler's amp_update_scale, and links to line 34,
// where `scaler.update()` launched it; a click puts the cursor there. The capture names the script
// by the path it was recorded at; the workspace holds it elsewhere, so it is found by its file name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { repoPath } from '../helpers/paths';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
const SCRIPT = 'amp_scaler.py';
const TRACE = 'amp_scaler.syncscope.json';
const traceText = gunzipSync(
  readFileSync(repoPath('test/fixtures/python/amp_scaler.capture.syncscope.json.gz')),
).toString();
const scriptText = readFileSync(repoPath('test/gpu/python/programs', SCRIPT), 'utf8');

let wb: Workbench;
before(
  async () => {
    if (!skip) wb = await Workbench.start({ [SCRIPT]: scriptText, [TRACE]: traceText });
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

test(
  "a recorded AMP loop's lens names GradScaler's kernel and links to the scaler.update() line that launched it",
  { skip, timeout: 180_000 },
  async () => {
    await wb.openTraceThenScript(TRACE, SCRIPT);
    // `syncscope report` of the capture: 12 waits at line 36, the longest 334 µs, each released by
    // the amp_update_scale kernel but the first, which found nothing pending.
    const wait = 'host blocked 3.4 ms, 12 waits of up to 334 µs: eventSync';
    const launch = 'released by amp_update_scale_cuda_kernel, launched at line 34';
    await wb.page.locator('.codelens-decoration', { hasText: wait }).first().waitFor({ timeout: 30_000 });
    const lenses = wb.page.locator('.codelens-decoration', { hasText: wait }).first().locator('a');
    const texts = await lenses.allInnerTexts();
    assert.equal(texts.length, 2, texts.join(' | '));
    assert.ok(texts[0].startsWith(wait), texts[0]);
    assert.equal(texts[1], launch);
    assert.equal(await wb.page.locator('.codelens-decoration', { hasText: 'stale' }).count(), 0);
    await wb.shot('capture-recorded-01-launch-lens');
    await wb.page.locator('.codelens-decoration a', { hasText: launch }).first().click();
    await wb.page.locator('.statusbar-item', { hasText: 'Ln 34,' }).first().waitFor({ timeout: 15_000 });
    await wb.page
      .locator('.monaco-editor .view-line', { hasText: 'scaler.update()' })
      .first()
      .waitFor({ timeout: 5_000 });
    await wb.shot('capture-recorded-02-launch-line');
  },
);
