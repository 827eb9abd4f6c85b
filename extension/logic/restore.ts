// What a timeline panel shows, in a form that survives a window reload. The webview keeps its own
// UI state; the host remembers where each panel's trace came from, keyed by the panel's title
// (which VS Code restores with the panel).

export type PanelSource =
  { kind: 'simulate'; uri: string } | { kind: 'gpu'; uri: string } | { kind: 'trace'; uri: string };

export interface KeyValueStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

const KEY = 'syncscope.panels';
const LIMIT = 50;

export class PanelSources {
  constructor(private readonly store: KeyValueStore) {}

  private all(): [string, PanelSource][] {
    return this.store.get<[string, PanelSource][]>(KEY) ?? [];
  }

  remember(title: string, source: PanelSource): PromiseLike<void> {
    const rest = this.all().filter(([t]) => t !== title);
    return this.store.update(KEY, [...rest, [title, source]].slice(-LIMIT));
  }

  lookup(title: string): PanelSource | undefined {
    return this.all().find(([t]) => t === title)?.[1];
  }
}

export const isPanelSource = (v: unknown): v is PanelSource => {
  const o = v as PanelSource | undefined;
  return !!o && typeof o.uri === 'string' && (o.kind === 'simulate' || o.kind === 'gpu' || o.kind === 'trace');
};
