/**
 * The blocking commands' progress on stderr: one rewritten line on a terminal, plain
 * deduplicated lines otherwise (stdout carries only the answer).
 *
 * @module
 */

/** The spinner frames shown before a live line. */
export const SPINNER = ["|", "/", "-", "\\"];

/** stderr output: one rewritten line on a terminal, plain deduplicated lines otherwise. */
export class StatusLine {
  readonly tty: boolean;
  #last = "";
  #shown = false;
  readonly #encoder = new TextEncoder();

  constructor() {
    let tty = false;
    try {
      tty = Deno.stderr.isTerminal();
    } catch {
      tty = false;
    }
    this.tty = tty;
  }

  /** Shows `text` (on a terminal, `live` is appended: it may change every tick). */
  show(text: string, live = ""): void {
    if (this.tty) {
      const columns = terminalColumns();
      const line = `${text}${live}`.slice(0, Math.max(10, columns - 1));
      this.#write(`\r\x1b[2K${line}`);
      this.#shown = true;
    } else if (text !== this.#last) {
      this.#write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
    }
    this.#last = text;
  }

  /** Clears the live line (terminal only). */
  done(): void {
    if (this.tty && this.#shown) this.#write("\r\x1b[2K");
    this.#shown = false;
  }

  #write(text: string): void {
    try {
      Deno.stderr.writeSync(this.#encoder.encode(text));
    } catch {
      // stderr closed: progress is advisory.
    }
  }
}

function terminalColumns(): number {
  try {
    const columns = Deno.consoleSize().columns;
    return columns >= 20 ? columns : 100;
  } catch {
    return 100;
  }
}

/**
 * A text progress bar: `[####----]` (full once `done` reaches `total`, even past it), `options.width`
 * characters between the brackets (default 24).
 */
export function bar(done: number, total: number, options: { width?: number } = {}): string {
  const { width = 24 } = options;
  const filled = total <= 0 ? 0 : Math.min(width, Math.max(0, Math.round((done / total) * width)));
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}
