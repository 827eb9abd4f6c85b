import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { repoPath } from '../helpers/paths';

const m = JSON.parse(readFileSync(repoPath('package.json'), 'utf8'));
const c = m.contributes;
const ids = new Set((c.commands as { command: string }[]).map((x) => x.command));

test('every command is in the Syncscope category and every menu entry names a real command', () => {
  for (const cmd of c.commands) assert.equal(cmd.category, 'Syncscope', cmd.command);
  for (const [menu, entries] of Object.entries(c.menus as Record<string, { command: string }[]>)) {
    for (const e of entries) assert.ok(ids.has(e.command), `${menu}: ${e.command}`);
  }
});

test('GPU work is hidden and disabled without workspace trust', () => {
  for (const id of [
    'syncscope.runOnGpu',
    'syncscope.calibrate',
    'syncscope.profilePython',
    'syncscope.capture',
    'syncscope.capturePython',
  ]) {
    assert.match(c.commands.find((x: { command: string }) => x.command === id).enablement, /isWorkspaceTrusted/, id);
    for (const entries of Object.values(c.menus as Record<string, { command: string; when?: string }[]>)) {
      for (const e of entries.filter((x) => x.command === id)) assert.match(e.when ?? '', /isWorkspaceTrusted/, id);
    }
  }
  assert.equal(m.capabilities.untrustedWorkspaces.supported, 'limited');
  for (const key of m.capabilities.untrustedWorkspaces.restrictedConfigurations)
    assert.ok(c.configuration.properties[key], key);
});

test('Capture Python Script is offered on Python files wherever Profile is, and only where the capture library is built', () => {
  const menus = c.menus as Record<string, { command: string; when?: string }[]>;
  for (const [menu, entries] of Object.entries(menus)) {
    const profile = entries.find((e) => e.command === 'syncscope.profilePython');
    const capture = entries.find((e) => e.command === 'syncscope.capturePython');
    if (!profile) continue;
    assert.ok(capture, `${menu} offers capture beside profile`);
    assert.equal(
      capture.when,
      `${profile.when?.replace('isWorkspaceTrusted', 'isWorkspaceTrusted && !syncscope.captureMissing')}`,
      menu,
    );
  }
  assert.equal(menus.commandPalette.find((e) => e.command === 'syncscope.openLaunchLine')?.when, 'false');
});

test('files the manifest points at exist', () => {
  for (const v of c.jsonValidation) assert.ok(existsSync(repoPath(v.url)), v.url);
  for (const step of c.walkthroughs[0].steps) assert.ok(existsSync(repoPath(step.media.markdown)), step.media.markdown);
  assert.ok(existsSync(repoPath(m.icon)), m.icon);
});

test('walkthrough and command links call contributed commands', () => {
  const links = c.walkthroughs.flatMap((w: { steps: { description: string }[] }) =>
    w.steps.flatMap((s) => [...s.description.matchAll(/\(command:([\w.]+)\)/g)].map((x) => x[1])),
  );
  assert.ok(links.length >= 3);
  for (const l of links) assert.ok(ids.has(l), l);
});

test('settings have the documented defaults', () => {
  const p = c.configuration.properties;
  assert.deepEqual(
    [p['syncscope.backend'].default, p['syncscope.backend'].enum],
    ['auto', ['auto', 'gpu', 'simulator']],
  );
  assert.equal(p['syncscope.simulatorProfile'].default, 'h200');
  assert.equal(p['syncscope.lineHeat'].default, true);
  assert.ok(ids.has('syncscope.toggleLineHeat'));
  assert.equal(typeof p['syncscope.runnerTimeoutSeconds'].default, 'number');
  assert.deepEqual(m.extensionKind, ['workspace']);
});

test('the package keeps only what runs', () => {
  const ignore = readFileSync(repoPath('.vscodeignore'), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'));
  assert.equal(ignore[0], '**', 'everything is excluded unless listed');
  for (const kept of [
    '!dist/extension.js',
    '!dist/engines.js',
    '!dist/runner.js',
    '!dist/webview.js',
    '!media/**',
    '!build/Release/*.node',
    // Preloaded into the profiled Python to time its plain steps' waits (node/sync-clock.ts).
    '!build/Release/libsyncscope_sync_clock.so',
  ])
    assert.ok(ignore.includes(kept), kept);
  assert.ok(!ignore.some((l) => /\.map$|^!(core|extension|test|node_modules)/.test(l)));
});
