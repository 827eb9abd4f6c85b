// The syncscope.userCode setting: paths added to the user's code or taken out of it, for the
// lines of captures, profiles and imported traces (core/import/python-sites.ts has the rule).
import * as vscode from 'vscode';
import { userCodeOf, type UserCode } from '../core/import/python-sites';

let warned = '';

/** The setting, parsed; undefined when empty, or when wrong (said once, as a warning). */
export function userCodeSetting(): UserCode | undefined {
  const list = vscode.workspace.getConfiguration('syncscope').get<string[]>('userCode', []);
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const parsed = userCodeOf(list.map(String));
  if (typeof parsed !== 'string') return parsed;
  if (warned !== parsed) void vscode.window.showWarningMessage(`Syncscope: syncscope.userCode: ${parsed}`);
  warned = parsed;
  return undefined;
}
