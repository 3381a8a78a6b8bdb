/**
 * Logging to stderr only: stdout belongs to the MCP protocol. Level from `LONGCALL_LOG`
 * (read by cli/ and passed in). Never log secrets: callers pass structured fields and
 * {@linkcode redact} scrubs anything token-like.
 *
 * @module
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const ORDER: Record<LogLevel, number> = {
  debug: 10,
  info: 20,
  warn: 30,
  error: 40,
  silent: 100,
};

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

const TOKEN_PATTERN = /\b(gh[pousr]_[A-Za-z0-9_]{10,}|github_pat_[A-Za-z0-9_]{10,}|Bearer\s+\S+)/g;

/** Replaces token-shaped substrings. */
export function redact(text: string): string {
  return text.replace(TOKEN_PATTERN, "[redacted]");
}

/** Whether `value` names a level. */
export function isLogLevel(value: string): value is LogLevel {
  return Object.hasOwn(ORDER, value);
}

/** Parses a level name; unknown names fall back to `info`. */
export function parseLogLevel(value: string | undefined): LogLevel {
  // Own keys only: `"toString" in ORDER` is true through Object.prototype.
  return value !== undefined && Object.hasOwn(ORDER, value) ? value as LogLevel : "info";
}

/** How a logger names its records and where it writes them. */
export interface LoggerOptions {
  /** The scope shown in brackets on each line (default `longcall`); a child appends `:scope` to it. */
  scope?: string;
  /** Writes one finished line (default: stderr). */
  write?: (line: string) => void;
}

/** A logger writing one line per record at or above `level`, to stderr unless `options.write` says otherwise. */
export function createLogger(level: LogLevel = "info", options: LoggerOptions = {}): Logger {
  const { scope = "longcall", write = (line: string) => console.error(line) } = options;
  /** The record writer of one level (`at`): nothing below the logger's level. */
  const emitter = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const extra = fields === undefined ? "" : " " + JSON.stringify(fields);
    write(
      redact(`${new Date().toISOString()} ${at} [${scope}] ${message}${extra}`),
    );
  };
  return {
    debug: emitter("debug"),
    info: emitter("info"),
    warn: emitter("warn"),
    error: emitter("error"),
    child: (s) => createLogger(level, { scope: `${scope}:${s}`, write }),
  };
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = createLogger("silent");
