// A readable short form of a long kernel name, for the timeline's lanes and the waits table; the
// full name stays in the model, the details pane and `report --json`. The rules:
// - A C++ name (templated ATen, CUTLASS, Triton wrappers) loses its return type, parameter list,
//   ROCm's " [clone .kd]" suffix and namespaces. Of its template arguments only the first that names
//   an operation stays (a functor's name, without `CUDAFunctor_`, `CUDAFunctorOnSelf_` or a `Functor`/`Func` suffix; never
//   a number, a scalar type, a std:: type or a lambda): `vectorized_elementwise_kernel<add>`.
// - A vendor library name made of `_`-joined tokens (cuBLAS's `sm80_xmma_gemm_f32f32_..._nn_n_tilesize...`)
//   keeps its words, its distinct data types and its layout (`xmma_gemm f32 tf32 nn`); the
//   architecture, tile and warp sizes, stages, alignments and library tags go.
// - Anything shorter than SHORT_ENOUGH characters is already readable and stays as it is.

const SHORT_ENOUGH = 32;
const TUNING =
  /^(sm\d+|\d+x?|.*\d+x\d+.*|tilesize.*|stage\d*|warpsize.*|warpgroupsize.*|align[a-z]?\d*|cluster.*|execute|kernel|cublas(lt)?|ffma|hmma|imma|segment|off|on|[a-z])$/i;
const TYPES = /^((tf|bf|f|s|u|i|e4m3|e5m2)\d+)+$/i;
const LAYOUT = /^[nt]{2}$/;
const SCALARS =
  /^(bool|char|short|int|long|unsigned|signed|float|double|half|Half|BFloat16|c10|std|at|void|size_t|int\d+_t|uint\d+_t)$/;

export function shortKernelName(name: string): string {
  if (name.length < SHORT_ENOUGH) return name;
  if (/[<:( ]/.test(name)) return shortCpp(name);
  if (name.includes('_')) return shortTokens(name);
  return name;
}

/** Splits `text` at top-level occurrences of `sep` (outside <>, (), {} and []; an opening `sep` itself splits). */
function splitTop(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (depth === 0 && text.startsWith(sep, i)) {
      parts.push(text.slice(from, i));
      from = i + sep.length;
      i += sep.length - 1;
    } else if ('<({['.includes(ch)) depth++;
    else if ('>)}]'.includes(ch)) depth = Math.max(0, depth - 1);
  }
  parts.push(text.slice(from));
  return parts;
}

/** Where the top-level template argument list of `head` begins, or -1. */
const templateStart = (head: string): number => {
  const parts = splitTop(head, '<');
  return parts.length > 1 ? parts[0].length : -1;
};

/** The last `::` component, outside template arguments. */
const unqualified = (text: string): string => {
  const parts = splitTop(text, '::');
  return parts[parts.length - 1].trim();
};

function shortCpp(full: string): string {
  let head = full.replace(/\s*\[clone [^\]]*\]\s*$/, '').replace(/\(anonymous namespace\)/g, '{anonymous}');
  // Return type: the first top-level word when more than one remains; parameter list: from the first top-level "(".
  head = splitTop(head, '(')[0].trim();
  const words = splitTop(head, ' ').filter(Boolean);
  head = words[words.length - 1] ?? head;
  head = unqualified(head);
  const at = templateStart(head);
  if (at < 0) return head;
  const base = head.slice(0, at);
  const args = splitTop(head.slice(at + 1, head.lastIndexOf('>')), ',').map((a) => a.trim());
  const named = args.map(operationOf).find((a) => a !== undefined);
  return named ? `${base}<${named}>` : `${base}<…>`;
}

/** What a template argument names, when it names an operation. */
function operationOf(arg: string): string | undefined {
  if (!arg || /^[-\d]/.test(arg) || arg.startsWith('{') || /^(true|false)$/.test(arg) || arg.startsWith('std::'))
    return undefined;
  const t = templateStart(arg);
  const bare = unqualified(t < 0 ? arg : arg.slice(0, t)).replace(/[*&\s]|const/g, '');
  if (!bare || SCALARS.test(bare) || !/^[A-Za-z_]\w*$/.test(bare)) return undefined;
  const op = bare.replace(/^CUDAFunctor(OnSelf)?_/, '').replace(/_?(Functor|Func)$/, '');
  return shortKernelName(op || bare);
}

function shortTokens(name: string): string {
  const words: string[] = [];
  const types: string[] = [];
  const layouts: string[] = [];
  for (const tok of name.split('_').filter(Boolean)) {
    if (TYPES.test(tok)) {
      for (const ty of tok.match(/(tf|bf|f|s|u|i|e4m3|e5m2)\d+/gi) ?? []) if (!types.includes(ty)) types.push(ty);
    } else if (LAYOUT.test(tok)) layouts.push(tok);
    else if (!TUNING.test(tok) && !types.length) words.push(tok);
  }
  if (!words.length) return name;
  return [words.join('_'), ...types, ...layouts].join(' ');
}
