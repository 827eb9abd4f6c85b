// Loads the built extension bundle the way VS Code does (require, then activate) against a
// minimal stand-in for the `vscode` module. Shared by the activation test (what activation
// registers and loads) and bench/activation.bench.ts (how long it takes).
import Module from 'node:module';
import { readFileSync } from 'node:fs';
import { repoPath } from '../helpers/paths';

export const bundle = repoPath('dist', 'extension.js');
export const manifest = JSON.parse(readFileSync(repoPath('package.json'), 'utf8'));

export interface Registered {
  commands: string[];
  serializers: string[];
  editors: string[];
  lenses: number;
}

export interface Loaded {
  registered: Registered;
  loadMs: number;
  activateMs: number;
  /** What activate() says it took. */
  reportedMs: number;
  /** Every module request made while loading and activating, in order. */
  requests: string[];
  /** Native libraries opened meanwhile (process.dlopen). */
  dlopened: string[];
}

function standIn(reg: Registered) {
  const disposable = { dispose: () => undefined };
  const event = () => disposable;
  const channel = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, show() {}, dispose() {} };
  class EventEmitter {
    event = event;
    fire() {}
    dispose() {}
  }
  return {
    EventEmitter,
    StatusBarAlignment: { Left: 1, Right: 2 },
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    ViewColumn: { One: 1, Two: 2, Three: 3, Beside: -2 },
    CodeActionKind: { QuickFix: { value: 'quickfix' } },
    OverviewRulerLane: { Left: 1, Center: 2, Right: 4, Full: 7 },
    ThemeColor: class {
      constructor(readonly id: string) {}
    },
    Uri: {
      joinPath: (u: { path: string }, ...p: string[]) => ({ path: [u.path, ...p].join('/') }),
      file: (p: string) => ({ path: p }),
      parse: (p: string) => ({ path: p }),
    },
    window: {
      createOutputChannel: () => channel,
      createStatusBarItem: () => ({ show() {}, dispose() {} }),
      registerWebviewPanelSerializer: (id: string) => (reg.serializers.push(id), disposable),
      registerCustomEditorProvider: (id: string) => (reg.editors.push(id), disposable),
      visibleTextEditors: [],
      onDidChangeVisibleTextEditors: event,
      createTextEditorDecorationType: () => ({ dispose() {} }),
    },
    commands: {
      registerCommand: (id: string) => (reg.commands.push(id), disposable),
      executeCommand: async () => undefined,
    },
    languages: {
      createDiagnosticCollection: () => ({ set() {}, delete() {}, dispose() {} }),
      registerCodeLensProvider: () => (reg.lenses++, disposable),
      registerCodeActionsProvider: () => disposable,
    },
    workspace: {
      // Untrusted: a trusted workspace would start the GPU probe (after activation returns).
      isTrusted: false,
      textDocuments: [],
      getConfiguration: () => ({ get: (_k: string, d?: unknown) => d }),
      onDidOpenTextDocument: event,
      onDidChangeTextDocument: event,
      onDidSaveTextDocument: event,
      onDidCloseTextDocument: event,
      onDidChangeConfiguration: event,
      onDidGrantWorkspaceTrust: event,
    },
  };
}

type Load = (request: string, ...rest: unknown[]) => unknown;

/** A fresh require of the bundle (dropped from the cache first) and one activate() call. */
export function loadExtension(file = bundle): Loaded {
  const registered: Registered = { commands: [], serializers: [], editors: [], lenses: 0 };
  const requests: string[] = [];
  const dlopened: string[] = [];
  const vscode = standIn(registered);
  const mod = Module as unknown as { _load: Load };
  const originalLoad = mod._load;
  const originalDlopen = process.dlopen;
  mod._load = function (this: unknown, request: string, ...rest: unknown[]) {
    requests.push(request);
    return request === 'vscode' ? vscode : originalLoad.call(this, request, ...rest);
  };
  process.dlopen = ((m: { exports: unknown }, file: string, ...rest: unknown[]) => {
    dlopened.push(file);
    return (originalDlopen as (...a: unknown[]) => void)(m, file, ...rest);
  }) as typeof process.dlopen;
  try {
    delete require.cache[file];
    const t0 = performance.now();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the built bundle, fresh from require's cache
    const ext = require(file) as { activate: (c: unknown) => { activationMs: number } };
    const t1 = performance.now();
    const r = ext.activate({
      subscriptions: [] as unknown[],
      extensionPath: repoPath(),
      extensionUri: { path: repoPath(), fsPath: repoPath() },
      workspaceState: { get: () => undefined, update: async () => undefined },
      extension: { packageJSON: manifest },
    });
    const t2 = performance.now();
    return { registered, loadMs: t1 - t0, activateMs: t2 - t1, reportedMs: r.activationMs, requests, dlopened };
  } finally {
    mod._load = originalLoad;
    process.dlopen = originalDlopen;
  }
}
