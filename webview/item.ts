// One call or op of the trace, as the timeline selects, hovers and reveals it: its own file so that
// the view and the parts it draws with (the happens-before cone) can share it without importing each other.
export interface Item {
  table: 'calls' | 'ops';
  id: number;
}
