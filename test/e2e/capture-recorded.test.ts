// A capture recorded on an H200 of a mixed-precision training loop (test/gpu/python/programs/amp_scaler.py,
// pinned as test/fixtures/python/amp_scaler.capture.syncscope.json.gz), opened in a real VS Code
// (code-server) with the packaged .vsix, without a GPU. Above `end.synchronize()` (line 36), a lens
// names the kernel that released its waits, GradScaler's amp_update_scale, and links to line 34,
// where `scaler.update()` launched it; a click puts the cursor there. A helper that waits for two
// callers shows a lens on each calling line too. The capture names the script
// by the path it was recorded at; the workspace holds it elsewhere, so it is found by its file name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { repoPath } from '../helpers/paths';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
/** A recorded program's files as the workspace holds them: its script, and its capture's text. */
const recorded = (name: string) => ({
  [`${name}.py`]: readFileSync(repoPath('test/gpu/python/programs', `${name}.py`), 'utf8'),
  [`${name}.syncscope.json`]: gunzipSync(
    readFileSync(repoPath(`test/fixtures/python/${name}.capture.syncscope.json.gz`)),
  ).toString(),
});
const SCRIPT = 'amp_scaler.py';
const TRACE = 'amp_scaler.syncscope.json';
// A metrics helper, to_host() at line 11, called from train_step() at line 16 and eval_step() at line 24.
const HELPER = 'helper_two_sites.py';
const HELPER_TRACE = 'helper_two_sites.syncscope.json';

let wb: Workbench;
before(
  async () => {
    if (!skip) wb = await Workbench.start({ ...recorded('amp_scaler'), ...recorded('helper_two_sites') });
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

test(
  "a helper's waits show on the helper's line and on each line that called it, with each caller's share",
  { skip, timeout: 180_000 },
  async () => {
    await wb.openTraceThenScript(HELPER_TRACE, HELPER);
    // `syncscope report` of the capture: 24 waits at line 11 (a copy and a sync per call), 37.9 ms;
    // the 8 calls from train_step() block 17.6 ms, the 4 from eval_step() 20.3 ms.
    for (const text of [
      'host blocked 37.9 ms, 24 waits of up to 5.19 ms: memcpy, streamSync',
      'host blocked 17.6 ms in to_host() (line 11), 16 waits of up to 2.61 ms: memcpy, streamSync',
      'host blocked 20.3 ms in to_host() (line 11), 8 waits of up to 5.19 ms: memcpy, streamSync',
    ])
      await wb.page.locator('.codelens-decoration', { hasText: text }).first().waitFor({ timeout: 30_000 });
    await wb.shot('capture-recorded-03-helper-callers');
  },
);
