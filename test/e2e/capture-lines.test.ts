// A capture of a Python script in the editor, in a real VS Code (code-server) with the packaged
// .vsix, without a GPU: the recorded capture of test/fixtures/editor/train.py (written by
// test/helpers/python-capture.ts, as the capture library records it) is opened, then the script.
// Beside the lens of the `torch.cuda.synchronize()` line, a second lens names the op that released
// those waits, the AdamW kernel by its short name, and links to line 11, where `opt.step()`
// launched it; a click on the link puts the cursor there. The capture names the script by the path
// it was recorded at; the workspace holds it elsewhere, so it is found by its file name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { repoPath } from '../helpers/paths';
import { trainCaptureJson } from '../helpers/python-capture';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
const SCRIPT = 'train.py';
const TRACE = 'train.syncscope.json';
const traceText = trainCaptureJson();
const scriptText = readFileSync(repoPath('test', 'fixtures', 'editor', SCRIPT), 'utf8');

let wb: Workbench;
before(
  async () => {
    if (skip) return;
    wb = await Workbench.start({ [SCRIPT]: scriptText, [TRACE]: traceText });
    // The script predates its capture (a file newer than the trace's createdAt makes the lens say "stale").
    const before = new Date(Date.parse(JSON.parse(traceText).meta.createdAt) - 3600_000);
    utimesSync(join(wb.workspace, SCRIPT), before, before);
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

test(
  "a recorded capture's lens names the releasing op and links to the line that launched it",
  { skip, timeout: 180_000 },
  async () => {
    await wb.openTraceThenScript(TRACE, SCRIPT);
    // Three synchronizes of 573 µs each (30 µs to 603 µs into each step of the capture); the op
    // that released them is said once, by the lens that links to its launch line.
    const wait = 'host blocked 1.72 ms, 3 waits of up to 573 µs: deviceSync';
    const launch = 'released by multi_tensor_apply_kernel<TensorListMetadata>, launched at line 11';
    await wb.lensAbove(wait, 18);
    await wb.lensAbove(launch, 18);
    const lenses = wb.page.locator('.codelens-decoration', { hasText: wait }).first().locator('a');
    assert.deepEqual(await lenses.allInnerTexts(), [wait, launch]);
    // A copy that blocks until it is done is released by its own line: its lens names the copy and links nowhere else.
    await wb.lensAbove('host blocked 90 µs, 3 waits of up to 30 µs: memcpy, released by "DtoH 4 B (pageable)"', 19);
    assert.equal(await wb.page.locator('.codelens-decoration', { hasText: 'stale' }).count(), 0);
    await wb.shot('capture-lines-01-launch-lens');

    await wb.page.locator('.codelens-decoration a', { hasText: launch }).first().click();
    await wb.page.locator('.statusbar-item', { hasText: 'Ln 11,' }).first().waitFor({ timeout: 15_000 });
    const active = wb.page.locator('.monaco-editor .view-line', { hasText: 'opt.step()' }).first();
    await active.waitFor({ timeout: 5_000 });
    await wb.shot('capture-lines-02-launch-line');
  },
);
