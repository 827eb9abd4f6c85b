// Heat on a Python script's lines in a real VS Code (code-server) with the packaged .vsix, without a
// GPU: the recorded trace of test/fixtures/editor is opened, then the script. The event.synchronize
// line, which holds nearly all of the trace's blocked host time, gets the hottest shade and a gutter
// mark, and ends with what it costs per step and what it waits for, in core's words; Toggle Line
// Heat takes it all away and brings it back. Screenshots in dark, light and both high-contrast themes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { lineHeats } from '../../core/analyze/line-heat';
import { siteLines } from '../../core/analyze/site-lines';
import { parseTrace } from '../../core/trace/json';
import { iterationWindow } from '../../core/overview/window';
import { repoPath } from '../helpers/paths';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
const SCRIPT = 'side_stream_sync.py';
const TRACE = 'side_stream_sync.syncscope.json';
const traceText = readFileSync(repoPath('test', 'fixtures', 'editor', TRACE), 'utf8');
const scriptText = readFileSync(repoPath('test', 'gpu', 'torch', 'programs', SCRIPT), 'utf8');
const DARK = 'Default Dark Modern';

let wb: Workbench;
before(
  async () => {
    if (skip) return;
    wb = await Workbench.start({ [SCRIPT]: scriptText, [TRACE]: traceText }, { 'workbench.colorTheme': DARK });
    const before = new Date(Date.parse(JSON.parse(traceText).meta.createdAt) - 3600_000);
    utimesSync(join(wb.workspace, SCRIPT), before, before);
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

test(
  "a traced script's lines show their heat, and the toggle hides and shows it",
  { skip, timeout: 240_000 },
  async () => {
    await wb.openTraceThenScript(TRACE, SCRIPT);

    // What core says of the event.synchronize line: the editor shows exactly that.
    const trace = parseTrace(traceText, TRACE);
    const heats = lineHeats(trace, siteLines(trace), iterationWindow(trace));
    const sync = heats.find((h) => h.site.line === 18);
    assert.equal(sync?.text, 'blocked 5.16 ms/step, waits for xmma_gemm f32 nn on stream 13');
    assert.equal(sync?.level, 5);
    await wb
      .waitUntil('the figure at the end of line 18', async () => (await wb.lineEnds()).includes(sync!.text), 90_000)
      .catch(async (e: Error) => {
        await wb.shot('line-heat-00-failed');
        throw new Error(
          `${e.message}; the lines end with ${JSON.stringify(await wb.lineEnds())}\n${wb.extensionLog()}`,
        );
      });
    const ends = await wb.lineEnds();
    for (const h of heats) assert.ok(ends.includes(h.text), `${h.text} in ${JSON.stringify(ends)}`);
    // A gutter mark and a whole-line shade for each line with heat.
    const gutter = wb.page.locator('.monaco-editor .margin .cgmr');
    const shades = wb.page.locator('.monaco-editor .view-overlays .cdr');
    assert.equal(await gutter.count(), heats.length);
    assert.ok((await shades.count()) >= heats.length);
    await wb.shot('line-heat-01-dark');

    // The other kinds of theme: each shade, mark and figure in the colours the manifest gives them.
    for (const [theme, kind, shot] of [
      ['Light Modern', 'vs', 'light'],
      ['Dark High Contrast', 'hc-black', 'high-contrast'],
      ['Light High Contrast', 'hc-light', 'high-contrast-light'],
      ['Dark Modern', 'vs-dark', ''],
    ] as const) {
      await wb.setTheme(theme, kind);
      if (shot) await wb.shot(`line-heat-02-${shot}`);
    }
    await wb.command('Syncscope: Toggle Line Heat');
    await wb.waitUntil(
      'no heat after the toggle',
      async () => !(await wb.lineEnds()).length && !(await gutter.count()),
    );
    await wb.shot('line-heat-03-toggled-off');
    await wb.command('Syncscope: Toggle Line Heat');
    await wb.waitUntil('the heat back', async () => (await wb.lineEnds()).includes(sync!.text));
  },
);
