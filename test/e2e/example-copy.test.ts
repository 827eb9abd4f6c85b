// The "New Scenario from Example…" journey in a real VS Code (code-server) with the packaged .vsix:
// the copy lands in a workspace that is not the project's tree, so a "$schema" path into that tree
// would not resolve there and would be flagged. The copy shows no problem, and the contributed
// jsonValidation still checks it against the scenario schema.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { exampleInfo } from '../../extension/logic/examples';
import { repoPath } from '../helpers/paths';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
const EXAMPLE = 'pipeline-fixed.scenario.json';
const { name } = exampleInfo(EXAMPLE, readFileSync(repoPath('examples', EXAMPLE), 'utf8'));

let wb: Workbench;
before(
  async () => {
    if (skip) return;
    wb = await Workbench.start({});
    // Workbench gives the workspace the project's layout (media/schema beside it); a user's folder has none.
    rmSync(join(wb.root, 'media'), { recursive: true, force: true });
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

/** The Problems panel's rows: the workspace holds only the new file, so they are its resource row and its markers. */
const problemRows = () => wb.page.locator('.markers-panel .monaco-list-row');

test(
  'a scenario copied from an example shows no problem, and the schema still checks it',
  { skip, timeout: 150_000 },
  async () => {
    await wb.commandOnceListed('Syncscope: New Scenario from Example…');
    const input = wb.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    await input.fill(name);
    await wb.page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15_000 });
    await wb.page.keyboard.press('Enter');
    await wb.page.locator('.tab.active', { hasText: EXAMPLE }).waitFor({ timeout: 30_000 });
    const written = readFileSync(join(wb.workspace, EXAMPLE), 'utf8');
    assert.doesNotMatch(written, /\$schema/);

    await wb.page.keyboard.press('Control+Shift+M');
    await wb.page.locator('.markers-panel').waitFor({ timeout: 15_000 });
    // The schema is live on the copy: a key it does not allow is flagged, and reverting the file clears that.
    // Only then does an empty panel mean that validation ran and found nothing.
    const editor = wb.page.locator('.editor-instance .monaco-editor .view-lines').first();
    await editor.click();
    await wb.page.keyboard.press('Control+Home');
    await wb.page.keyboard.press('End');
    await wb.page.keyboard.press('Enter');
    await wb.page.keyboard.type('"notAScenarioKey": 1,');
    const flagged = wb.page.locator('.markers-panel .monaco-list-row', { hasText: 'notAScenarioKey' }).first();
    await flagged.waitFor({ timeout: 60_000 }).catch(async (e) => {
      await wb.shot('example-copy-not-validated');
      throw e;
    });
    // Revert, not undo: how many undo steps the typing took depends on the editor's timing.
    // Under load the palette can miss the command (focus still moving): ask again until the flag is gone.
    for (let attempt = 1; ; attempt++) {
      await wb.command('File: Revert File');
      try {
        await flagged.waitFor({ state: 'detached', timeout: 20_000 });
        break;
      } catch (e) {
        if (attempt === 3) throw e;
        await wb.page.keyboard.press('Escape');
        await editor.click();
      }
    }
    await wb.page.waitForFunction(`!document.querySelector('.tab.active')?.classList.contains('dirty')`, null, {
      timeout: 10_000,
    });
    const rows = await problemRows().allInnerTexts();
    await wb.shot('example-copy-no-problems');
    assert.deepEqual(rows, [], `problems in the copy: ${rows.join(' | ')}`);
  },
);
