// The what-if commands' ids, for the trace editor's buttons (kept apart from whatifCommand.ts, which needs the editor).
export const SIMULATE_FIX = 'syncscope.simulateFix';
export const OPEN_AS_SCENARIO = 'syncscope.openAsScenario';
