// Calls torch.compile made while it compiled (TorchDynamo's frame conversion, Inductor's passes):
// work that runs once per compilation, inside the first call of the compiled function, and none of
// the program's loop. A capture names the Python frames in the call's context and stack, a profile
// with stacks in the stack; a trace with neither cannot tell, and nothing is said of it.
import { callSite, str, type Trace } from '../trace/model';

/** TorchDynamo's frame conversion: every compilation runs under it, and no compiled code's replay. */
const COMPILING_FILE = /torch[\\/]_dynamo[\\/]convert_frame\.py$/;
const COMPILING_FRAME = /\bConvertFrame(Assert)?\.__call__\b|\bconvert_frame\b/;

/** Per trace, what each context string and each site said, found once: a loop meets the same few. */
const known = new WeakMap<Trace, { contexts: Map<number, boolean>; sites: Map<number, boolean> }>();

/** Whether call `i` was made while torch.compile compiled, as its Python frames say. */
export function madeCompiling(t: Trace, i: number): boolean {
  const seen = known.get(t) ?? known.set(t, { contexts: new Map(), sites: new Map() }).get(t)!;
  const context = t.calls.context[i];
  if (context > 0) {
    let compiling = seen.contexts.get(context);
    if (compiling === undefined) seen.contexts.set(context, (compiling = COMPILING_FRAME.test(str(t, context))));
    if (compiling) return true;
  }
  const site = t.calls.site[i];
  if (site <= 0) return false;
  let compiling = seen.sites.get(site);
  if (compiling === undefined) {
    compiling = (callSite(t, i)?.stack ?? []).some((f) => COMPILING_FILE.test(f.file));
    seen.sites.set(site, compiling);
  }
  return compiling;
}
