// Loads the built extension bundle the way VS Code does (require, then activate) against a
// minimal stand-in for the `vscode` module. Shared by the activation test (what activation
// registers and loads) and bench/activation.bench.ts (how long it takes).
import Module from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { repoPath } from '../helpers/paths';

export const bundle = repoPath('dist', 'extension.js');
export const manifest = JSON.parse(readFileSync(repoPath('package.json'), 'utf8'));

export interface Registered {
  commands: string[];
  serializers: string[];
  editors: string[];
  lenses: number;
  /** The language-model tools, by name, as registered. */
  tools: Map<string, unknown>;
}

/** The workspace the stand-in pretends to be: untrusted and without a folder unless a test says otherwise. */
export interface Workspace {
  trusted?: boolean;
  folder?: string;
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
  /** What activation pushed: disposing them stops the workers it started. */
  subscriptions: { dispose(): unknown }[];
}

/** A file URI, as much of one as the extension reads. */
class Uri {
  constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}`;
  }
  static file = (p: string) => new Uri('file', p);
  static parse = (s: string) => {
    const m = /^(\w[\w+.-]*):(?:\/\/)?(.*)$/s.exec(s);
    return m ? new Uri(m[1], m[2]) : new Uri('file', s);
  };
  static joinPath = (u: Uri, ...p: string[]) => new Uri(u.scheme, [u.path, ...p].join('/'));
}

function standIn(reg: Registered, ws: Workspace) {
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
    Uri,
    CancellationError: class extends Error {},
    TabInputCustom: class {},
    LanguageModelToolResult: class {
      constructor(readonly content: unknown[]) {}
    },
    LanguageModelTextPart: class {
      constructor(readonly value: string) {}
    },
    lm: { registerTool: (name: string, tool: unknown) => (reg.tools.set(name, tool), disposable) },
    window: {
      createOutputChannel: () => channel,
      createStatusBarItem: () => ({ show() {}, dispose() {} }),
      registerWebviewPanelSerializer: (id: string) => (reg.serializers.push(id), disposable),
      registerCustomEditorProvider: (id: string) => (reg.editors.push(id), disposable),
      visibleTextEditors: [],
      activeTextEditor: undefined,
      tabGroups: { all: [], activeTabGroup: { activeTab: undefined } },
      onDidChangeVisibleTextEditors: event,
      createTextEditorDecorationType: () => ({ dispose() {} }),
    },
    commands: {
      registerCommand: (id: string) => (reg.commands.push(id), disposable),
      executeCommand: async () => undefined,
    },
    languages: {
      createDiagnosticCollection: () => ({ set() {}, delete() {}, clear() {}, dispose() {} }),
      registerCodeLensProvider: () => (reg.lenses++, disposable),
      registerCodeActionsProvider: () => disposable,
    },
    workspace: {
      // Untrusted unless asked: a trusted workspace starts the GPU probe (after activation returns).
      isTrusted: ws.trusted ?? false,
      workspaceFolders: ws.folder ? [{ uri: Uri.file(ws.folder), name: 'folder', index: 0 }] : undefined,
      asRelativePath: (u: Uri) => (ws.folder ? relative(ws.folder, u.fsPath) : u.fsPath),
      findFiles: async () => [],
      fs: { stat: async (u: Uri) => ({ size: statSync(u.fsPath).size }) },
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
export function loadExtension(file = bundle, ws: Workspace = {}): Loaded {
  const registered: Registered = { commands: [], serializers: [], editors: [], lenses: 0, tools: new Map() };
  const requests: string[] = [];
  const dlopened: string[] = [];
  const vscode = standIn(registered, ws);
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
    const subscriptions: { dispose(): unknown }[] = [];
    const r = ext.activate({
      subscriptions,
      extensionPath: repoPath(),
      extensionUri: { path: repoPath(), fsPath: repoPath() },
      workspaceState: { get: () => undefined, update: async () => undefined },
      extension: { packageJSON: manifest },
    });
    const t2 = performance.now();
    return {
      registered,
      loadMs: t1 - t0,
      activateMs: t2 - t1,
      reportedMs: r.activationMs,
      requests,
      dlopened,
      subscriptions,
    };
  } finally {
    mod._load = originalLoad;
    process.dlopen = originalDlopen;
  }
}
