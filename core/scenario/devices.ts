// Device numbers in a scenario (S21): reading them with positioned errors, the per-device settings
// under `devices`, and the list of devices a compiled Program describes.
import type { Node } from './jsonc';
import { LIMITS, PER_DEVICE_KEYS, SCHEDULES } from './kinds';
import type { DeviceDecl, Pos, Schedule } from './program';
import type { Prop, Reader } from './read';

const RANGE = `from 0 to ${LIMITS.deviceHighest}`;

/** The number that "cuda:1", "gpu1" or "1" stand for, as PyTorch and people write devices. */
function meant(text: string): number | undefined {
  const m = /^\s*(?:cuda\s*:|gpu|device|dev)?\s*(\d+)\s*$/i.exec(text);
  const n = m ? Number(m[1]) : NaN;
  return n <= LIMITS.deviceHighest ? n : undefined;
}

/** A device number at `node`, or undefined after reporting what is wrong there. */
export function deviceNumber(read: Reader, node: Node, label: string): number | undefined {
  if (node.type === 'number') {
    const n = node.value as number;
    if (Number.isInteger(n) && n >= 0 && n <= LIMITS.deviceHighest) return n;
    read.report.node(node, `${label}: expected a device number ${RANGE}, got ${n}`);
    return undefined;
  }
  const hint = node.type === 'string' ? meant(String(node.value)) : undefined;
  const got = node.type === 'string' ? `"${String(node.value)}"` : node.type;
  read.report.node(
    node,
    `${label}: expected a device number ${RANGE}, as in 1, got ${got}${hint === undefined ? '' : `; did you mean ${hint}?`}`,
  );
  return undefined;
}

/** A device's own settings from `devices`, and the key that named it. */
export interface PerDevice {
  schedule?: Schedule;
  key: Node;
}

/** `"devices": { "1": { "schedule": "blockingSync" } }`: settings by device number. */
export function readPerDevice(read: Reader, p: Prop | undefined): Map<number, PerDevice> {
  const out = new Map<number, PerDevice>();
  for (const e of (p && read.entries(p.value, '"devices"')) ?? []) {
    const n = /^\d+$/.test(e.name) ? Number(e.name) : NaN;
    if (!(n <= LIMITS.deviceHighest)) {
      const hint = meant(e.name);
      read.report.node(
        e.key,
        `"devices": a key is a device number ${RANGE}, got "${e.name}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`,
      );
      continue;
    }
    const props = read.props(e.value, PER_DEVICE_KEYS, `device ${n}`, `device ${n}`);
    const schedule = props?.get('schedule');
    out.set(n, {
      key: e.key,
      ...(schedule ? { schedule: read.oneOf<Schedule>(schedule, SCHEDULES, 'schedule') ?? 'auto' } : {}),
    });
  }
  return out;
}

/** The used device nearest to `n`: what a device number nothing uses was most likely meant to be. */
export function nearestUsed(n: number, used: Iterable<number>): number {
  let best = 0;
  for (const u of used)
    if (Math.abs(u - n) < Math.abs(best - n) || (Math.abs(u - n) === Math.abs(best - n) && u < best)) best = u;
  return best;
}

export const usedList = (used: Set<number>): string => [...used].sort((a, b) => a - b).join(', ');

/** Devices 0 to the highest used one: each with its schedule, whether it is used, and where it first appears. */
export function deviceList(
  used: Map<number, Pos>,
  perDevice: Map<number, PerDevice>,
  schedule: Schedule,
  start: Pos,
): DeviceDecl[] {
  let highest = 0;
  for (const d of used.keys()) highest = Math.max(highest, d);
  return Array.from({ length: highest + 1 }, (_, id) => ({
    id,
    schedule: perDevice.get(id)?.schedule ?? schedule,
    used: id === 0 || used.has(id),
    pos: used.get(id) ?? start,
  }));
}
