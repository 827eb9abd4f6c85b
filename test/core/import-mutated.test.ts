// Recorded PyTorch traces, mutated in many small ways (fields dropped, numbers negated, made
// non-finite or huge, types swapped, events duplicated): each one is either rejected with a message
// that says what is wrong and what is valid, at a line and column where the text has one, or
// imported into a trace whose `report --json` meets media/schema/report.schema.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { analyze } from '../../core/analyze';
import { importPytorch, ImportError } from '../../core/import';
import { buildReport } from '../../core/report';
import { validate } from '../helpers/json-schema';
import { repoPath } from '../helpers/paths';
import { seededRandom } from '../helpers/random';

type Json = Record<string, unknown>;
const FIXTURES = ['seed_synchronize.json', 'sync_seeds.json', 'sync_overlap.json'];
const MUTANTS_PER_FIXTURE = 80;
/** Stands for a number JSON.stringify cannot write; replaced by `1e400`-like text afterwards. */
const RAW = '\u0000raw:';

const schema = JSON.parse(readFileSync(repoPath('media/schema/report.schema.json'), 'utf8'));

const NUMBERS = [-1, 0, -0.5, 1e15, 1e300, -1e300, 2 ** 53, `${RAW}1e400`, `${RAW}-1e400`, `${RAW}-0`];
const ODD_VALUES: unknown[] = ['7', '', null, true, [], {}, [1, 2], { a: 1 }, -1, 1e308];
const FIELDS = ['ts', 'dur', 'ph', 'cat', 'name', 'pid', 'tid', 'args'];
const ARGS = [
  'correlation',
  'stream',
  'device',
  'cuda_sync_kind',
  'wait_on_cuda_event_record_corr_id',
  'wait_on_stream',
];

function mutate(events: Json[], rnd: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  // Mostly the complete events ('X') the importer reads, and among them often the waits.
  const complete = events.filter((e) => e.ph === 'X');
  const syncs = complete.filter((e) => e.cat === 'cuda_sync' || /Synchronize/.test(String(e.name)));
  const edits = 1 + Math.floor(rnd() * 3);
  for (let k = 0; k < edits; k++) {
    const r = rnd();
    const e = r < 0.3 && syncs.length ? pick(syncs) : r < 0.9 ? pick(complete) : pick(events);
    const args = (typeof e.args === 'object' && e.args !== null ? e.args : (e.args = {})) as Json;
    const how = Math.floor(rnd() * 7);
    if (how === 0) delete e[pick(FIELDS)];
    else if (how === 1) delete args[pick(ARGS)];
    else if (how === 2) e[pick(['ts', 'dur'])] = pick(NUMBERS);
    else if (how === 3) args[pick(ARGS)] = pick(NUMBERS);
    else if (how === 4) (rnd() < 0.5 ? e : args)[pick(rnd() < 0.5 ? FIELDS : ARGS)] = pick(ODD_VALUES);
    else if (how === 5) events.splice(events.indexOf(e), 0, structuredClone(e));
    else for (const key of ['ts', 'dur']) if (typeof e[key] === 'number') e[key] = -(e[key] as number);
  }
  const text = JSON.stringify({ traceEvents: events }, null, 1).replace(
    new RegExp(`"${RAW.replace('\u0000', '\\\\u0000')}([^"]*)"`, 'g'),
    '$1',
  );
  // Sometimes the text itself: cut short, or a stray character where JSON allows none.
  const at = Math.floor(rnd() * text.length);
  const r = rnd();
  return r < 0.05
    ? text.slice(0, at)
    : r < 0.1
      ? text.slice(0, at) + pick([',', '}', ']', '"', 'x']) + text.slice(at)
      : text;
}

/** 1-based line and byte column of an offset in ASCII text. */
const lineColumn = (text: string, at: number) => [
  text.slice(0, at).split('\n').length,
  at - text.lastIndexOf('\n', at - 1),
];

test('every mutated PyTorch trace is rejected with a clear message or reports within the schema', () => {
  const rnd = seededRandom(28);
  let accepted = 0;
  let rejected = 0;
  for (const name of FIXTURES) {
    const original = (JSON.parse(readFileSync(repoPath('test/fixtures/torch', name), 'utf8')) as Json)
      .traceEvents as Json[];
    for (let m = 0; m < MUTANTS_PER_FIXTURE; m++) {
      const text = mutate(structuredClone(original), rnd);
      let report: unknown;
      try {
        const trace = importPytorch(text);
        report = JSON.parse(JSON.stringify(buildReport(trace, analyze(trace))));
      } catch (e) {
        assert.ok(e instanceof ImportError, `${name} #${m}: ${(e as Error).stack}`);
        assert.match(e.message, /^(\d+:\d+: )?[^;]+; .+$/, `${name} #${m}`);
        if (e.offset !== undefined) {
          assert.deepEqual([e.line, e.column], lineColumn(text, e.offset), `${name} #${m}: ${e.message}`);
          assert.ok(e.message.startsWith(`${e.line}:${e.column}: `), e.message);
        }
        rejected++;
        continue;
      }
      accepted++;
      assert.deepEqual(validate(report, schema), [], `${name} #${m}`);
    }
  }
  assert.ok(accepted > rejected && rejected > 0, `${accepted} accepted, ${rejected} rejected`);
});
