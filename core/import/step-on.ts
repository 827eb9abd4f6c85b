// What ends a profiled step where the script has no optimizer (`profile --step-on`): each return from
// the user's function of that name, or each start of the user's line FILE:LINE. The launcher
// (python/syncscope_profile.py, StepOn) applies it; every front end checks it with this one rule.

/** A function name (train_step, Trainer.step) or a line (train.py:42). */
export const STEP_ON = /^[A-Za-z_][\w.]*$|^.+:\d+$/;

export const STEP_ON_HELP =
  "what ends a step instead of the optimizer's step: each return from your function WHAT (name or Class.method), or each start of line WHAT (file.py:LINE)";

/** Why `text` is not a --step-on value; undefined where it is one. */
export const stepOnError = (text: string): string | undefined =>
  STEP_ON.test(text)
    ? undefined
    : `--step-on takes a function (train_step, Trainer.step) or a line (train.py:42), not "${text}"`;
