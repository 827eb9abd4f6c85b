import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPanelSource, PanelSources } from '../../extension/logic/restore';

/** Stands in for VS Code's workspaceState: it must round-trip through JSON, as the real one does. */
function store() {
  const data = new Map<string, string>();
  return {
    get: <T>(k: string) => (data.has(k) ? (JSON.parse(data.get(k)!) as T) : undefined),
    update: async (k: string, v: unknown) => void data.set(k, JSON.stringify(v)),
  };
}

test("a panel's source is found again by its title after a reload", async () => {
  const s = store();
  await new PanelSources(s).remember('Simulated: a.scenario.json', {
    kind: 'simulate',
    uri: 'file:///w/a.scenario.json',
  });
  await new PanelSources(s).remember('b.syncscope.json', { kind: 'trace', uri: 'file:///w/b.syncscope.json' });
  const again = new PanelSources(s);
  assert.deepEqual(again.lookup('Simulated: a.scenario.json'), { kind: 'simulate', uri: 'file:///w/a.scenario.json' });
  assert.equal(again.lookup('GPU: a.scenario.json'), undefined);
});

test('re-remembering a title replaces its source, and the list stays bounded', async () => {
  const s = store();
  const p = new PanelSources(s);
  for (let i = 0; i < 60; i++) await p.remember(`t${i}`, { kind: 'trace', uri: `file:///w/${i}.json` });
  await p.remember('t59', { kind: 'gpu', uri: 'file:///w/x.scenario.json' });
  assert.equal(p.lookup('t0'), undefined, 'the oldest fell off');
  assert.deepEqual(p.lookup('t59'), { kind: 'gpu', uri: 'file:///w/x.scenario.json' });
  assert.equal(s.get<unknown[]>('syncscope.panels')?.length, 50);
});

test('only well-formed sources are accepted from webview state', () => {
  assert.equal(isPanelSource({ kind: 'simulate', uri: 'file:///a' }), true);
  assert.equal(isPanelSource({ kind: 'run', uri: 'file:///a' }), false);
  assert.equal(isPanelSource({ kind: 'trace' }), false);
  assert.equal(isPanelSource(undefined), false);
});
