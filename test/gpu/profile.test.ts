// `syncscope profile` for real: torch.profiler on the GPU, through the launcher, imported and
// reported. The waits must carry the program's own lines (test/gpu/torch/programs/side_stream_sync.py:
// event.synchronize at line 18, .item() at 19, .cpu() at 20). Fails, not skips, where a GPU is here.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli';
import { repoPath } from '../helpers/paths';
import { skipUnlessNoDevice } from './gpu';

interface Wait {
  kind: string;
  source?: { file?: string; line?: number; function?: string };
}

test(
  'profile: the waits of a PyTorch program carry its own lines',
  { skip: skipUnlessNoDevice('no NVIDIA GPU'), timeout: 300_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'syncscope-profile-gpu-'));
    try {
      const program = repoPath('test/gpu/torch/programs/side_stream_sync.py');
      const out = join(dir, 'side.json.gz');
      const r = await runCli(['profile', '--json', '-o', out, '--', process.env.PYTHON ?? 'python3', program]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /profiler trace written to /);
      const waits = (JSON.parse(r.stdout) as { waits: Wait[] }).waits;
      const lines = waits.filter((w) => w.source?.file === program).map((w) => `${w.kind}@${w.source?.line}`);
      t.diagnostic(lines.join(' '));
      const count = (kind: string, line: number) => lines.filter((l) => l === `${kind}@${line}`).length;
      assert.equal(count('eventSync', 18), 3, 'every event.synchronize(), through its wrapper');
      // .item() and .cpu() are learnt from the first iteration's warning: marked in the two after it.
      assert.ok(count('streamSync', 19) >= 2, '.item()');
      assert.ok(lines.filter((l) => l.endsWith('@20')).length >= 2, '.cpu()');
      const programLines = new Set([9, 18, 19, 20, 21]);
      for (const w of waits.filter((x) => x.source?.file === program))
        assert.ok(
          programLines.has(w.source!.line!),
          `a wait at line ${w.source?.line}, where the program does not sync`,
        );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
