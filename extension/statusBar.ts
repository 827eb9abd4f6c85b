// The status bar item: which backend runs will use, and the GPU's name when there is one.
import * as vscode from 'vscode';
import { BackendSetting, chooseBackend, GpuProbe, parseBackendSetting } from './logic/backend';

export class BackendStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('syncscope.backend', vscode.StatusBarAlignment.Right, 100);
  private probe?: GpuProbe;

  constructor() {
    this.item.name = 'Syncscope Backend';
    this.item.command = 'syncscope.selectBackend';
    this.update();
    this.item.show();
  }

  setProbe(probe: GpuProbe): void {
    this.probe = probe;
    this.update();
  }

  update(): void {
    const setting: BackendSetting = parseBackendSetting(vscode.workspace.getConfiguration('syncscope').get('backend'));
    const choice = chooseBackend(setting, vscode.workspace.isTrusted, this.probe);
    this.item.text = `$(${choice.use === 'gpu' ? 'chip' : 'beaker'}) ${choice.label}`;
    this.item.tooltip = `Syncscope: ${choice.tooltip} Click to choose the backend.`;
  }

  dispose(): void {
    this.item.dispose();
  }
}
