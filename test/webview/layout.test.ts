import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { analyze } from '../../core/analyze';
import { compileScenario } from '../../core/scenario/parse';
import { simulate } from '../../core/simulate';
import { Trace, TraceBuilder } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';
import { inPage, launch, nextFrame, openTimeline, resultsDir, skipReason, until } from './browser';

const EXAMPLE = 'seed-side-stream-event-sync.scenario.json';
function exampleTrace(): Trace {
  const program = compileScenario(readFileSync(repoPath('examples', EXAMPLE), 'utf8'), EXAMPLE);
  const trace = simulate(program);
  trace.findings = analyze(trace, { program }).findings;
  return trace;
}

/** The canvas's width as a share of the page's. */
const canvasShare = (page: Page): Promise<number> =>
  inPage(page, 'return canvas.getBoundingClientRect().width / document.documentElement.clientWidth;');

const WIDTHS = [500, 700, 1000, 1400, 1800];

describe('layout and the waits table in headless Chromium', { skip: skipReason() }, () => {
  let browser: Browser;
  const trace = exampleTrace();
  before(async () => { browser = await launch(); });
  after(async () => { await browser?.close(); });

  test('at 500, 700, 1000 and 1400 px the canvas gets at least 60% of the width, light and dark', async () => {
    for (const theme of ['light', 'dark'] as const) {
      for (const width of WIDTHS) {
        const { page, errors } = await openTimeline(browser, trace, `layout-${width}-${theme}`, { theme, width, height: 800 });
        const share = await canvasShare(page);
        assert.ok(share >= 0.6, `${theme} ${width} px: canvas share ${share.toFixed(3)}`);
        const mode = await inPage<string>(page, "return document.querySelector('.main').className;");
        assert.match(mode, width >= 1600 ? /layout-side/ : /layout-bottom/);
        await page.screenshot({ path: join(resultsDir(), `layout-${width}-${theme}.png`) });
        assert.deepEqual(errors, []);
        await page.close();
      }
    }
  });
});
