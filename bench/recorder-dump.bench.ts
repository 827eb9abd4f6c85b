// Writes GPU traces of the calibration scenarios (as many runs as `syncscope calibrate` makes) and
// of every example (SYNCSCOPE_DUMP_RUNS runs each, default 5) as trace JSON into $SYNCSCOPE_DUMP
// (default ./gpu-traces), for studying the recorder and the simulator's cost model away from the
// GPU: bench/sim-vs-gpu.bench.ts compares the calibrated simulator with them.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileScenario } from '../core/scenario/parse';
import { traceToJson } from '../core/trace/json';
import { BLOCKING_CALIBRATION_SCENARIO, CALIBRATION_RUNS, CALIBRATION_SCENARIO } from '../runner/calibrate';
import { runOnGpu } from '../runner/gpu';
import { missingDevice } from '../runner/devices';
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
  const cal = compileScenario(JSON.stringify(CALIBRATION_SCENARIO), 'calibration.scenario.json');
  const blocking = compileScenario(JSON.stringify(BLOCKING_CALIBRATION_SCENARIO), 'calibration-blocking.scenario.json');
  for (let run = 0; run < CALIBRATION_RUNS; run++) {
    writeFileSync(join(out, `calibration.${run}.json`), traceToJson(await runOnGpu(cal)));
    writeFileSync(join(out, `calibration-blocking.${run}.json`), traceToJson(await runOnGpu(blocking)));
  }
  const dir = repoPath('examples');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.scenario.json')).sort()) {
    const program = compileScenario(readFileSync(join(dir, f), 'utf8'), f);
    const missing = missingDevice(program, a.devices);
    if (missing) {
      console.log(`skipped ${f}: ${missing.message}`);
      continue;
    }
    for (let run = 0; run < Number(process.env.SYNCSCOPE_DUMP_RUNS ?? 5); run++) writeFileSync(join(out, `${f.replace('.scenario.json', '')}.${run}.json`), traceToJson(await runOnGpu(program)));
  }
  console.log(`traces written to ${out}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
