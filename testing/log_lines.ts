/**
 * Reading the lines src/base/log.ts writes (`<ISO time> <level> [<scope>] <message> <fields as JSON>`) back
 * out of a process's stderr: tests and the benchmark read what a server says of itself there.
 *
 * @module
 */

/** One log line, parsed. */
export interface LogLine {
  /** Its wall-clock stamp (ms since the epoch, millisecond resolution). */
  at: number;
  level: string;
  scope: string;
  message: string;
  /** Its fields ({} when it has none). */
  fields: Record<string, unknown>;
}

const LINE = /^(\S+) (\w+) \[([^\]]+)\] (.*?)(?: (\{.*\}))?$/;

/** Every log line of `text` whose message is exactly `message`, in order (other lines are skipped). */
export function logLines(text: string, message: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of text.split("\n")) {
    const m = LINE.exec(line);
    if (m === null || m[4] !== message) continue;
    out.push({
      at: Date.parse(m[1]!),
      level: m[2]!,
      scope: m[3]!,
      message: m[4],
      fields: m[5] === undefined ? {} : JSON.parse(m[5]) as Record<string, unknown>,
    });
  }
  return out;
}

/** The first log line of `text` with `message`; throws, quoting the text, when there is none. */
export function logLine(text: string, message: string): LogLine {
  const [first] = logLines(text, message);
  if (first === undefined) throw new Error(`no log line "${message}" in:\n${text}`);
  return first;
}
