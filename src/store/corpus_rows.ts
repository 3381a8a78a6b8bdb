/**
 * The corpus over one connection: one object for the callers that read and write the whole
 * corpus (a sync job, the watcher, the corpus read tools), so they take a single dependency.
 * Each method is one table module's:
 *
 * - repository_rows.ts: `repositories`;
 * - thread_rows.ts: `threads` and `thread_observations`;
 * - thread_search_rows.ts: full-text search over `threads_fts` (query building: fts_query.ts);
 * - pull_request_checks_rows.ts: `pull_request_checks`.
 *
 * Domain types are in corpus_types.ts; column checks and decoders in corpus_columns.ts.
 * Writes are one `BEGIN IMMEDIATE` transaction each (through {@linkcode Connection.write});
 * reads are plain statements. Nothing here touches the network.
 *
 * @module
 */

import type {
  PullRequestChecksObservation,
  PullRequestChecksRow,
  RepositoryObservation,
  RepositoryRow,
  ThreadKey,
  ThreadObservation,
  ThreadRow,
} from "./corpus_types.ts";
import { PullRequestChecksRows } from "./pull_request_checks_rows.ts";
import { RepositoryRows } from "./repository_rows.ts";
import { ThreadRows, type ThreadsUpsertResult } from "./thread_rows.ts";
import { ThreadSearchRows, type ThreadsSearchPage, type ThreadsSearchParams } from "./thread_search_rows.ts";
import type { Connection } from "./tx.ts";

/** Corpus SQL over one connection. */
export class CorpusRows {
  readonly #repositories: RepositoryRows;
  readonly #threads: ThreadRows;
  readonly #search: ThreadSearchRows;
  readonly #checks: PullRequestChecksRows;

  constructor(conn: Connection) {
    this.#repositories = new RepositoryRows(conn);
    this.#threads = new ThreadRows(conn);
    this.#search = new ThreadSearchRows(conn);
    this.#checks = new PullRequestChecksRows(conn);
  }

  /** See {@linkcode RepositoryRows.repositoryUpsert}. */
  repositoryUpsert(obs: RepositoryObservation): Promise<boolean> {
    return this.#repositories.repositoryUpsert(obs);
  }

  /** See {@linkcode RepositoryRows.repositoriesGet}. */
  repositoriesGet(names: readonly string[]): (RepositoryRow | undefined)[] {
    return this.#repositories.repositoriesGet(names);
  }

  /** See {@linkcode ThreadRows.threadsUpsert}. */
  threadsUpsert(
    repository: string,
    threads: readonly ThreadObservation[],
    options: { observedAt: number },
  ): Promise<ThreadsUpsertResult> {
    return this.#threads.threadsUpsert(repository, threads, options);
  }

  /** See {@linkcode ThreadRows.threadsGet}. */
  threadsGet(keys: readonly ThreadKey[]): (ThreadRow | undefined)[] {
    return this.#threads.threadsGet(keys);
  }

  /** See {@linkcode ThreadRows.threadsSyncedAt}. */
  threadsSyncedAt(repository: string): number | undefined {
    return this.#threads.threadsSyncedAt(repository);
  }

  /** See {@linkcode ThreadRows.threadObservationsList}. */
  threadObservationsList(key: ThreadKey): { observed_at: number; updated_at: number; data: unknown }[] {
    return this.#threads.threadObservationsList(key);
  }

  /** See {@linkcode ThreadSearchRows.threadsSearch}. */
  threadsSearch(params: ThreadsSearchParams): ThreadsSearchPage {
    return this.#search.threadsSearch(params);
  }

  /** See {@linkcode PullRequestChecksRows.pullRequestChecksPut}. */
  pullRequestChecksPut(obs: PullRequestChecksObservation): Promise<boolean> {
    return this.#checks.pullRequestChecksPut(obs);
  }

  /** See {@linkcode PullRequestChecksRows.pullRequestChecksGet}. */
  pullRequestChecksGet(keys: readonly ThreadKey[]): (PullRequestChecksRow | undefined)[] {
    return this.#checks.pullRequestChecksGet(keys);
  }
}
