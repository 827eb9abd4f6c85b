import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { CallSite } from '../../core/trace/model';
import { inPage, launch, openTimeline, resultsDir, skipReason, until } from './browser';
import { SAMPLE, sampleTrace } from './sample';

const evil = '<img src=x onerror=alert(1)>.py';

/** The sample, with a line site on the event synchronize and a function site on the stream synchronize. */
function tracedSample() {
  const t = sampleTrace();
  const frame = (file: string, line: number, fn: string) => ({ file, line, function: fn });
  const line: CallSite = {
    frame: frame('/home/me/train.py', 42, 'loop'),
    precision: 'line',
    stack: [
      frame('/usr/lib/python3.12/site-packages/torch/cuda/streams.py', 108, 'synchronize'),
      frame('/home/me/train.py', 42, 'loop'),
      frame('/home/me/train.py', 60, '<module>'),
    ],
  };
  const fn: CallSite = { frame: frame(evil, 8, 'step'), precision: 'function', stack: [frame(evil, 8, 'step')] };
  t.sites.push(line, fn);
  t.calls.site[SAMPLE.sync] = 1;
  t.calls.site[SAMPLE.ssync] = 2;
  return t;
}

const select = async (page: Page, call: number, title: string) => {
  await page.evaluate(`window.postMessage({ type: 'select', call: ${call} }, '*')`);
  await until(page, `document.querySelector('.details-title')?.textContent === ${JSON.stringify(title)}`);
};

async function sourceField(page: Page): Promise<string | undefined> {
  const keys = await page.locator('.details dl.fields dt').allTextContents();
  const values = await page.locator('.details dl.fields dd').allTextContents();
  return values[keys.indexOf('Source')];
}

describe('details pane: a call site', { skip: skipReason() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
  });

  test('shows file:line and function, the stack collapsed, and a click asks the host to open the file', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { page, errors, dialogs } = await openTimeline(browser, tracedSample(), `details-source-${theme}`, {
        theme,
      });
      await select(page, SAMPLE.sync, 'cudaEventSynchronize');
      assert.equal(await sourceField(page), '/home/me/train.py:42 in loop()');
      const stack = page.locator('.details details.stack');
      assert.equal(await stack.locator('summary').textContent(), 'Stack (3 frames)');
      assert.equal(await stack.evaluate((d) => (d as HTMLDetailsElement).open), false);
      await stack.locator('summary').click();
      assert.deepEqual(await stack.locator('li').allTextContents(), [
        '/usr/lib/python3.12/site-packages/torch/cuda/streams.py:108 synchronize()',
        '/home/me/train.py:42 loop()',
        '/home/me/train.py:60 <module>',
      ]);
      await page.locator('.details').screenshot({ path: join(resultsDir(), `details-source-${theme}.png`) });
      await page.locator('.details dd a.source-link').click();
      assert.deepEqual(await inPage(page, 'return window.syncscope.posted.at(-1);'), {
        type: 'openSource',
        file: '/home/me/train.py',
        line: 42,
      });

      // A function site says so; a file named like HTML is text.
      await select(page, SAMPLE.ssync, 'cudaStreamSynchronize');
      assert.equal(await sourceField(page), `in function step(), entered at ${evil}:8`);
      assert.equal(await page.locator('img').count(), 0);
      assert.deepEqual(dialogs, []);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
});
