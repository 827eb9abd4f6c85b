// Heat on the lines of a Python file that a loaded trace names (sourceLines.ts): a gutter mark and a
// whole-line shade in one of five levels by the line's share of the blocked host time, a mark in
// the overview ruler, and at the line's end what it costs and what it waits for
// (core/analyze/line-heat.ts). One decoration type per level keeps a file with many waiting lines
// cheap. On unless `syncscope.lineHeat` is off; "Toggle Line Heat" turns it on or off until the
// setting changes.
import * as vscode from 'vscode';
import { HEAT_LEVELS, type LineHeat } from '../core/analyze/line-heat';
import {
  HEAT_FOREGROUND,
  HEAT_RULER,
  heatBackgroundColor,
  heatGutterIcon,
  heatHover,
  LINE_HEAT_SETTING,
  TOGGLE_LINE_HEAT,
} from './logic/heatStyle';

/** Where the heat comes from: the lines of a workspace file, and when they change. */
export interface HeatSource {
  heatsOf(file: string): LineHeat[];
  readonly onDidChangeCodeLenses: vscode.Event<void>;
}

const setting = (): boolean =>
  vscode.workspace.getConfiguration('syncscope').get<boolean>(LINE_HEAT_SETTING, true) !== false;

export class LineHeatDecorations implements vscode.Disposable {
  private readonly types: vscode.TextEditorDecorationType[];
  private on = setting();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly source: HeatSource) {
    this.types = Array.from({ length: HEAT_LEVELS }, (_, i) => levelType(i + 1));
    this.subscriptions = [
      source.onDidChangeCodeLenses(() => this.renderAll()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.renderAll()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(`syncscope.${LINE_HEAT_SETTING}`)) return;
        this.on = setting();
        this.renderAll();
      }),
      vscode.commands.registerCommand(TOGGLE_LINE_HEAT, () => this.toggle()),
    ];
    this.renderAll();
  }

  toggle(): void {
    this.on = !this.on;
    this.renderAll();
  }

  private renderAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.render(editor);
  }

  private render(editor: vscode.TextEditor): void {
    const doc = editor.document;
    const byLevel: vscode.DecorationOptions[][] = this.types.map(() => []);
    if (this.on && doc.languageId === 'python' && doc.uri.scheme === 'file') {
      for (const h of this.source.heatsOf(doc.uri.fsPath)) {
        if (h.site.line < 1 || h.site.line > doc.lineCount) continue;
        const hover = new vscode.MarkdownString();
        for (const line of heatHover(h)) hover.appendText(line).appendMarkdown('\n\n');
        byLevel[h.level - 1].push({
          range: doc.lineAt(h.site.line - 1).range,
          hoverMessage: hover,
          renderOptions: { after: { contentText: h.text } },
        });
      }
    }
    this.types.forEach((type, i) => editor.setDecorations(type, byLevel[i]));
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    for (const t of this.types) t.dispose();
  }
}

function levelType(level: number): vscode.TextEditorDecorationType {
  return vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor(heatBackgroundColor(level)),
    overviewRulerColor: new vscode.ThemeColor(HEAT_RULER),
    overviewRulerLane: vscode.OverviewRulerLane.Right,
    light: { gutterIconPath: vscode.Uri.parse(heatGutterIcon(level, 'light')), gutterIconSize: 'contain' },
    dark: { gutterIconPath: vscode.Uri.parse(heatGutterIcon(level, 'dark')), gutterIconSize: 'contain' },
    after: { color: new vscode.ThemeColor(HEAT_FOREGROUND), margin: '0 0 0 3em', fontStyle: 'italic' },
  });
}
