// The runner process: the CLI and the extension fork it (client.ts) so that GPU work, and any
// crash or hang in the driver, stays out of their own process. It answers one request and exits.
import type { Program } from '../core/scenario/program';
import { calibrateProfile } from './calibration-runs';
import { describeFailure, requireAddon, runOnGpu } from './gpu';
import { TEST_MODE_ENV, type RunnerReply, type RunnerRequest } from './protocol';

const send = (m: RunnerReply): Promise<void> =>
  new Promise((done) => {
    if (!process.send) throw new Error('the runner must be started by its client (child_process.fork)');
    process.send(m, undefined, undefined, () => done());
  });

async function handle(req: RunnerRequest): Promise<RunnerReply> {
  const progress = (message: string, done?: number, total?: number) =>
    void send({ type: 'progress', message, done, total });
  const mode = process.env[TEST_MODE_ENV];
  if (mode) return testMode(mode, req, progress);
  switch (req.type) {
    case 'devices':
      return { type: 'result', value: requireAddon().devices() };
    case 'run': {
      progress(`running "${req.program.name}" on the GPU (${req.program.stepCount} steps)`);
      const trace = await runOnGpu(req.program, {
        device: req.device,
        onProgress: (d, t) => progress('running', d, t),
      });
      return { type: 'result', value: trace };
    }
    case 'calibrate':
      return { type: 'result', value: await calibrateProfile({ device: req.device, onProgress: (m) => progress(m) }) };
  }
}

/** Misbehaviours for the client's tests, which run where there is no GPU. */
async function testMode(mode: string, req: RunnerRequest, progress: (m: string) => void): Promise<RunnerReply> {
  progress(`test mode ${mode}`);
  if (mode === 'hang') await new Promise(() => setInterval(() => undefined, 1000));
  if (mode === 'crash') process.kill(process.pid, 'SIGKILL');
  if (mode === 'exit') process.exit(3);
  if (mode === 'step-error' && req.type === 'run') {
    const e = describeFailure(req.program as Program, {
      name: 'CUDA_ERROR_ILLEGAL_ADDRESS',
      api: 'cuLaunchKernel',
      detail: 'an illegal memory access was encountered',
      step: 1,
    });
    return { type: 'error', message: e.message, name: e.name };
  }
  throw new Error(`unknown ${TEST_MODE_ENV} mode "${mode}"`);
}

process.once('message', (req: RunnerRequest) => {
  handle(req)
    .catch((e: Error): RunnerReply => ({ type: 'error', message: e.message, name: e.name }))
    .then(send)
    .then(() => process.exit(0));
});
