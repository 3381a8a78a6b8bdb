/**
 * A logger for tests that records the messages of its warnings (its children's too) and prints
 * nothing: a warning is the observable event some store-fault paths leave.
 *
 * @module
 */

import type { Logger } from "../src/base/log.ts";

/** A logger that pushes each warning's message onto `warnings`. */
export function recordingLogger(warnings: string[]): Logger {
  const log: Logger = {
    debug: () => {},
    info: () => {},
    warn: (message) => void warnings.push(message),
    error: () => {},
    child: () => log,
  };
  return log;
}
