// The simulator's agenda decides the order of everything at equal times, so the whole run's
// determinism rests on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agenda, GPU, HOST } from '../../core/simulate/queue';

test('the agenda pops by time, GPU before host at equal times, then in the order pushed, with its payloads', () => {
  const agenda = new Agenda();
  const pushed: { time: number; cls: number; kind: number; a: number; b: number; seq: number }[] = [];
  let x = 12345;
  const rand = (n: number) => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x % n;
  };
  const push = () => {
    // Few distinct times, so that ties are common; times past 2^31 ns, as long runs reach.
    const e = {
      time: 3e9 + rand(50) * 1000,
      cls: rand(2) ? GPU : HOST,
      kind: rand(4),
      a: rand(1e6),
      b: rand(5000),
      seq: pushed.length,
    };
    pushed.push(e);
    agenda.push(e.time, e.cls, e.kind, e.a, e.b);
  };
  const popped: typeof pushed = [];
  const pop = () => {
    const e = { time: agenda.topTime(), kind: agenda.topKind(), a: agenda.topA(), b: agenda.topB() };
    agenda.pop();
    return e;
  };
  // Interleave pushes and pops, and grow well past the initial capacity.
  for (let i = 0; i < 3000; i++) push();
  for (let i = 0; i < 1000; i++) popped.push(pop() as (typeof pushed)[number]);
  for (let i = 0; i < 2000; i++) push();
  while (agenda.size > 0) popped.push(pop() as (typeof pushed)[number]);

  assert.equal(popped.length, 5000);
  // The first 1000 pops saw only the first 3000 entries.
  const order = (list: typeof pushed) => [...list].sort((p, q) => p.time - q.time || p.cls - q.cls || p.seq - q.seq);
  const first = order(pushed.slice(0, 3000));
  const rest = order([...first.slice(1000), ...pushed.slice(3000)]);
  const expected = [...first.slice(0, 1000), ...rest].map(({ time, kind, a, b }) => ({ time, kind, a, b }));
  assert.deepEqual(
    popped.map(({ time, kind, a, b }) => ({ time, kind, a, b })),
    expected,
  );
});
