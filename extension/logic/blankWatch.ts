// Browser-hosted VS Code (code-server) loads every webview through one service worker. When two
// webviews are restored at the same moment, one of them can wait for that worker forever: its
// page never loads and the panel stays blank. Setting its html again does not help (the new
// content waits on the same promise); only a new webview does. This decides when a webview is in
// that state: shown, and silent since it was created, for longer than a page takes to load.
// Once its page has said "ready" it is never watched again.

/** How long a shown page may take to say "ready": loading the inlined bundle takes well under 2 s. */
export const BLANK_LIMIT_MS = 8000;
/** After this many blank webviews in a row the last one is left as it is (the log says why). */
export const BLANK_ATTEMPTS = 3;
/**
 * Watches made one after another (panels restored together) end this far apart, so that their
 * replacements are not created at the same moment and do not meet in the same race again.
 */
export const BLANK_STAGGER_MS = 1500;
const STAGGER_SLOTS = 4;
let made = 0;

export class BlankWatch {
  private timer?: ReturnType<typeof setTimeout>;
  private done = false;
  /** Its place among watches made together (see BLANK_STAGGER_MS). */
  private readonly slot = made++ % STAGGER_SLOTS;

  /** `attempt` counts the webviews before this one that stayed blank: each new one is given longer. */
  constructor(
    private readonly onBlank: (retry: boolean) => void,
    readonly attempt = 0,
  ) {}

  get limitMs(): number {
    return BLANK_LIMIT_MS * (this.attempt + 1) + this.slot * BLANK_STAGGER_MS;
  }

  /** The panel was shown or hidden. A hidden webview has no page to wait for. */
  visible(shown: boolean): void {
    if (this.done) return;
    if (!shown) {
      this.stop();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.done = true;
        this.onBlank(this.attempt + 1 < BLANK_ATTEMPTS);
      }, this.limitMs);
    }
  }

  /** The page loaded and said so. */
  ready(): void {
    this.done = true;
    this.stop();
  }

  dispose(): void {
    this.ready();
  }

  private stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
