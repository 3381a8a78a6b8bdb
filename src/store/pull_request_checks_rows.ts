/**
 * Pull request checks rows: the SQL of the `pull_request_checks` table, the last complete
 * checks observation per pull request (written by the watcher). A write is one
 * `BEGIN IMMEDIATE` transaction (through {@linkcode Connection.write}); an older observation
 * never replaces a newer one.
 *
 * @module
 */

import { assert } from "../base/errors.ts";
import { STORE_FAULT_RETRY_MS_EXECUTION, WATCH_CHECKS_MAX } from "../base/limits.ts";
import { isCommitSha } from "../base/names.ts";
import { num, type Raw, requireCount, requireRepository, requireTime, str } from "./corpus_columns.ts";
import type { PullRequestChecksObservation, PullRequestChecksRow, ThreadKey } from "./corpus_types.ts";
import type { Connection } from "./tx.ts";

const PUT_SQL = `
INSERT INTO pull_request_checks (repository, number, head_sha, outcome, signature, checks, observed_at)
VALUES (:repository, :number, :head_sha, :outcome, :signature, :checks, :observed_at)
ON CONFLICT (repository, number) DO UPDATE SET
  repository = excluded.repository, head_sha = excluded.head_sha, outcome = excluded.outcome,
  signature = excluded.signature, checks = excluded.checks, observed_at = excluded.observed_at
WHERE excluded.observed_at >= pull_request_checks.observed_at`;

const GET_SQL = `
SELECT repository, number, head_sha, outcome, signature, checks, observed_at
FROM pull_request_checks WHERE repository = ? AND number = ?`;

function checksFromRaw(raw: Raw): PullRequestChecksRow {
  const checks: unknown = JSON.parse(str(raw, "checks"));
  assert(Array.isArray(checks), "pull_request_checks.checks is a JSON array");
  return {
    repository: str(raw, "repository"),
    number: num(raw, "number"),
    head_sha: str(raw, "head_sha"),
    outcome: str(raw, "outcome"),
    signature: str(raw, "signature"),
    checks,
    observed_at: num(raw, "observed_at"),
  };
}

/** SQL over `pull_request_checks`. */
export class PullRequestChecksRows {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /**
   * Stores the last complete checks observation of a pull request. An observation older than
   * the stored one is ignored.
   *
   * @returns whether the row was written.
   */
  async pullRequestChecksPut(obs: PullRequestChecksObservation): Promise<boolean> {
    const what = "store pull request checks";
    requireRepository(obs.repository, what);
    requireCount(obs.number, "number", { what, min: 1 });
    requireTime(obs.observed_at, "observed_at", { what });
    if (!isCommitSha(obs.head_sha)) {
      throw new TypeError(`Cannot ${what}: head_sha must be 40 lowercase hex; current value is ${obs.head_sha}`);
    }
    if (obs.checks.length > WATCH_CHECKS_MAX) {
      throw new RangeError(
        `Cannot ${what}: at most ${WATCH_CHECKS_MAX} checks are stored; current value is ${obs.checks.length}`,
      );
    }
    const checks = JSON.stringify(obs.checks);
    return await this.#conn.write(() => {
      const result = this.#conn.stmt(PUT_SQL).run({
        repository: obs.repository,
        number: obs.number,
        head_sha: obs.head_sha,
        outcome: obs.outcome,
        signature: obs.signature,
        checks,
        observed_at: obs.observed_at,
      });
      return Number(result.changes) > 0;
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /** The stored checks observations for `keys`, in input order. */
  pullRequestChecksGet(keys: readonly ThreadKey[]): (PullRequestChecksRow | undefined)[] {
    const stmt = this.#conn.stmt(GET_SQL);
    return keys.map((key) => {
      const raw = stmt.get(key.repository, key.number) as Raw | undefined;
      return raw === undefined ? undefined : checksFromRaw(raw);
    });
  }
}
