/**
 * Every bound longcall enforces, named once, each with its reason.
 *
 * Names carry their unit and qualifier last (`_MS`, `_BYTES`, `_MAX`, `_DEFAULT`).
 * Modules import from here; nothing else defines a limit.
 *
 * @module
 */

// ---------------------------------------------------------------- jobs

/** Admitted (queued + running) jobs across every process sharing one database. The
 * original system's per-executor bound was 256; ours is global so N processes cannot
 * admit N x 256. */
export const JOB_ADMITTED_MAX_DEFAULT = 256;
/** Largest `--admitted-max` a server accepts: far above any real queue, below what one admission count scan
 * and the queue-position guidance stay cheap for. */
export const JOB_ADMITTED_MAX_MAX = 100_000;
/** Simulations against a fake GitHub only (`--simulate-time-rate`): job time runs at most this many times
 * faster than real time. */
export const SIMULATE_TIME_RATE_MAX = 1_000;
/** Jobs one executor runs at once. Four keeps GitHub's secondary limits far away. */
export const JOB_RUNNING_MAX_DEFAULT = 4;
/** Heartbeat period of an executor's owner row. */
export const OWNER_HEARTBEAT_MS_DEFAULT = 2_000;
/** An owner whose heartbeat is older than this is dead. Must be >= 3 x heartbeat so
 * two missed beats never kill a live owner. */
export const OWNER_LEASE_MS_DEFAULT = 10_000;
/**
 * After a heartbeat that could not be written (a full disk, an I/O error, a file briefly read-only), the next
 * try comes this much later instead of a whole period: the lease is lost only if the fault lasts until
 * 250 ms before it lapses, not a period before. Short enough to be within the lease's slack, long enough that a
 * lasting fault costs four failed writes a second.
 */
export const OWNER_HEARTBEAT_RETRY_MS = 250;
/** The lease must cover this many heartbeats. */
export const OWNER_LEASE_HEARTBEATS_MIN = 3;
/** Periodic reconciliation so a dead job never shows `running` for long. */
export const RECONCILE_INTERVAL_MS_DEFAULT = 2_000;
/** One query over all of an owner's running jobs notices cross-process cancellation. */
export const CANCEL_POLL_MS_DEFAULT = 200;
/** How often an executor looks for queued work written by other processes, while it has found or been given work. */
export const CLAIM_POLL_MS_DEFAULT = 100;
/**
 * How far an idle executor's poll slows down: each poll that finds nothing doubles the wait, up to this many
 * claim polls (1 s by default), until work is found or submitted here. A server left open all day otherwise wakes
 * ten times a second to query an empty queue (about 0.8% of a CPU, measured idle); a job another process queues
 * waits at most this much longer for this executor (its own process claims it at once).
 */
export const CLAIM_POLL_IDLE_BACKOFF_MAX = 10;
/** Longest run of microtask-chained job work before the executor lets timers and I/O run
 * (a real-time bound on event-loop starvation: heartbeats, cancel polls and stdio). */
export const EVENT_LOOP_SLICE_MS = 20;
/** Grace for running handlers to observe an abort on shutdown before they are recorded
 * as interrupted. */
export const SHUTDOWN_GRACE_MS_DEFAULT = 3_000;
/** Pause before retrying a terminal write that failed with store_busy (the store already
 * retried for seconds): the result is kept in memory and written once the lock clears. */
export const TERMINAL_WRITE_RETRY_MS = 1_000;
/** Terminal jobs are kept this long after completion (published as a task's ttlMs). */
export const JOB_RETENTION_MS_DEFAULT = 24 * 60 * 60 * 1000;
/** Shortest configurable retention: below this a polling client could miss a result. */
export const JOB_RETENTION_MS_MIN = 1_000;
/** Longest configurable retention (30 days). */
export const JOB_RETENTION_MS_MAX = 30 * 24 * 60 * 60 * 1000;
/** Retention sweep period: an expired job goes within a minute of its time, and one sweep finds at most about a
 * minute's worth of them. */
export const RETENTION_SWEEP_MS_DEFAULT = 60_000;
/** Rows deleted per sweep transaction: keeps each write lock short. */
export const RETENTION_SWEEP_BATCH_MAX = 500;
/** Submissions combined into one admission transaction (group commit): bounds how long one
 * write lock is held. */
export const JOB_INSERT_BATCH_MAX = 256;
/** Normalized request JSON stored per job. */
export const JOB_REQUEST_BYTES_MAX = 64 * 1024;
/** Result JSON stored per job. */
export const JOB_RESULT_BYTES_MAX = 1024 * 1024;
/** Error message characters stored per job and sent in an error answer (a longer message keeps its start and
 * says how much was left out): with {@linkcode JOB_ERROR_DATA_BYTES_MAX} it keeps a failed job's answers small. */
export const JOB_ERROR_MESSAGE_CHARS_MAX = 2_000;
/** JSON bytes of an error's typed `data` stored per job and sent in an error answer (shortened into a value of
 * the same shape past it, src/base/json_bound.ts). */
export const JOB_ERROR_DATA_BYTES_MAX = 8 * 1024;
/** Progress message characters: one line a host shows, so a poll's answer stays small. */
export const JOB_PROGRESS_MESSAGE_CHARS_MAX = 500;
/** Minimum interval between progress writes of one job (throttle). */
export const JOB_PROGRESS_WRITE_MS_MIN = 250;
/** Events kept per job; older ones are dropped. */
export const JOB_EVENTS_MAX = 50;
/** Characters per job event message. */
export const JOB_EVENT_MESSAGE_CHARS_MAX = 500;
/** Rows returned by one `jobs list`. */
export const JOB_LIST_LIMIT_MAX = 1_000;
/** Default rows of `jobs list`. */
export const JOB_LIST_LIMIT_DEFAULT = 50;

// Jobs outlive the session (serve linger, issue 10).
/** Longest time a server whose host went away (end of stdin, SIGHUP) keeps running the jobs it owns
 * before recording what is left as interrupted: covers a default watch (WATCH_TIMEOUT_MS_DEFAULT, 30 min)
 * while a forgotten process never holds GitHub quota and a database owner row for longer. */
export const LINGER_MS_MAX = 30 * 60_000;
/** Default linger: each job runs to its own end (a watch ends at its own timeout), never past
 * LINGER_MS_MAX. `0` turns the linger off (shutdown as on SIGTERM). */
export const LINGER_MS_DEFAULT = LINGER_MS_MAX;

// ---------------------------------------------------------------- store

/** SQLite busy_timeout: the busy handler blocks the JS thread, so keep it short and retry
 * asynchronously instead. */
export const STORE_BUSY_TIMEOUT_MS = 20;
/** SQLite busy_timeout while a process opens and migrates the database at start-up, before it serves (blocking
 * is harmless then): long enough for another process's migration on a loaded machine. Past it the open fails
 * with `store_busy`, never as an internal error. */
export const STORE_OPEN_BUSY_TIMEOUT_MS = 15_000;
/** Longest pause between attempts to switch a new database file to WAL, which SQLite does not retry
 * through its busy handler (another process opening the same new file at once holds a lock for a
 * moment); the attempts stop at the open's busy timeout. */
export const STORE_WAL_SWITCH_PAUSE_MS_MAX = 50;
/** Async retries of a busy transaction before `store_busy`. */
export const STORE_BUSY_RETRIES_MAX = 60;
/** First async backoff delay; doubles with jitter up to the cap. */
export const STORE_BUSY_BACKOFF_MS_MIN = 2;
/** Largest async backoff delay. */
export const STORE_BUSY_BACKOFF_MS_MAX = 100;
/** Store lifecycle SQL (issue 14): a claim names up to this many job kinds inline in its SQL
 * (`kind = ?3 OR ...`, one cached statement per count); more go through one json_each parameter,
 * which builds a temporary table per claimed job. Bounds the distinct claim statements cached. */
export const CLAIM_KINDS_INLINE_MAX = 16;
/** Run-time guidance (src/store/job_rows.ts): the mean run time behind a task's poll interval and
 * the overload retry hint is taken over this many most recently finished jobs, enough to smooth one
 * outlier while following a change of pace within a few runs, and few enough that the indexed
 * read stays a handful of rows. */
export const JOB_RECENT_RUNS_SAMPLE = 20;
/** Run-time guidance (src/store/job_ended.ts) looks for that sample among at most this many of a kind's newest
 * ended jobs (the index it reads holds failed and cancelled ones too): a bound on the read when a kind's recent jobs
 * mostly failed, and ten samples' worth, so a kind keeps its full sample while up to nine in ten of them fail. */
export const JOB_RECENT_ENDED_SCAN_MAX = 200;
/** Overload retry guidance (src/store/job_admission.ts): runs that finished longer ago than this say nothing of
 * when a slot frees now. */
export const OVERLOAD_RECENT_RUNS_WINDOW_MS = 10 * 60_000;
/** Overload retry guidance reads the newest runs of at most this many kinds, one index seek each: more than any
 * registry here holds (kinds retained from older versions included), and a bound on that read whatever the table. */
export const OVERLOAD_GUIDANCE_KINDS_MAX = 64;
/** The retry hint an overloaded submission gets, in ms: at least this (also when no run is recent)... */
export const OVERLOAD_RETRY_MS_MIN = 1_000;
/** ...and at most this, whatever the recent runs took. */
export const OVERLOAD_RETRY_MS_MAX = 60_000;
/** SQLite's autocheckpoint threshold in pages, and the WAL size we aim to stay near: a commit that leaves
 * the WAL this long checkpoints it before it returns, in the committing thread, and a checkpoint's fsyncs
 * (the WAL's bytes, then the database's) block that thread for tens of milliseconds on a slow disk
 * (`deno task bench` measures the pause). The threshold of every connection but the one below. */
export const STORE_WAL_AUTOCHECKPOINT_PAGES = 1_000;
/** The autocheckpoint threshold of the serving thread's connection when its jobs run in the network worker:
 * that thread answers every MCP request, so it leaves checkpoints to the worker's connection (which commits
 * whenever jobs run) and checkpoints only past this backstop, which bounds the WAL should the worker write
 * nothing; 4,000 pages of 4 KiB stay within STORE_JOURNAL_SIZE_LIMIT_BYTES. */
export const STORE_WAL_AUTOCHECKPOINT_PAGES_SERVING = 4_000;
/** journal_size_limit: truncate the WAL back to this many bytes after a checkpoint. */
export const STORE_JOURNAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

// ---------------------------------------------------------------- storage faults (issue 12)

/** Retry guidance sent with `storage_unavailable` (a full disk or an I/O error): freeing space
 * is an operator's job, so clients come back in seconds, not milliseconds. */
export const STORE_FAULT_RETRY_AFTER_MS = 5_000;
/** First async backoff after a transient storage fault (SQLITE_FULL, SQLITE_IOERR); doubles with
 * jitter up to the cap. Long enough that a retry is not wasted on the same full disk. */
export const STORE_FAULT_BACKOFF_MS_MIN = 50;
/** Largest async backoff after a transient storage fault. */
export const STORE_FAULT_BACKOFF_MS_MAX = 1_000;
/** How long one execution-side write (progress, events, corpus rows, ETags) retries a transient
 * storage fault before that one write is given up: a few backoffs, well inside the default lease
 * (10 s), so a job's terminal write (which retries for as long as the lease holds) is never held
 * behind a progress update for long. */
export const STORE_FAULT_RETRY_MS_EXECUTION = 2_000;

// ---------------------------------------------------------------- GitHub names (issue 12)

/** Longest GitHub user or organization login (GitHub refuses longer ones at sign-up). */
export const GITHUB_OWNER_CHARS_MAX = 39;
/** Longest GitHub repository name. */
export const GITHUB_REPO_CHARS_MAX = 100;
/** Largest pull request / issue number accepted in a reference (GitHub's are 32-bit). */
export const GITHUB_NUMBER_MAX = 2_147_483_647;

// ---------------------------------------------------------------- MCP

/** Ids per `jobs.get` / `jobs.cancel` call (the original's vector bound). */
export const IDS_PER_CALL_MAX = 100;
/**
 * Ended jobs each process answers concise reads of from memory, the least recently read dropped first
 * (src/jobs/control.ts `getMany`): ten full `jobs.get` batches, so a host polling a few batches while
 * some of their jobs are still running re-reads the ended ones without the store. A row and its concise
 * item take about 0.8 KB of heap (measured for a cancelled job), so about 1 MB for all of them, and a few
 * MB at most with {@linkcode ENDED_ROW_CACHED_TEXT_CHARS_MAX}.
 */
export const ENDED_ROWS_CACHED_MAX = 1_000;
/**
 * An ended row is remembered only if its error (as JSON), progress message and phase come to at most this
 * many characters: a failed job's error may carry {@linkcode JOB_ERROR_MESSAGE_CHARS_MAX} characters and
 * {@linkcode JOB_ERROR_DATA_BYTES_MAX} bytes of data, which would make {@linkcode ENDED_ROWS_CACHED_MAX} rows
 * tens of MB. Such rows are read from the store each time.
 */
export const ENDED_ROW_CACHED_TEXT_CHARS_MAX = 1_024;
/** Characters of one key of `jobs.get` / `jobs.cancel` and of a `tasks/*` taskId: four times a job id's 49, so any id a
 * client holds fits, while a call's keys (echoed back in its items) stay within a few tens of KB. */
export const JOB_KEY_CHARS_MAX = 200;
/** Largest incoming JSON-RPC message on stdio or HTTP. */
export const MCP_MESSAGE_BYTES_MAX = 1024 * 1024;
/** Largest tool result we send; larger results are truncated with a flag. */
export const MCP_RESULT_BYTES_MAX = 256 * 1024;
/** Result bytes embedded per job in a detailed `jobs.get` item. */
export const JOB_RESULT_VIEW_BYTES_MAX = 64 * 1024;
/** Tasks (src/tasks/task_projection.ts): what a succeeded job's `tasks/get` answer may take beyond
 * three copies of its bounded result (structuredContent, the text copy, whose escaping at most
 * doubles it): the task's ids, ISO times, ttl, status message and the tool result's own keys, a
 * few hundred bytes for longcall's kind and outcome names. `3 x JOB_RESULT_VIEW_BYTES_MAX` plus this
 * must stay within MCP_RESULT_BYTES_MAX (asserted when task_projection.ts loads). */
export const TASK_ANSWER_FIELDS_BYTES_MAX = 16 * 1024;
/** Bounds of advertised poll intervals (poll_after_ms, pollIntervalMs). */
export const POLL_INTERVAL_MS_MIN = 250;
export const POLL_INTERVAL_MS_MAX = 60_000;
/** Longest guidance derived from run-time history alone (no handler hint): history is a
 * weak predictor, so a host should look again at least this often. */
export const POLL_GUIDANCE_FROM_HISTORY_MS_MAX = 5_000;
/** The run time guidance assumes for a kind with no finished run yet, and the latest first look it advises
 * for a kind without a schedule of its own: about a second, the original's fixed poll_after_ms. */
export const POLL_GUIDANCE_RUN_MS_DEFAULT = 1_000;
/** For this long after a running job's cancellation was requested, its poll guidance is the cancel poll plus the
 * floor (a cooperative handler ends within a cancel poll of the request, another process's within the
 * {@linkcode CANCEL_POLL_MS_DEFAULT} poll): not the handler's next scheduled observation, which may be a minute
 * away. A handler still running after it (one that ignores its abort) gets the usual guidance again. */
export const CANCEL_GUIDANCE_WINDOW_MS = SHUTDOWN_GRACE_MS_DEFAULT;
/** A handler's announced next observation this far in the past is overdue (stuck or lost). */
export const OVERDUE_POLL_SLACK_MS = 2_000;

// ---------------------------------------------------------------- GitHub

/** Requests in flight per process (GitHub's secondary limit is 100; be far below). */
export const GITHUB_CONCURRENCY_MAX = 4;
/** Per-request timeout: GitHub answers in well under a second; this outlasts its slowest pages without holding a
 * job on a dead connection. */
export const GITHUB_REQUEST_TIMEOUT_MS = 30_000;
/** Pages followed through `Link` for one listing. */
export const GITHUB_PAGES_MAX = 50;
/** Response body bytes read per request. */
export const GITHUB_RESPONSE_BYTES_MAX = 8 * 1024 * 1024;
/** Retries of a replayable GET on 5xx / network errors. */
export const GITHUB_RETRIES_MAX = 3;
/** Secondary-limit floor when GitHub gives no retry hint. */
export const GITHUB_RATE_LIMIT_WAIT_MS_MIN = 60_000;
/** Characters of a malformed value GitHub answered (a ref, a head SHA) quoted in the error that refuses it: enough
 * to recognize, never a whole page. */
export const GITHUB_VALUE_QUOTED_CHARS_MAX = 80;
/** Longest single rate-limit wait before giving up with `rate_limited`. */
export const GITHUB_RATE_LIMIT_WAIT_MS_MAX = 15 * 60_000;
/** Rate-limit waits within one call before giving up with `rate_limited`: a server that
 * keeps limiting us must not keep one call alive forever. */
export const GITHUB_RATE_LIMIT_WAITS_MAX = 5;
/** Added to `x-ratelimit-reset` so a small clock skew does not make us retry one second early. */
export const GITHUB_RATE_LIMIT_RESET_SLACK_MS = 1_000;
/** First backoff delay before retrying a GET after a 5xx or network error; doubles per retry. */
export const GITHUB_RETRY_BACKOFF_MS_MIN = 1_000;
/** GitHub's largest `per_page`. */
export const GITHUB_PER_PAGE_MAX = 100;
/** Characters of GitHub's error `message` quoted in our errors. */
export const GITHUB_ERROR_MESSAGE_CHARS_MAX = 300;
/**
 * Tokens GitHub issues are at least this long (classic and `ghp_` 40 chars, fine-grained 93): such a
 * token is scrubbed wherever it occurs. A shorter one (a mistyped setting) is scrubbed only where it
 * stands as a word of its own, so a one-letter token does not cut "Not Found" apart.
 */
export const GITHUB_TOKEN_SCRUB_ANYWHERE_CHARS_MIN = 20;
/** Bytes of an error response body read to find its `message`. */
export const GITHUB_ERROR_BODY_BYTES_MAX = 64 * 1024;
/** Largest response body kept in an ETag cache (memory or SQLite); bigger ones are not cached. */
export const GITHUB_ETAG_BODY_BYTES_MAX = 1024 * 1024;
/** Entries of the in-memory ETag cache (LRU). */
export const GITHUB_ETAG_MEMORY_ENTRIES_MAX = 1_000;
/** Total body bytes of the in-memory ETag cache (LRU). */
export const GITHUB_ETAG_MEMORY_BYTES_MAX = 32 * 1024 * 1024;
/** Rows of the `http_etags` table; the oldest are pruned beyond this. */
export const GITHUB_ETAG_ROWS_MAX = 10_000;

/** PR checks watcher: defaults and bounds of the tool's inputs (issue #199 of the original). The timeout: 30 min by
 * default (a typical CI run and then some), 24 h at most (a watch a host may still want back), 1 s at least. The poll
 * interval: 10 s by default (`gh pr checks --watch`'s), 5 min at most (a verdict still arrives within minutes of
 * CI's end), its floor below. The first check's grace: 3 min by default (GitHub registers suites within a minute
 * or two of a push), 30 min at most. */
export const WATCH_TIMEOUT_MS_DEFAULT = 30 * 60_000;
export const WATCH_TIMEOUT_MS_MIN = 1_000;
export const WATCH_TIMEOUT_MS_MAX = 24 * 60 * 60_000;
export const WATCH_POLL_INTERVAL_MS_DEFAULT = 10_000;
/** A poll reads up to four endpoints (the pull, check runs, statuses, suites): at 5 s an uncached watch stays under
 * 2,900 requests an hour, within a token's 5,000 (the original allowed 1 s; docs/ARCHITECTURE.md, departures). */
export const WATCH_POLL_INTERVAL_MS_MIN = 5_000;
export const WATCH_POLL_INTERVAL_MS_MAX = 5 * 60_000;
export const WATCH_FIRST_CHECK_GRACE_MS_DEFAULT = 3 * 60_000;
/** The least time a watch's poll gets for its GitHub requests before they are abandoned at the watch's deadline
 * (src/github/watch_runner.ts `requestsAbandonedAt`): the poll made at the deadline, the last, still gets its
 * answer (a poll's four reads take well under a second here), and a hung request ends a watch at most this far
 * past its timeout_ms rather than after every retry of GITHUB_REQUEST_TIMEOUT_MS. */
export const WATCH_POLL_TIME_MIN_MS = 5_000;
export const WATCH_FIRST_CHECK_GRACE_MS_MAX = 30 * 60_000;
/**
 * Unanswered polls in a row that end a watch which has seen the pull request (fewer are waited out):
 * GitHub's 5xx bursts and network blips (each poll already retried {@linkcode GITHUB_RETRIES_MAX}
 * times) must not end a long watch, but an outage this long (about 10 minutes at the default
 * interval) does, as a retryable error. The watch's deadline bounds the wait too.
 */
export const WATCH_FAILED_POLLS_MAX = 20;
/** Transitions kept in a watch result. */
export const WATCH_TRANSITIONS_MAX = 64;
/** Checks listed in a watch result. */
export const WATCH_CHECKS_MAX = 200;

/** Sync job: repositories per job (one job should finish within a rate-limit window). */
export const SYNC_REPOSITORIES_MAX = 50;
/** Newest threads read per repository: ten pages of 100. */
export const SYNC_LIMIT_PER_REPOSITORY_MAX = 1_000;
/** One page of newest threads unless asked for more. */
export const SYNC_LIMIT_PER_REPOSITORY_DEFAULT = 100;
/** Counted requests one sync job may spend: a fifth of an hourly user quota. */
export const SYNC_REQUESTS_MAX = 1_000;
/** Enough for a few repositories of several pages each, at a twenty-fifth of an hourly user quota. */
export const SYNC_REQUESTS_DEFAULT = 200;
/** Longest rate-limit wait one repository accepts before it is reported retryable, so one
 * limited repository does not stall the others. */
export const SYNC_RATE_LIMIT_WAIT_MS_MAX = 10_000;
/** Sync listing stability (issue 11): re-listings (`since=` the newest thread seen, or the whole
 * listing again) after a multi-page listing, until one brings nothing new; past this a
 * listing whose threads keep moving is reported incomplete rather than looping. */
export const SYNC_RELISTINGS_MAX = 4;
/** Repositories a sync job's subject names (`jobs list`) before it counts the rest: one line per job. */
export const SYNC_SUBJECT_REPOSITORIES_MAX = 3;
/** Body characters stored per thread in the corpus. */
export const THREAD_BODY_CHARS_MAX = 64 * 1024;

// ---------------------------------------------------------------- corpus

/** Distinct versions kept per thread in `thread_observations`: enough to see recent edits
 * and out-of-order reads without letting history grow without bound. */
export const THREAD_OBSERVATIONS_PER_THREAD_MAX = 5;
/** Characters of a stored title (GitHub itself caps titles at 256). */
export const THREAD_TITLE_CHARS_MAX = 1_024;
/** Labels stored per thread (GitHub allows 100 per issue). */
export const THREAD_LABELS_MAX = 100;
/** Token characters a prefix (`word*`) needs; a shorter prefix expands to too many terms to be
 * fast and is searched as a plain word. */
export const SEARCH_PREFIX_CHARS_MIN = 3;
/** Words of a search query turned into FTS5 terms; more words are ignored. */
export const SEARCH_QUERY_TERMS_MAX = 32;
/** Matches ranked by BM25 per search. Ranking is linear in the matches, so a query matching
 * more is narrowed (see SearchRanking in src/store/thread_search_rows.ts) to keep a search within its 20 ms budget. */
export const SEARCH_RANKED_MATCHES_MAX = 1_000;

/** Characters of a label filter (GitHub label names are at most 50). */
export const SEARCH_LABEL_CHARS_MAX = 100;

/** Hits per search page: keeps a page within a model's useful context. */
export const SEARCH_LIMIT_MAX = 50;
/** A first page a model reads whole. */
export const SEARCH_LIMIT_DEFAULT = 10;
/** Query text length: a query, not a document; bounds the full-text query the store parses. */
export const SEARCH_QUERY_CHARS_MAX = 500;
/** Items per corpus.get_* call. */
export const CORPUS_ITEMS_PER_CALL_MAX = 100;
/** Characters of a search cursor (corpus/cursor.ts): one issued here is a little over 100, so anything
 * longer is refused before it is decoded. */
export const SEARCH_CURSOR_CHARS_MAX = 512;

// ---------------------------------------------------------------- HTTP transport

/** Network worker handshake bounds (start-up opens a database; stop waits for the executor's grace). */
export const WORKER_START_TIMEOUT_MS = 15_000;
export const WORKER_STOP_TIMEOUT_MS = 10_000;
/** How long after a server begins serving it starts its network worker, unless a submission starts it
 * sooner (src/cli/serve.ts). Until then the worker has only run its entry: from source it has not loaded
 * its modules, which, loaded while the serving thread loaded its own, delayed the host's first `tools/list`
 * on this 2-CPU machine (`deno task startup-ab` against a worktree of `dbfd034^`, which starts it at once,
 * shows by how much).
 * A host's start-up exchange is answered well within this; jobs a previous process left (queued, or
 * running and now lost) are taken up this much later. */
export const NETWORK_WORKER_START_DELAY_MS = 500;

/** Characters of a transport error kept in a log line (the SDK's can be whole zod reports). */
export const LOG_TRANSPORT_ERROR_CHARS_MAX = 300;

/** Strings up to this many UTF-16 units are never cut when an answer is shortened to fit its bound
 * (src/base/json_bound.ts): kept whole or left out. A prefix of an enum value, a time, a SHA, a name or a URL is
 * not a shorter value but a wrong one (`"outcome": "ti"`); longer texts (summaries, messages) keep a prefix. */
export const JSON_STRING_ATOMIC_CHARS_MAX = 64;
/** Concurrent HTTP requests served: far above one host's parallel calls, and a bound on memory under a flood. */
export const HTTP_CONCURRENT_REQUESTS_MAX = 64;

// ---------------------------------------------------------------- jobs.get waits (issue 10)

/** Longest `wait_ms` of one `jobs.get`: well under the ~60 s tool-call timeout of Claude Desktop and Codex
 * (docs: real hosts), so a waiting call always answers before the host gives up on it. */
export const JOB_WAIT_MS_MAX = 45_000;
/** Waiting `jobs.get` calls per server process; past it a call answers at once with the current view. Half of
 * {@linkcode HTTP_CONCURRENT_REQUESTS_MAX}, so waiting calls never hold every HTTP request slot. */
export const JOB_WAITERS_MAX = 32;
/** Period of the one shared change probe (`data_version` + `total_changes()`) that runs only while someone
 * waits: jobs may be written by another process, which no in-process event reports. */
export const JOB_WAIT_PROBE_MS = 100;

// ---------------------------------------------------------------- watcher verdicts (issue 11)

/** The confirming re-read before `succeeded` comes this many poll intervals (at least
 * {@linkcode WATCH_SETTLE_MS_MIN}) after the first
 * green reading: dependent jobs and later workflows register their check runs only after
 * their predecessors finish, so a re-read ~0 ms later can miss them. */
export const WATCH_SETTLE_POLL_INTERVALS = 1;
/** ...and never sooner than this: a workflow triggered by another's completion (`workflow_run`) registers
 * its suite only after that one ends, plus GitHub's queueing; polling advice is to settle ~30 s before a
 * verdict (a 10 s re-read confirmed a green that a check registering 20 s later turned red). */
export const WATCH_SETTLE_MS_MIN = 30_000;
/** Smallest `per_page` the check-runs listing falls back to when a page exceeds
 * {@linkcode GITHUB_RESPONSE_BYTES_MAX} (list responses carry each run's output, up to
 * 3 x 65,535 characters): halving from 100 reaches it in a few steps, and one run always fits. */
export const WATCH_CHECK_RUNS_PER_PAGE_MIN = 1;
/** Failing checks whose details (URL, output title and summary, annotations) a result carries. */
export const WATCH_FAILURE_DETAILS_MAX = 10;
/** Characters of a failing check's `output.summary` (GitHub allows 65,535) kept in a result. */
export const WATCH_FAILURE_SUMMARY_CHARS_MAX = 2_000;
/** Characters of a failing check's `output.title` kept in a result. */
export const WATCH_FAILURE_TITLE_CHARS_MAX = 300;
/** Annotations read (one page, `per_page`) and kept per failing check run. */
export const WATCH_FAILURE_ANNOTATIONS_MAX = 5;
/** Characters of one annotation's message (and of its path) kept in a result. */
export const WATCH_ANNOTATION_MESSAGE_CHARS_MAX = 500;
/** Required status checks accepted from a branch's rules (GitHub's UI allows far fewer). */
export const WATCH_REQUIRED_CHECKS_MAX = 200;
/** GitHub's primary limit for anonymous requests per hour (used for the cost of an anonymous watch
 * when the headers have not told us the limit yet). */
export const GITHUB_ANONYMOUS_LIMIT_PER_HOUR = 60;

// ---------------------------------------------------------------- distribution (issue 15)

/** Characters of a `--github-host` name (without `:PORT`): DNS's limit for a full host name. */
export const GITHUB_HOST_CHARS_MAX = 253;
/** Characters of one dot-separated label of a `--github-host` name: DNS's limit for a label. */
export const GITHUB_HOST_LABEL_CHARS_MAX = 63;

// ---------------------------------------------------------------- transports: slow clients and framing (issue 12)

/** A request body must have arrived in full this long after its headers, or the request gets 408
 * and its connection is closed: a client that sends headers and then trickles (or stops) cannot
 * hold a request open. Deno.serve (2.9.6) has no header deadline of its own; a connection that
 * never finishes its headers never reaches a handler and holds no request slot. */
export const HTTP_BODY_TIMEOUT_MS = 10_000;
/** Requests whose bodies are still arriving, in total (at most this many bodies of up to
 * MCP_MESSAGE_BYTES_MAX are buffered). A request past the bound evicts the oldest pending one
 * (408), so newcomers always get their turn and slow clients cannot lock everyone out. */
export const HTTP_PENDING_BODIES_MAX = 128;
/** Requests whose bodies are still arriving per client (its bearer authority and peer address);
 * past it the client's own oldest pending request is evicted (408). As many as requests in flight
 * ({@linkcode HTTP_CONCURRENT_REQUESTS_MAX}): a well-behaved client's own concurrent requests (e.g.
 * 32 waiting jobs.get calls sent at once) must never evict each other while their bodies arrive. */
export const HTTP_PENDING_BODIES_PER_CLIENT_MAX = 64;
/** Bytes kept from each end of an over-long stdio line to find its id (so the error answer can
 * name the request it refuses). */
export const STDIO_ID_PROBE_BYTES = 256;
/** Bytes asked of one read of stdin (src/mcp/stdio_framing.ts `stdinChunks`), as Deno's own stdin stream
 * asks: a line longer than this arrives in several reads, and each chunk handed on is a copy of what was read. */
export const STDIO_READ_CHUNK_BYTES = 64 * 1024;
/** Requests read from stdin and not answered yet, plus answers not yet written to stdout; past it the transport
 * hands on no further request (notifications still pass) until one is answered or written, so
 * a host that pipelines requests without reading the answers is slowed by its own pipe instead of growing this
 * process without bound (each request in flight holds its answer, up to MCP_RESULT_BYTES_MAX). As many as HTTP
 * serves at once ({@linkcode HTTP_CONCURRENT_REQUESTS_MAX}), so the {@linkcode JOB_WAITERS_MAX} waiting
 * `jobs.get` calls leave room for other requests. */
export const STDIO_REQUESTS_IN_FLIGHT_MAX = 64;
/** After stdin ends, requests already read are still answered for at most this long before the
 * transport closes (a host that writes its requests and closes stdin at once still gets answers). */
export const STDIO_DRAIN_AFTER_EOF_MS = 2_000;

// ---------------------------------------------------------------- GitHub request paths (issue 13, github client split)

/** Characters of a git ref put in a request path (`refPath`): git has no limit of its own, but a
 * branch or tag name is one file name under `.git/refs/`, which filesystems cap at 255 bytes. */
export const GITHUB_REF_CHARS_MAX = 255;

// ---------------------------------------------------------------- batch reads: stdio lines (issue 14, jobs.get 100 ids)

/** UTF-16 units of an outgoing stdio line encoded through the transport's reused scratch buffer (three
 * bytes per unit at most, so the buffer stays under 1 MiB): a result within MCP_RESULT_BYTES_MAX (which
 * already counts its text copy) plus its envelope fits; a longer line (a large tools/list, a task result)
 * is encoded on its own. */
export const STDIO_LINE_SCRATCH_CHARS_MAX = 320 * 1024;
/** UTF-16 units of an answer's JSON text from which `okResult` records it for the stdio line
 * (src/mcp/answer_text.ts): below it serializing the answer again costs less than recording and
 * matching it (a 1-id jobs.get answer is a few hundred units, a 100-id one tens of thousands: `deno task bench`
 * writes both answers' bytes, text content and structuredContent together, in docs/benchmarks.md). */
export const ANSWER_TEXT_RECORDED_CHARS_MIN = 4_096;

// ---------------------------------------------------------------- start-up: precomputed tool schemas (issue 14)

/** Connected server instances a factory keeps until it has checked its precomputed tool schemas
 * (src/mcp/server.ts), so that a stale one reaches them as `notifications/tools/list_changed`. The check
 * runs soon after the first answer taken from the set, so a stdio session holds one; stateless HTTP builds
 * one per request, which cannot be notified anyway, so the newest few are enough and the list stays bounded
 * if no such answer ever comes. */
export const ADVERTISED_RELIST_SERVERS_MAX = 16;
/** How long after the first answer taken from a precomputed set of tool schemas the factory checks the set
 * against a real conversion (src/mcp/server.ts; from source only, the bundle's build checked its set). The
 * check converts every tool's schemas on the serving thread, a pause of its own: run at once, it held the
 * write of the very answers it follows (the first `tools/list` of a server started from source reached its
 * client that much later; `deno task startup-ab` against a worktree of `d65c97f^`, which checks at once,
 * shows by how much). A host's start-up exchange (initialize, tools/list, its
 * first calls) is over well within this; a stale set is still replaced, and sessions told, within a second. */
export const ADVERTISED_CHECK_DELAY_MS = 1_000;

// ---------------------------------------------------------------- idle memory (issue 14, src/base/idle_collect.ts)

/** Quiet time after which an isolate collects its garbage once. V8 keeps the heap a burst of calls grew
 * (its memory reducer never starts in Deno, which reports no idleness), so without this an idle server
 * keeps its peak. Longer than the 1 s poll interval hosts are most often advised (a polling host keeps it
 * from firing), short enough that a server sitting between a model's turns gives the memory back. */
export const IDLE_COLLECT_AFTER_MS = 2_000;

/** Growth of an isolate's committed heap since its last collection below which an idle isolate does not
 * collect: a collection costs 8-40 ms of that thread (measured, 2026-12-01), worth paying only for
 * garbage; a host polling every few seconds grows the heap far less between polls than this. */
export const IDLE_COLLECT_HEAP_GROWTH_BYTES_MIN = 1 * 1024 * 1024;
