// Turns parse errors and analysis findings into Problems-panel entries on the scenario lines they
// concern. Positions are 1-based in core and 0-based here, as the editor wants them.
import { findNodeAtOffset, Node, parseTree } from 'jsonc-parser/lib/esm/main.js'; // the ESM entry bundles; the UMD one does not
import type { Finding, Severity } from '../../core/trace/model';

export interface Place {
  line: number;
  character: number;
}

export interface Problem {
  start: Place;
  end: Place;
  severity: Severity;
  message: string;
  /** A SEMANTICS.md rule id, for findings. */
  rule?: string;
}

/** What a parse error carries (core/scenario's ScenarioError). */
export interface PositionedError {
  line: number;
  column: number;
  detail: string;
  length?: number;
}

class Lines {
  private readonly starts = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  offset(line1: number, column1: number): number {
    const l = Math.min(Math.max(line1, 1), this.starts.length) - 1;
    return Math.min(this.starts[l] + Math.max(column1, 1) - 1, this.text.length);
  }
  place(offset: number): Place {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }
}

/**
 * The span worth underlining at a position: a step's opening brace marks its kind property
 * (`"eventSync": "ready"`), so that one line is underlined and not the whole object.
 */
function spanAt(tree: Node | undefined, offset: number): [number, number] | undefined {
  const node = tree && findNodeAtOffset(tree, offset, true);
  if (!node) return undefined;
  if (node.type === 'object' && node.offset === offset && node.children?.length) {
    const first = node.children[0];
    return [first.offset, first.offset + first.length];
  }
  if (node.type === 'object' || node.type === 'array') return [node.offset, node.offset + 1];
  return [node.offset, node.offset + node.length];
}

/** A finding as a Problems entry says it: its message, then its fix. */
export function findingMessage(f: Finding): string {
  const fix = f.fix ? `${/[.!?]$/.test(f.message) ? ' ' : '. '}Fix: ${f.fix}` : '';
  return `${f.message}${fix}`;
}

export function scenarioProblems(
  text: string,
  errors: readonly PositionedError[],
  findings: readonly Finding[],
): Problem[] {
  const lines = new Lines(text);
  const tree = parseTree(text);
  const at = (line: number, column: number, length: number | undefined): [Place, Place] => {
    const start = lines.offset(line, column);
    const span: [number, number] = length ? [start, start + length] : (spanAt(tree, start) ?? [start, start + 1]);
    return [lines.place(span[0]), lines.place(Math.min(span[1], text.length))];
  };
  const out: Problem[] = [];
  for (const e of errors) {
    const [start, end] = at(e.line, e.column, e.length);
    out.push({ start, end, severity: 'error', message: e.detail });
  }
  for (const f of findings) {
    // A finding without a source position belongs to the whole run: pin it to the top line.
    const [start, end] = f.source
      ? at(f.source.line, f.source.column, undefined)
      : [
          { line: 0, character: 0 },
          { line: 0, character: 1 },
        ];
    out.push({ start, end, severity: f.severity, message: findingMessage(f), rule: f.rule });
  }
  return out;
}

/** Where the "Run on GPU | Simulate" lens goes: the line of the scenario's root object. */
export function scenarioLensLine(text: string): number {
  const tree = parseTree(text);
  const offset = tree?.type === 'object' ? tree.offset : 0;
  return new Lines(text).place(offset).line;
}
