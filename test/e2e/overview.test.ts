// The overview of a recorded training loop, in a real VS Code (code-server) with the packaged .vsix,
// without a GPU: `syncscope profile`'s H200 recording of train_step.py (test/fixtures/torch/profile)
// opens through Open Trace…, and once the worker's predictions arrive the panel comes up on its
// Overview: the recorded window, a bar per iteration, the line that blocks longest and the findings
// ranked by predicted saving. "Show in timeline" selects that line's wait in the Timeline tab, and
// the script shows the line's heat. Screenshots at a narrow and a wide panel, in a light and a dark theme.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { analyze } from '../../core/analyze';
import { buildOverview } from '../../core/overview/build';
import { h200 } from '../../core/simulate';
import { loadTraceFile } from '../../node/trace-file';
import { repoPath } from '../helpers/paths';
import { skipReason, Workbench } from './workbench';

const skip = skipReason();
const SCRIPT = 'train_step.py';
const PROFILE = 'train_step.profile.json.gz';
const profilePath = repoPath('test', 'fixtures', 'torch', 'profile', PROFILE);
// The script the profile was recorded from: its lines are the trace's.
const scriptText = readFileSync(repoPath('test', 'gpu', 'torch', 'programs', SCRIPT), 'utf8');

let wb: Workbench;
before(
  async () => {
    if (skip) return;
    wb = await Workbench.start(
      { [SCRIPT]: scriptText, [PROFILE]: readFileSync(profilePath) },
      { 'workbench.colorTheme': 'Default Light Modern' },
    );
  },
  { timeout: 240_000 },
);
after(async () => {
  await wb?.close();
});

/** "1.60 ms" in nanoseconds. */
function nsOf(figure: string): number {
  const m = /([\d.]+) (ns|µs|ms|s)\b/.exec(figure);
  assert.ok(m, `a time in "${figure}"`);
  return Number(m[1]) * { ns: 1, µs: 1e3, ms: 1e6, s: 1e9 }[m[2] as 'ns' | 'µs' | 'ms' | 's'];
}

/** Page code as strings: this file is compiled without DOM types. */
const innerWidth = (f: Frame) => f.evaluate('window.innerWidth') as Promise<number>;
const chartFitsBox = `(() => {
  const svg = document.querySelector('svg.ov-chart');
  return !!svg && svg.getAttribute('width') === String(document.querySelector('.ov-chart-box').clientWidth);
})()`;

/** Resizes the browser until the webview is about `target` px wide, then waits for the chart drawn for that width. */
async function panelWidth(frame: Frame, target: number): Promise<number> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const now = await innerWidth(frame);
    if (Math.abs(now - target) <= 10) break;
    const { width, height } = wb.page.viewportSize()!;
    await wb.page.setViewportSize({ width: width + target - now, height });
    await wb.waitUntil(`the panel resized from ${now} px`, async () => (await innerWidth(frame)) !== now, 10_000);
  }
  await frame.waitForFunction(chartFitsBox, null, { timeout: 10_000 });
  return innerWidth(frame);
}

/** Where line 25's number, heat figure, whole-line shade and gutter mark are in the text editor. */
const line25 = `(() => {
  const ed = [...document.querySelectorAll('.monaco-editor')].find((e) => e.querySelector('.view-line'));
  const top = (e) => Math.round(e.getBoundingClientRect().top);
  const after = (s) => getComputedStyle(s, '::after').content;
  const number = [...ed.querySelectorAll('.line-numbers')].find((n) => n.textContent.trim() === '25');
  return {
    line: number ? top(number) : null,
    ends: [...ed.querySelectorAll('.view-line span')]
      .filter((s) => !['none', 'normal', ''].includes(after(s)))
      .map((s) => ({ top: top(s.closest('.view-line')), text: JSON.parse(after(s)) })),
    shades: [...ed.querySelectorAll('.view-overlays .cdr')].map((s) => ({ top: top(s), colour: getComputedStyle(s).backgroundColor })),
    marks: [...ed.querySelectorAll('.margin .cgmr')].map(top),
  };
})()`;
interface Line25 {
  line: number | null;
  ends: { top: number; text: string }[];
  shades: { top: number; colour: string }[];
  marks: number[];
}

test(
  'a recorded training loop opens on its overview, whose first line leads to its wait and its heat',
  { skip, timeout: 300_000 },
  async () => {
    await wb.page.locator('.explorer-folders-view .monaco-list-row', { hasText: PROFILE }).waitFor({ timeout: 60_000 });
    await wb.commandOnceListed('Syncscope: Open Trace…');
    await wb.pickPath(join(wb.workspace, PROFILE));
    // The overview comes after the timeline, once the worker has simulated every finding's fix.
    const frame = await wb.webviewFrame('.overview .ov-window', 120_000).catch(async (e: Error) => {
      await wb.shot('overview-00-no-overview');
      throw new Error(`${e.message}\n${await wb.report()}\n${wb.extensionLog()}`);
    });
    assert.equal(await frame.locator('#tab-overview').getAttribute('aria-selected'), 'true');
    assert.ok(await frame.locator('#panel-timeline').isHidden(), 'the timeline is behind the overview');

    // The recorded window: iterations 2 to 10 of the ten the script runs, the first a warm-up.
    assert.equal(
      await frame.locator('.ov-window .ov-sentence').innerText(),
      '9 iterations, iteration 2 to iteration 10, from a run of calls that repeats; iteration 1 left out: warm-up, 29.9x the median iteration',
    );
    assert.equal(await frame.getByText('left out').count(), 1, 'the left-out iteration is named once');
    assert.equal(await frame.locator('svg.ov-chart g.ov-bar').count(), 9);

    // The line that blocks longest: loss.item() at line 25, 3.83 ms a step (test/core/line-heat.test.ts).
    const firstLine = frame.locator('.ov-lines .ov-row').first();
    assert.match(await firstLine.locator('.ov-head .ov-file').innerText(), /train_step\.py:25$/);
    assert.equal(await firstLine.locator('.ov-figure .ov-main').innerText(), '3.83 ms / iteration');
    assert.match(await firstLine.locator('.ov-released').innerText(), /released by Memcpy DtoH \(Device -> Pinned\)/);

    // The findings, as `syncscope whatif` predicts them for the window (test/core/overview.test.ts):
    // F4, the batch's blocking pageable copy, pinned and made non-blocking, saves 1.8 ms an iteration
    // at their pace after the first; then F3 hidden-sync (the .item()); then the model's copies
    // before the window, F1 and F2, with no prediction.
    const findings = frame.locator('.ov-findings .ov-row');
    assert.deepEqual(await findings.locator('.ov-id').allInnerTexts(), ['F4', 'F3', 'F1', 'F2']);
    const savings = await findings.locator('.ov-figure .ov-main').allInnerTexts();
    assert.equal(savings.length, 2);
    assert.equal(savings[0], 'saves 1.8 ms / iteration');
    const ns = savings.map(nsOf);
    for (let i = 1; i < ns.length; i++) assert.ok(ns[i] < ns[i - 1], `decreasing savings: ${savings.join(', ')}`);

    // A narrow and a wide panel, in the light theme, then in the dark one.
    const widths: string[] = [];
    for (const [theme, kind, body, name] of [
      ['Light Modern', 'vs', 'vscode-light', 'light'],
      ['Dark Modern', 'vs-dark', 'vscode-dark', 'dark'],
    ] as const) {
      if (name !== 'light') await wb.setTheme(theme, kind);
      await frame.waitForFunction(`document.body.classList.contains('${body}')`, null, { timeout: 10_000 });
      for (const target of name === 'light' ? [1400, 500] : [500, 1400]) {
        const w = await panelWidth(frame, target);
        assert.equal(await frame.locator('svg.ov-chart g.ov-bar').count(), 9, `9 bars at ${w} px`);
        widths.push(`${name} ${w} px`);
        await wb.shot(`overview-01-${name}-${target}`);
        // The last findings, scrolled to, then back to the top.
        await frame.evaluate(`document.querySelector('.overview-panel').scrollTop = 1e6`);
        await wb.shot(`overview-01-${name}-${target}-end`);
        await frame.evaluate(`document.querySelector('.overview-panel').scrollTop = 0`);
      }
    }
    console.log(`# panel widths: ${widths.join(', ')}`);

    // "Show in timeline" on the first line: the Timeline tab, with the line's longest wait selected.
    const trace = await loadTraceFile(profilePath);
    const analysis = analyze(trace);
    trace.findings = analysis.findings;
    const longest = buildOverview(trace, analysis, h200).lines[0].longest;
    await firstLine.locator('.ov-show').click();
    await frame.locator('#tab-timeline[aria-selected="true"]').waitFor({ timeout: 10_000 });
    assert.ok(await frame.locator('#panel-overview').isHidden(), 'the overview is behind the timeline');
    await frame.locator('.details .details-title', { hasText: 'cudaStreamSynchronize' }).waitFor({ timeout: 10_000 });
    assert.equal(await frame.locator('canvas.plot-canvas').getAttribute('data-selected'), `calls:${longest}`);
    await wb.shot('overview-02-shown-in-timeline');

    // The script: line 25 in the hottest shade, with what it blocks a step and what it waits for.
    await wb.openFile(SCRIPT);
    const heat =
      'blocked 3.83 ms/step, waits for 27 queued ops, the last multi_tensor_apply_kernel<TensorListMetadata> (launched in <module>), then its own Memcpy DtoH (Device -> Pinned)';
    await wb.waitUntil('the heat figure', async () => (await wb.lineEnds()).includes(heat), 60_000);
    const at = (await wb.page.evaluate(line25)) as Line25;
    assert.ok(at.line !== null, 'line 25 is in view');
    assert.deepEqual(
      at.ends.filter((e) => e.top === at.line).map((e) => e.text),
      [heat],
    );
    // The dark theme's level-5 shade: syncscope.lineHeat5.background, #ff6b3560 in the manifest (0x60/255 as the page rounds it).
    assert.deepEqual(
      at.shades.filter((s) => s.top === at.line && s.colour !== 'rgba(0, 0, 0, 0)').map((s) => s.colour),
      ['rgba(255, 107, 53, 0.38)'],
    );
    assert.ok(at.marks.includes(at.line), `a gutter mark at line 25 (y ${at.line}), marks at ${at.marks.join(', ')}`);
    await wb.shot('overview-03-line-heat');
  },
);
