// A real VS Code for the end-to-end journeys: code-server (VS Code's workbench served to a browser)
// with the packaged extension installed, driven through headless Chromium.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, Browser, Frame, Page } from 'playwright-core';
import { repoPath } from '../helpers/paths';

const VERSION = '4.100.3';
const cacheDir = process.env.SYNCSCOPE_E2E_CACHE ?? join(homedir(), '.cache', 'syncscope-e2e');
export const codeServerEntry = join(
  cacheDir,
  `code-server-${VERSION}`,
  'node_modules',
  'code-server',
  'out',
  'node',
  'entry.js',
);
export const chromiumPath = process.env.SYNCSCOPE_CHROMIUM ?? '/usr/bin/chromium';
export const shotsDir = repoPath('test-results', 'e2e');

/** Why the journeys are skipped: they run only under `npm run test:e2e`, never under `npm test`. */
export const skipReason = (): string | undefined =>
  process.env.SYNCSCOPE_E2E ? undefined : 'end-to-end journeys run with `npm run test:e2e`';

/** What `npm run test:e2e` lacks here: then the journeys fail rather than pass by skipping. */
function unmet(): string | undefined {
  if (!existsSync(codeServerEntry))
    return `code-server is not installed (run scripts/setup-e2e.sh): ${codeServerEntry}`;
  if (!existsSync(chromiumPath)) return `no Chromium at ${chromiumPath} (run scripts/setup-e2e.sh)`;
  if (!existsSync(repoPath('syncscope.vsix'))) return 'syncscope.vsix is missing (npm run package)';
  return undefined;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Workbench {
  page!: Page;
  readonly url: string;
  private browser?: Browser;
  private server?: ChildProcess;
  private serverLog = '';
  /** The page's and its webviews' last console lines, for the report of a failed journey. */
  private consoleLines: string[] = [];

  private constructor(
    readonly root: string,
    readonly workspace: string,
    readonly port: number,
  ) {
    this.url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
  }

  get userData(): string {
    return join(this.root, 'user-data');
  }

  get extensions(): string {
    return join(this.root, 'extensions');
  }

  /** Installs the .vsix into a fresh profile, starts the server and opens the workbench. */
  /** Fails, rather than skips, when `npm run test:e2e` lacks what it needs here (unmet). */
  static async start(
    files: Record<string, string | Uint8Array>,
    settings: Record<string, unknown> = {},
  ): Promise<Workbench> {
    const lacking = unmet();
    if (lacking) throw new Error(lacking);
    const root = mkdtempSync(join(tmpdir(), 'syncscope-e2e-'));
    const workspace = join(root, 'workspace');
    mkdirSync(workspace, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(workspace, name), text);
    // Scenarios name their schema as ../media/schema/...: give the workspace the project's layout.
    cpSync(repoPath('media', 'schema'), join(root, 'media', 'schema'), { recursive: true });
    const wb = new Workbench(root, workspace, await freePort());
    mkdirSync(join(wb.userData, 'User'), { recursive: true });
    writeFileSync(
      join(wb.userData, 'User', 'settings.json'),
      JSON.stringify(
        {
          'security.workspace.trust.enabled': false,
          'workbench.startupEditor': 'none',
          'workbench.tips.enabled': false,
          'extensions.autoCheckUpdates': false,
          'extensions.autoUpdate': false,
          'telemetry.telemetryLevel': 'off',
          'window.commandCenter': false,
          ...settings,
        },
        null,
        2,
      ),
    );
    wb.install();
    await wb.launch();
    return wb;
  }

  /** `code-server --list-extensions --show-versions` of this profile. */
  installed(): string[] {
    const r = this.cli(['--list-extensions', '--show-versions']);
    return r.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  }

  private cli(args: string[]) {
    const r = spawnSync(
      process.execPath,
      [codeServerEntry, '--user-data-dir', this.userData, '--extensions-dir', this.extensions, ...args],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (r.status !== 0) throw new Error(`code-server ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r;
  }

  private install(): void {
    this.cli(['--install-extension', repoPath('syncscope.vsix')]);
  }

  private async launch(): Promise<void> {
    this.server = spawn(
      process.execPath,
      [
        codeServerEntry,
        '--auth',
        'none',
        '--bind-addr',
        `127.0.0.1:${this.port}`,
        '--user-data-dir',
        this.userData,
        '--extensions-dir',
        this.extensions,
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        this.workspace,
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (b: Buffer) => {
      this.serverLog = (this.serverLog + b.toString()).slice(-20_000);
    };
    this.server.stdout?.on('data', keep);
    this.server.stderr?.on('data', keep);
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const r = await fetch(`http://127.0.0.1:${this.port}/healthz`);
        if (r.ok) break;
      } catch {
        /* not listening yet */
      }
      if (this.server.exitCode !== null || Date.now() > deadline)
        throw new Error(`code-server did not start:\n${this.serverLog}`);
      await sleep(250);
    }
    this.browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    const context = await this.browser.newContext({ viewport: { width: 1920, height: 1080 } });
    this.page = await context.newPage();
    const note = (line: string) => {
      this.consoleLines = [...this.consoleLines.slice(-199), line];
    };
    this.page.on('console', (m) =>
      note(`[${m.type()}] ${m.location().url.split('/').pop()?.slice(0, 60)}: ${m.text().slice(0, 400)}`),
    );
    this.page.on('pageerror', (e) => note(`[pageerror] ${e.message}`));
    this.page.on('requestfailed', (r) => note(`[requestfailed] ${r.url().slice(-100)}: ${r.failure()?.errorText}`));
    await this.open();
  }

  async open(): Promise<void> {
    await this.page.goto(this.url);
    await this.page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    // The explorer and the status bar are the last parts to appear.
    await this.page.waitForSelector('.statusbar', { timeout: 30_000 });
  }

  /** Developer: Reload Window, then waits for the new page's workbench (not the old one's). */
  async reload(): Promise<void> {
    const loaded = this.page.waitForEvent('load', { timeout: 90_000 });
    await this.command('Developer: Reload Window');
    await loaded;
    await this.page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await this.page.waitForSelector('.statusbar', { timeout: 30_000 });
  }

  /** F1, type the command's title, Enter: what a user does. */
  async command(title: string): Promise<void> {
    const p = this.page;
    await p
      .locator('.monaco-workbench')
      .click({ position: { x: 5, y: 450 }, force: true })
      .catch(() => undefined);
    await p.keyboard.press('F1');
    const input = p.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    const row = p.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    await row.waitFor({ state: 'visible', timeout: 15_000 });
    await p.keyboard.press('Enter');
    // The palette closes, or the command opens a pick of its own in the same widget, which then never
    // hides: either way the command's row goes.
    await row.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
  }

  /** A fresh profile lists the extension's commands some seconds after the workbench shows: try again until then. */
  async commandOnceListed(title: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.command(title);
      } catch (e) {
        if (attempt === 4) throw e;
        await this.page.keyboard.press('Escape');
      }
    }
  }

  /** Opens a workspace file through Quick Open (Ctrl+P). */
  async openFile(name: string): Promise<void> {
    const p = this.page;
    await p.keyboard.press('Control+P');
    const input = p.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(name);
    await p.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 15_000 });
    await p.keyboard.press('Enter');
    await p.locator(`.tab[aria-label*="${name}"]`).first().waitFor({ timeout: 15_000 });
  }

  /** Opens a trace of the workspace, waits for its timeline to draw, then opens the script it names. */
  async openTraceThenScript(trace: string, script: string): Promise<void> {
    // Quick Open finds the workspace's files once the explorer has listed them.
    await this.page.locator('.explorer-folders-view .monaco-list-row', { hasText: trace }).waitFor({ timeout: 60_000 });
    await this.openFile(trace);
    await this.webviewFrame('canvas.plot-canvas', 60_000);
    await this.openFile(script);
  }

  /** Waits for the lens holding `text` and checks it sits over the editor's line number `line`, within two lines. */
  async lensAbove(text: string, line: number): Promise<void> {
    const lens = this.page.locator('.codelens-decoration', { hasText: text }).first();
    await lens.waitFor({ timeout: 30_000 });
    const number = this.page.locator('.margin-view-overlays .line-numbers', {
      hasText: new RegExp(`^\\s*${line}\\s*$`),
    });
    const [l, n] = [await lens.boundingBox(), await number.first().boundingBox()];
    if (!l || !n) throw new Error(`the lens "${text}" or line ${line} is not laid out`);
    if (!(l.y < n.y && n.y - l.y < 2.5 * n.height)) throw new Error(`lens at y ${l.y}, line ${line} at y ${n.y}`);
  }

  /**
   * Gives `path` to the web workbench's file dialog (its path box), once it is open. The dialog first
   * fills in the folder it starts from, then lists it; a path typed before the listing may be
   * overwritten. So it waits for the listing, and types again if the box lost the path.
   */
  async pickPath(path: string): Promise<void> {
    const p = this.page;
    const input = p.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 15_000 });
    await p.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 30_000 });
    const holdsPath = `document.querySelector('.quick-input-widget input')?.value === ${JSON.stringify(path)}`;
    for (let attempt = 1; ; attempt++) {
      if (attempt > 3)
        throw new Error(
          `the file dialog did not take ${path}; it holds "${await input.inputValue().catch(() => '?')}"`,
        );
      await input.fill(path);
      if (
        !(await p.waitForFunction(holdsPath, null, { timeout: 5_000 }).then(
          () => true,
          () => false,
        ))
      )
        continue;
      await p.keyboard.press('Enter');
      // Accepted, the dialog closes (the editor may take a while to open); refused, it stays.
      if (
        await p
          .locator('.quick-input-widget')
          .waitFor({ state: 'hidden', timeout: 10_000 })
          .then(
            () => true,
            () => false,
          )
      )
        return;
    }
  }

  /** Picks a colour theme as a user does: Ctrl+K Ctrl+T, its name as the picker lists it, Enter; resolves once the workbench wears it. */
  async setTheme(theme: string, kind: 'vs' | 'vs-dark' | 'hc-black' | 'hc-light'): Promise<void> {
    const p = this.page;
    // The keys go to the workbench, not to a focused webview: a click on the activity bar's empty part first.
    await p
      .locator('.monaco-workbench')
      .click({ position: { x: 5, y: 450 }, force: true })
      .catch(() => undefined);
    await p.keyboard.press('Control+K');
    await p.keyboard.press('Control+T');
    const input = p.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(theme);
    await p.locator('.quick-input-list .monaco-list-row', { hasText: theme }).first().waitFor({ timeout: 15_000 });
    await p.keyboard.press('Enter');
    const kindClass = new RegExp(`(^|\\s)${kind}(\\s|$)`);
    await this.waitUntil(theme, async () =>
      kindClass.test((await p.locator('.monaco-workbench').getAttribute('class')) ?? ''),
    );
  }

  /** Polls `ok` until it holds; fails saying `what` did not come. */
  async waitUntil(what: string, ok: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; !(await ok());) {
      if (Date.now() > deadline) throw new Error(`${what} after ${timeoutMs} ms`);
      await sleep(250);
    }
  }

  /** The figures at the ends of the editor's lines: decorations' `::after` content, as the page computes it. Page code as a string (no DOM types here). */
  lineEnds(): Promise<string[]> {
    return this.page.evaluate(`[...document.querySelectorAll('.monaco-editor .view-line span')]
      .map((s) => getComputedStyle(s, '::after').content)
      .filter((c) => c && c !== 'none' && c !== 'normal')
      .map((c) => JSON.parse(c))`) as Promise<string[]>;
  }

  /** The innermost frame of a webview whose document has `selector` (holding `hasText`, if given). */
  async webviewFrame(selector: string, timeoutMs = 30_000, hasText?: string | RegExp): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const f of this.page.frames()) {
        if (f === this.page.mainFrame()) continue;
        try {
          if (await f.locator(selector, hasText ? { hasText } : {}).count()) return f;
        } catch {
          /* frame went away while we looked */
        }
      }
      if (Date.now() > deadline) throw new Error(`no webview frame with ${selector} after ${timeoutMs} ms`);
      await sleep(250);
    }
  }

  /**
   * Brings a trace panel's Timeline tab to the front, as a user clicks it. A trace file's panel
   * opens on its Overview once the worker's predictions arrive (`overview`: wait for it first, or it
   * may take the front after the timeline was shown); a scenario's panel has no tabs.
   */
  async showTimeline(frame: Frame, timeoutMs = 30_000, overview = false): Promise<void> {
    const rows = frame.locator('.row-header').first();
    const tab = frame.locator('#tab-timeline');
    // A workbench hover (an editor tab's title) can lie over the webview's tab and take the click:
    // the pointer leaves it first, and a click that still misses is tried again.
    const clickTab = async () => {
      await this.page.mouse.move(0, 0);
      await tab.click({ timeout: 2_000 }).catch(() => undefined);
    };
    if (overview) {
      await tab.waitFor({ timeout: timeoutMs });
      await clickTab();
    }
    await this.waitUntil(
      'the timeline in front',
      async () => {
        if (await rows.isVisible()) return true;
        if (await tab.isVisible()) await clickTab();
        return false;
      },
      timeoutMs,
    );
  }

  /** Every frame's address, load state, size and scripts, then the console: what a failure report needs. */
  async report(): Promise<string> {
    const lines: string[] = [];
    for (const f of this.page.frames()) {
      // Page code as a string: this file is compiled without DOM types.
      const info = await f
        .evaluate(
          `({
        state: document.readyState,
        body: document.body ? document.body.innerHTML.length : -1,
        title: document.querySelector('h1.title')?.textContent ?? null,
        resources: performance.getEntriesByType('resource').map((r) => r.name.split('/').pop().slice(0, 40) + ' ' + Math.round(r.duration) + ' ms').slice(-8),
      })`,
        )
        .catch((e: Error) => e.message.split('\n')[0]);
      lines.push(`${f.url().slice(0, 160)}\n  ${JSON.stringify(info)}`);
    }
    return [...lines, '--- console', ...this.consoleLines].join('\n');
  }

  async shot(name: string): Promise<string> {
    mkdirSync(shotsDir, { recursive: true });
    const path = join(shotsDir, `${name}.png`);
    await this.page.screenshot({ path });
    return path;
  }

  /** The extension's log, as VS Code's log files hold it. */
  extensionLog(): string {
    const logs = join(this.userData, 'logs');
    const found: string[] = [];
    const walk = (d: string): void => {
      if (!existsSync(d)) return;
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (f === 'Syncscope.log' || /syncscope.*\.log$/i.test(p)) found.push(p);
      }
    };
    walk(logs);
    return found.map((f) => readFileSync(f, 'utf8')).join('\n');
  }

  async close(): Promise<void> {
    await this.browser?.close().catch(() => undefined);
    // The server was started in its own process group: end the whole group, and only it.
    if (this.server?.pid) {
      try {
        process.kill(-this.server.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    if (!process.env.SYNCSCOPE_E2E_KEEP) rmSync(this.root, { recursive: true, force: true });
  }
}
