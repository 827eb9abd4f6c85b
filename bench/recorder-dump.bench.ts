// Writes GPU traces of the calibration scenarios (as many runs as `syncscope calibrate` makes) and
// of every example (SYNCSCOPE_DUMP_RUNS runs each, default as many) as trace JSON into $SYNCSCOPE_DUMP
// (default ./gpu-traces), for studying the recorder and the simulator's cost model away from the
// GPU: bench/sim-vs-gpu.bench.ts compares the calibrated simulator with them.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileScenario } from '../core/scenario/parse';
import { traceToJson } from '../core/trace/json';
import type { Program } from '../core/scenario/program';
import type { Trace } from '../core/trace/model';
import { CALIBRATION_RUNS } from '../core/gpu-run/calibration';
import { runInRounds } from '../runner/calibration-runs';
import { missingDevice } from '../core/gpu-run/devices';
import { availability } from '../runner/native';
import { repoPath } from '../test/helpers/paths';

async function main() {
  const a = availability();
  if (!a.ok) {
    console.log(`skipped: ${a.reason}`);
    return;
  }
  const out = process.env.SYNCSCOPE_DUMP ?? 'gpu-traces';
  mkdirSync(out, { recursive: true });
  const dir = repoPath('examples');
  const programs: [string, Program][] = [];
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.scenario.json'))
    .sort()) {
    const program = compileScenario(readFileSync(join(dir, f), 'utf8'), f);
    const missing = missingDevice(program, a.devices);
    if (missing) console.log(`skipped ${f}: ${missing.message}`);
    else programs.push([f.replace('.scenario.json', ''), program]);
  }
  // In rounds, the calibration runs among them, as test/gpu/calibrated.test.ts runs them (runInRounds).
  const write = (name: string, run: number, t: Trace) =>
    writeFileSync(join(out, `${name}.${run}.json`), traceToJson(t));
  let calibrated = 0;
  let firsts = 0;
  await runInRounds(programs, Number(process.env.SYNCSCOPE_DUMP_RUNS ?? CALIBRATION_RUNS), {
    calibration: (cal) => {
      write('calibration', calibrated, cal.trace);
      write('calibration-blocking', calibrated++, cal.blocking);
      cal.first.forEach((t, k) => write('calibration-first', firsts + k, t));
      cal.firstTiny.forEach((t, k) => write('calibration-first-tiny', firsts + k, t));
      firsts += cal.first.length;
    },
    run: write,
  });
  console.log(`traces written to ${out}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
