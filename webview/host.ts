// The webview's only window to its host. Inside VS Code that is acquireVsCodeApi(); in a
// standalone page (the CLI's HTML export, the browser tests, the benchmark) a stand-in keeps the
// state in sessionStorage and hands posted messages to a local handler.
import type { FromWebview } from '../core/protocol';

export interface HostApi {
  postMessage(msg: FromWebview): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): HostApi;

export const inVsCode = (): boolean => typeof acquireVsCodeApi === 'function';

export function connectHost(onPost: (msg: FromWebview) => void): HostApi {
  if (inVsCode()) return acquireVsCodeApi();
  const key = 'syncscope.timeline.' + location.pathname;
  let memory: unknown;
  return {
    postMessage: onPost,
    getState: () => {
      try {
        const s = sessionStorage.getItem(key);
        return s ? JSON.parse(s) : memory;
      } catch {
        return memory; // storage is off for this origin (file:// in some browsers)
      }
    },
    setState: (state) => {
      memory = state;
      try {
        sessionStorage.setItem(key, JSON.stringify(state));
      } catch {
        /* memory only */
      }
    },
  };
}
