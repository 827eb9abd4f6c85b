// Headless Chromium for the timeline tests and the render benchmark: builds the webview bundle,
// writes standalone pages and opens them. Tests skip only when Chromium is not installed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { writeTimelineHtml } from '../../cli/html-page';
import type { Overview } from '../../core/overview/types';
import type { Trace } from '../../core/trace/model';
import { repoPath } from '../helpers/paths';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Why the browser tests cannot run here, or undefined when they can. */
export const skipReason = (): string | undefined =>
  existsSync(CHROMIUM) ? undefined : `Chromium is not installed at ${CHROMIUM}: run scripts/setup-chromium.sh`;

/** Bundles an entry for the browser the way scripts/build.mjs bundles the webview. */
export function bundle(entry: string, outfile: string): void {
  const esbuild = repoPath('node_modules', '.bin', 'esbuild');
  const r = spawnSync(
    esbuild,
    [
      entry,
      '--bundle',
      '--format=iife',
      '--platform=browser',
      '--minify',
      '--target=es2022',
      '--loader:.css=css',
      `--outfile=${outfile}`,
      '--log-level=warning',
    ],
    { cwd: repoPath(), encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`esbuild ${entry} failed: ${r.stderr}`);
}

let built = false;
export function ensureWebviewBundle(): void {
  if (built) return;
  bundle('webview/main.ts', repoPath('dist', 'webview.js'));
  built = true;
}

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export const resultsDir = (): string => {
  const dir = repoPath('test-results');
  mkdirSync(dir, { recursive: true });
  return dir;
};

export interface Opened {
  page: Page;
  errors: string[];
  dialogs: string[];
}

/** Writes the standalone page for `trace` (and its overview) and opens it; console errors and dialogs are collected. */
export async function openTimeline(
  browser: Browser,
  trace: Trace,
  name: string,
  opts: { theme?: 'light' | 'dark'; width?: number; height?: number; scale?: number; overview?: Overview } = {},
): Promise<Opened> {
  ensureWebviewBundle();
  const file = join(resultsDir(), `${name}.html`);
  writeFileSync(file, writeTimelineHtml(trace, name, { overview: opts.overview }));
  const page = await browser.newPage({
    viewport: { width: opts.width ?? 1400, height: opts.height ?? 700 },
    deviceScaleFactor: opts.scale ?? 1,
  });
  const errors: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.goto(pathToFileURL(file).href + `?theme=${opts.theme ?? 'light'}`);
  await until(page, '!!(window.syncscope && window.syncscope.app.view && window.syncscope.app.waitsReady)');
  await nextFrame(page);
  return { page, errors, dialogs };
}

/**
 * Waits until `expression` is true in the page. Not page.waitForFunction: it re-checks from inside
 * the page with eval, which the timeline's CSP (no 'unsafe-eval') refuses now and then ("EvalError:
 * Evaluating a string as JavaScript violates the following Content Security Policy directive").
 * page.evaluate runs each check from outside.
 */
export async function until(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(`!!(${expression})`))) {
    if (Date.now() > deadline) throw new Error(`still false after ${timeoutMs} ms: ${expression}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Page-side code is passed as text: this file is compiled without the DOM library.
export const nextFrame = (page: Page): Promise<void> =>
  page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))');

/** Runs `body` in the page with `app`, `view`, `trace` and `canvas` in scope. */
export function inPage<T>(page: Page, body: string): Promise<T> {
  return page.evaluate(`(() => { const app = window.syncscope.app; const view = app.view; const trace = app.trace;
    const canvas = document.querySelector('canvas.plot-canvas'); ${body} })()`) as Promise<T>;
}

/** Client coordinates of time t on the middle of the track of an item. */
export function pointOf(page: Page, table: 'calls' | 'ops', id: number, t: number): Promise<{ x: number; y: number }> {
  return inPage(
    page,
    `const tr = view.trackOf({ table: '${table}', id: ${id} }); const r = canvas.getBoundingClientRect();
    const top = document.querySelector('.scroller').scrollTop;
    return { x: r.left + view.x(${t}), y: r.top + tr.y - top + tr.h / 2 };`,
  );
}

/** The canvas pixel (r, g, b) at client coordinates. */
export function pixelAt(page: Page, x: number, y: number): Promise<[number, number, number]> {
  return inPage(
    page,
    `const r = canvas.getBoundingClientRect(); const d = window.devicePixelRatio || 1;
    const p = canvas.getContext('2d').getImageData(Math.round((${x} - r.left) * d), Math.round((${y} - r.top) * d), 1, 1).data;
    return [p[0], p[1], p[2]];`,
  );
}
