// Which files are scenarios, by name: one rule for the CLI and the extension. Kept apart from the
// parser so the extension can ask without loading it.

/** `*.scenario.json`, or `*.scenario.jsonc` for those who want the comment-friendly extension. */
export const isScenarioPath = (path: string): boolean => /\.scenario\.jsonc?$/i.test(path);

/** The same rule as a glob, for file searches and document selectors. */
export const SCENARIO_GLOB = '**/*.scenario.{json,jsonc}';
