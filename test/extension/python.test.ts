// The interpreter for a profiled script: the Python extension's choice when its API answers, read
// through guards (any version, or a broken one, may be installed), else the setting, else python3.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickInterpreter, selectedInterpreter } from '../../extension/logic/python';

const api = (resolved: unknown, path: unknown = '/env/bin/python') => ({
  environments: {
    getActiveEnvironmentPath: () => ({ path }),
    resolveEnvironment: () => Promise.resolve(resolved),
  },
});

test("the Python extension's resolved executable, else its environment path", async () => {
  assert.equal(
    await selectedInterpreter(api({ executable: { uri: { fsPath: '/venv/bin/python3' } } })),
    '/venv/bin/python3',
  );
  assert.equal(await selectedInterpreter(api(undefined)), '/env/bin/python');
});

test('an API that is missing, of another shape, or that throws gives nothing', async () => {
  assert.equal(await selectedInterpreter(undefined), undefined);
  assert.equal(await selectedInterpreter({ environments: 3 }), undefined);
  assert.equal(await selectedInterpreter(api(undefined, 42)), undefined);
  const throwing = {
    environments: {
      getActiveEnvironmentPath: () => {
        throw new Error('not ready');
      },
    },
  };
  assert.equal(await selectedInterpreter(throwing), undefined);
});

test('the setting comes next, then python3', () => {
  assert.equal(pickInterpreter('/venv/bin/python3', '/usr/bin/python3.12'), '/venv/bin/python3');
  assert.equal(pickInterpreter(undefined, ' /usr/bin/python3.12 '), '/usr/bin/python3.12');
  assert.equal(pickInterpreter(undefined, ''), 'python3');
});
