// Canvas colours, read from VS Code's theme variables so that the timeline matches the editor.
// The standalone page defines the same variables for its light and dark themes (timeline.css).
export interface Palette {
  background: string;
  foreground: string;
  muted: string;
  grid: string;
  border: string;
  selection: string;
  kernel: string;
  memcpy: string;
  memset: string;
  hostFunc: string;
  record: string;
  waitEvent: string;
  call: string;
  launch: string;
  wait: string;
  context: string;
  blocked: string;
  ready: string;
  notReady: string;
  arrowLaunch: string;
  arrowEvent: string;
  arrowRelease: string;
  /** Any arrow between two GPUs' rows (S21): its own colour, dashed, on top. */
  arrowCrossDevice: string;
  ruler: string;
  coneBefore: string;
  coneAfter: string;
  highContrast: boolean;
  font: string;
}

const VARS: Record<Exclude<keyof Palette, 'highContrast' | 'font'>, [string, string]> = {
  background: ['--vscode-editor-background', '#ffffff'],
  foreground: ['--vscode-editor-foreground', '#1f1f1f'],
  muted: ['--vscode-descriptionForeground', '#6b6b6b'],
  grid: ['--vscode-editorIndentGuide-background1', '#e4e4e4'],
  border: ['--vscode-contrastBorder', 'transparent'],
  selection: ['--vscode-focusBorder', '#0066cc'],
  kernel: ['--vscode-charts-blue', '#2f80ed'],
  memcpy: ['--vscode-charts-green', '#2e9e5b'],
  memset: ['--vscode-charts-purple', '#8a5cd1'],
  hostFunc: ['--vscode-charts-orange', '#d97706'],
  record: ['--vscode-charts-yellow', '#c99a00'],
  waitEvent: ['--vscode-charts-red', '#d64545'],
  call: ['--vscode-charts-lines', '#8c8c8c'],
  launch: ['--vscode-charts-purple', '#8a5cd1'],
  wait: ['--vscode-charts-orange', '#d97706'],
  context: ['--vscode-editorWidget-border', '#c8c8c8'],
  blocked: ['--vscode-charts-red', '#d64545'],
  ready: ['--vscode-charts-green', '#2e9e5b'],
  notReady: ['--vscode-charts-orange', '#d97706'],
  arrowLaunch: ['--vscode-charts-purple', '#8a5cd1'],
  arrowEvent: ['--vscode-charts-yellow', '#c99a00'],
  arrowRelease: ['--vscode-charts-red', '#d64545'],
  arrowCrossDevice: ['--vscode-terminal-ansiBrightMagenta', '#c2187a'],
  ruler: ['--vscode-editorCursor-foreground', '#000000'],
  coneBefore: ['--vscode-terminal-ansiCyan', '#0598bc'],
  coneAfter: ['--vscode-terminal-ansiMagenta', '#bc05bc'],
};

export function readPalette(): Palette {
  const css = getComputedStyle(document.body);
  const p = {} as Palette;
  for (const [key, [name, fallback]] of Object.entries(VARS)) {
    (p as unknown as Record<string, string>)[key] = css.getPropertyValue(name).trim() || fallback;
  }
  p.highContrast =
    document.body.classList.contains('vscode-high-contrast') ||
    document.body.classList.contains('vscode-high-contrast-light');
  const family = css.getPropertyValue('--vscode-font-family').trim() || 'system-ui, sans-serif';
  p.font = `11px ${family}`;
  return p;
}

/** Calls `onChange` when VS Code (or the standalone page) switches theme: it changes body's class. */
export function watchTheme(onChange: () => void): void {
  new MutationObserver(onChange).observe(document.body, { attributes: true, attributeFilter: ['class', 'style'] });
  if (document.documentElement)
    new MutationObserver(onChange).observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });
}
