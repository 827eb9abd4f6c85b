// The scenario made from a trace, two ways with one layout: as text (JSON with comments, one step a
// line, each step commented with where it came from) for the user who asks to see or edit it, and as
// the tree of values that the scenario compiler checks (core/scenario/tree.ts), for the replay and the
// what-if, which need no text. Each tree node is placed at the line and column the text has it on, so
// both compile to the same program.
import type { Node } from '../scenario/jsonc';
import { arrayNode, at, objectNode, property, valueNode } from '../scenario/tree';
import { foldRepeats, type EmittedStep, type Item } from './repeat';

export interface ScenarioParts {
  name: string;
  /** What made the trace (its meta.source). */
  source: string;
  streams: Map<string, object>;
  events: Set<string>;
  buffers: Map<string, object>;
  threads: Map<string, EmittedStep[]>;
  /** Comment lines under the header: what the declarations hold that the trace did not state. */
  notes?: string[];
}

/** `repeat: false` keeps identical iterations unrolled. */
export interface EmitOptions {
  repeat?: boolean;
}

const declarations = (p: ScenarioParts): [string, Record<string, object>][] =>
  (
    [
      ['streams', Object.fromEntries(p.streams)],
      ['events', Object.fromEntries([...p.events].map((k) => [k, {}]))],
      ['buffers', Object.fromEntries(p.buffers)],
    ] as [string, Record<string, object>][]
  ).filter(([, m]) => Object.keys(m).length > 0);

const itemsOf = (steps: EmittedStep[], o: EmitOptions): Item[] =>
  o.repeat === false ? steps.map((step) => ({ step })) : foldRepeats(steps);

const isReal = (s: EmittedStep): boolean => Object.keys(s.step).length > 0;

const repeatNote = (count: number) => ` // ${count} identical iterations`;

export function scenarioText(p: ScenarioParts, o: EmitOptions = {}): string {
  let lines: string[] = [
    '{',
    `  "name": ${JSON.stringify(p.name)},`,
    `  // made from a ${p.source} trace; kernel times are measured (with the time each started late), less the profile's kernel overhead; host gaps are hostWork`,
    ...(p.notes ?? []).map((n) => `  // ${n.replace(/[\r\n]/g, ' ')}`),
  ];
  for (const [key, m] of declarations(p)) lines.push(`  "${key}": ${JSON.stringify(m)},`);
  const body = (items: Item[], indent: string): string[] => {
    let out: string[] = [];
    for (const it of items) {
      if ('repeat' in it) {
        // concat, not a spread: a long trace has more steps than a call may take arguments.
        out.push(`${indent}{ "repeat": ${it.repeat}, "steps": [${repeatNote(it.repeat)}`);
        out = out.concat(body(it.body, `${indent}  `));
        out.push(`${indent}] },`);
        continue;
      }
      const s = it.step;
      out.push(
        (isReal(s) ? `${indent}${JSON.stringify(s.step)},` : `${indent}//`) +
          (s.note ? ` // ${s.note.replace(/[\r\n]/g, ' ')}` : ''),
      );
    }
    return out;
  };
  const names = [...p.threads.keys()];
  if (names.length === 1) {
    lines = lines.concat(['  "steps": ['], body(itemsOf(p.threads.get(names[0])!, o), '    '), ['  ]']);
  } else {
    lines.push('  "threads": {');
    names.forEach((n, k) => {
      lines = lines.concat([`    ${JSON.stringify(n)}: [`], body(itemsOf(p.threads.get(n)!, o), '      '), [
        `    ]${k < names.length - 1 ? ',' : ''}`,
      ]);
    });
    lines.push('  }');
  }
  lines.push('}', '');
  return lines.join('\n');
}

/** The tree the text above parses to, each node placed where the text has it (inside a step, at the step). */
export function scenarioTree(p: ScenarioParts, o: EmitOptions = {}): Node {
  let line = 2;
  const top: Node[] = [property('name', at(line, 3), valueNode(p.name, at(line, 11)))];
  line += 2 + (p.notes?.length ?? 0);
  for (const [key, m] of declarations(p)) {
    // `  "key": {"a":{...},"b":{...}},`: each name's column, as JSON.stringify writes the line.
    let column = 3 + `"${key}": `.length;
    const valueAt = at(line, column);
    column++;
    const props: Node[] = [];
    for (const [name, v] of Object.entries(m)) {
      const quoted = JSON.stringify(name);
      const value = JSON.stringify(v);
      props.push(property(name, at(line, column), valueNode(v, at(line, column + quoted.length + 1))));
      column += quoted.length + 1 + value.length + 1;
    }
    top.push(property(key, at(line, 3), objectNode(valueAt, props)));
    line++;
  }
  const body = (items: Item[], column: number): Node[] => {
    const out: Node[] = [];
    for (const it of items) {
      const here = at(line++, column);
      if ('repeat' in it) {
        const steps = body(it.body, column + 2);
        line++;
        out.push(
          objectNode(here, [
            property('repeat', here, valueNode(it.repeat, here)),
            property('steps', here, arrayNode(here, steps)),
          ]),
        );
      } else if (isReal(it.step)) out.push(valueNode(it.step.step, here));
    }
    return out;
  };
  const names = [...p.threads.keys()];
  if (names.length === 1) {
    const key = at(line++, 3);
    top.push(property('steps', key, arrayNode(key, body(itemsOf(p.threads.get(names[0])!, o), 5))));
  } else {
    const key = at(line++, 3);
    const threads = names.map((n) => {
      const k = at(line++, 5);
      const steps = body(itemsOf(p.threads.get(n)!, o), 7);
      line++;
      return property(n, k, arrayNode(k, steps));
    });
    top.push(property('threads', key, objectNode(key, threads)));
  }
  return objectNode(at(1, 1), top);
}
