// Which executor a run uses, and what the status bar says about it. Kept free of `vscode` so the
// rules (setting x trust x what the GPU probe found) are tested directly.

export type BackendSetting = 'auto' | 'gpu' | 'simulator';

/** What probing for a GPU found. `undefined` while no probe has finished. */
export type GpuProbe = { ok: true; name: string; driver?: string } | { ok: false; reason: string };

export interface BackendChoice {
  use: 'gpu' | 'simulator';
  /** Status bar text, after the product name. */
  label: string;
  tooltip: string;
  /** Said to the user when the choice is not what the setting asked for. */
  fallback?: string;
}

export function parseBackendSetting(v: unknown): BackendSetting {
  return v === 'gpu' || v === 'simulator' ? v : 'auto';
}

export function chooseBackend(setting: BackendSetting, trusted: boolean, gpu: GpuProbe | undefined): BackendChoice {
  if (setting === 'simulator') {
    return {
      use: 'simulator',
      label: 'Simulator',
      tooltip: 'Runs are simulated (setting syncscope.backend is "simulator").',
    };
  }
  if (!trusted) {
    const why = 'running on the GPU needs a trusted workspace';
    return {
      use: 'simulator',
      label: 'Simulator (untrusted)',
      tooltip: `Runs are simulated: ${why}.`,
      fallback: setting === 'gpu' ? `Simulating instead: ${why}.` : undefined,
    };
  }
  if (gpu?.ok) {
    return {
      use: 'gpu',
      label: `GPU: ${gpu.name}`,
      tooltip: `Runs execute on ${gpu.name}${gpu.driver ? ` (driver ${gpu.driver})` : ''}.`,
    };
  }
  if (!gpu) {
    // Not probed yet: the probe starts a child process, so it happens on first need.
    return {
      use: setting === 'gpu' ? 'gpu' : 'simulator',
      label: setting === 'gpu' ? 'GPU' : 'Auto',
      tooltip: 'No GPU probe has run yet.',
    };
  }
  return {
    use: 'simulator',
    label: 'Simulator (no GPU)',
    tooltip: `Runs are simulated: ${gpu.reason}`,
    fallback: setting === 'gpu' ? `No usable GPU (${gpu.reason}); simulating instead.` : undefined,
  };
}
