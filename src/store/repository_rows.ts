/**
 * Repository rows: the SQL of the `repositories` table (metadata read by a sync job). A write
 * is one `BEGIN IMMEDIATE` transaction (through {@linkcode Connection.write}); an older
 * observation never replaces a newer one.
 *
 * @module
 */

import { STORE_FAULT_RETRY_MS_EXECUTION } from "../base/limits.ts";
import {
  num,
  numOrNull,
  type Raw,
  requireCount,
  requireRepository,
  requireTime,
  str,
  strings,
  strOrNull,
} from "./corpus_columns.ts";
import type { RepositoryObservation, RepositoryRow } from "./corpus_types.ts";
import type { Connection } from "./tx.ts";

const UPSERT_SQL = `
INSERT INTO repositories (full_name, owner, name, description, topics, default_branch, stargazers_count, license,
  archived, synced_at)
VALUES (:full_name, :owner, :name, :description, :topics, :default_branch, :stargazers_count, :license,
  :archived, :synced_at)
ON CONFLICT (full_name) DO UPDATE SET
  full_name = excluded.full_name, owner = excluded.owner, name = excluded.name,
  description = excluded.description, topics = excluded.topics, default_branch = excluded.default_branch,
  stargazers_count = excluded.stargazers_count, license = excluded.license, archived = excluded.archived,
  synced_at = excluded.synced_at
WHERE excluded.synced_at >= repositories.synced_at`;

const GET_SQL = `
SELECT full_name, owner, name, description, topics, default_branch, stargazers_count, license, archived, synced_at
FROM repositories WHERE full_name = ?`;

function repositoryFromRaw(raw: Raw): RepositoryRow {
  return {
    full_name: str(raw, "full_name"),
    owner: str(raw, "owner"),
    name: str(raw, "name"),
    description: strOrNull(raw, "description"),
    topics: strings(raw, "topics"),
    default_branch: strOrNull(raw, "default_branch"),
    stargazers_count: numOrNull(raw, "stargazers_count"),
    license: strOrNull(raw, "license"),
    archived: num(raw, "archived") === 1,
    synced_at: num(raw, "synced_at"),
  };
}

/** SQL over `repositories`. */
export class RepositoryRows {
  readonly #conn: Connection;

  constructor(conn: Connection) {
    this.#conn = conn;
  }

  /**
   * Stores repository metadata. An observation older than the stored one is ignored.
   *
   * @returns whether the row was written.
   */
  async repositoryUpsert(obs: RepositoryObservation): Promise<boolean> {
    const what = "store repository";
    const fullName = `${obs.owner}/${obs.name}`;
    requireRepository(fullName, what);
    requireTime(obs.observed_at, "observed_at", { what });
    if (obs.stargazers_count !== null) requireCount(obs.stargazers_count, "stargazers_count", { what, min: 0 });
    const topics = JSON.stringify(obs.topics.map(String));
    return await this.#conn.write(() => {
      const result = this.#conn.stmt(UPSERT_SQL).run({
        full_name: fullName,
        owner: obs.owner,
        name: obs.name,
        description: obs.description,
        topics,
        default_branch: obs.default_branch,
        stargazers_count: obs.stargazers_count,
        license: obs.license,
        archived: obs.archived ? 1 : 0,
        synced_at: obs.observed_at,
      });
      return Number(result.changes) > 0;
    }, { faultRetryMs: STORE_FAULT_RETRY_MS_EXECUTION });
  }

  /** The stored repositories for `names` (`owner/name`), in input order. */
  repositoriesGet(names: readonly string[]): (RepositoryRow | undefined)[] {
    const stmt = this.#conn.stmt(GET_SQL);
    return names.map((name) => {
      const raw = stmt.get(name) as Raw | undefined;
      return raw === undefined ? undefined : repositoryFromRaw(raw);
    });
  }
}
