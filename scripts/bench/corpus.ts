/**
 * Corpus benchmark: ingest of a 50,000-thread corpus through `threadsUpsert` (goal >= 2,000
 * threads/s, the sync goal's storage share) and `corpus.search_threads` latency over a few
 * hundred varied queries (goal p99 <= 20 ms). Runs on a temp database; no network. It opens only
 * the store (no job runs, so no runtime); the queries are parsed with the tool's schema
 * (src/corpus/inputs.ts) once, outside the timed calls, as the tool parses before it searches.
 *
 * Standalone: `deno run --allow-read --allow-write --allow-env scripts/bench/corpus.ts`
 *
 * @module
 */

import { openStore } from "../../src/store/store.ts";
import type { ThreadObservation } from "../../src/store/corpus_types.ts";
import { SearchThreadsArgs, type SearchThreadsInput } from "../../src/corpus/inputs.ts";
import { searchThreads } from "../../src/corpus/search.ts";
import { type BenchSection, percentile } from "./store/harness.ts";

const THREADS = 50_000;
const REPOSITORIES = 20;
const BATCH = 100;
const QUERIES = 400;
const SEARCH_P99_GOAL_MS = 20;
const INGEST_GOAL_PER_S = 2_000;

/** A deterministic PRNG (mulberry32) so every run builds the same corpus. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The head of the word distribution: function words, as in real text (they occur in most
 * threads, like the top words of any English corpus). */
const STOP_WORDS = (
  "the a to and is in it of for on this that with be not when i we you are was an as at by from or " +
  "but if can have has after before so no all do does any some there then than which what how also " +
  "just only should would could will get got use using used see seems like one two new now"
).split(" ");
/** Technical words: the next ranks, each in roughly 2-15% of threads, like GitHub issue text. */
const BASE_WORDS = (
  "build test flaky timeout crash panic error warning memory leak race condition deadlock regression " +
  "performance slow fast cache network request response header body json parse serialize compile link " +
  "linker windows linux macos arm x86 docker container kubernetes deploy release version upgrade migrate " +
  "database sqlite postgres index query transaction lock retry backoff token auth permission denied " +
  "config option flag default document readme example tutorial typo broken link install package module " +
  "import export typescript javascript rust golang python runtime worker thread async await promise " +
  "stream buffer file path directory symlink encoding unicode utf8 emoji locale timezone date format"
).split(" ");
const LABELS = [
  "bug",
  "enhancement",
  "documentation",
  "good first issue",
  "help wanted",
  "performance",
  "question",
  "regression",
  "windows",
  "security",
];

/** Vocabulary by rank: function words, technical words, then 5,000 random rarer words. */
export function vocabulary(): string[] {
  const words = [...STOP_WORDS, ...BASE_WORDS];
  const rand = prng(7);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  while (words.length < 5_000 + STOP_WORDS.length + BASE_WORDS.length) {
    let w = "";
    const len = 4 + Math.floor(rand() * 6);
    for (let i = 0; i < len; i++) w += letters[Math.floor(rand() * letters.length)];
    words.push(w);
  }
  return words;
}

/** Zipf-like pick: low indexes are much more frequent. */
function zipf(rand: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(Math.pow(n, rand()) - 1));
}

/** What synthetic text is drawn from: a vocabulary and a generator. */
export interface TextSource {
  words: string[];
  rand: () => number;
}

/** `repo.count` synthetic threads of repository number `repo.index`, their text and fields drawn from `source`. */
export function makeThreads(repo: { index: number; count: number }, source: TextSource): ThreadObservation[] {
  const { index: repoIndex, count } = repo;
  const { words, rand } = source;
  const out: ThreadObservation[] = [];
  const phrase = (n: number) => Array.from({ length: n }, () => words[zipf(rand, words.length)]).join(" ");
  for (let i = 0; i < count; i++) {
    const number = i + 1;
    const created = Date.UTC(2024, 0, 1) + Math.floor(rand() * 365 * 86_400_000);
    const labels = LABELS.filter(() => rand() < 0.15);
    out.push({
      number,
      kind: rand() < 0.4 ? "pull_request" : "issue",
      state: rand() < 0.3 ? "open" : "closed",
      title: phrase(4 + Math.floor(rand() * 8)),
      body: phrase(40 + Math.floor(rand() * 200)),
      labels,
      author: `user${Math.floor(rand() * 500)}`,
      comments: Math.floor(rand() * 20),
      created_at: created,
      updated_at: created + Math.floor(rand() * 86_400_000),
      closed_at: null,
      merged: null,
      html_url: `https://github.com/org${repoIndex}/repo${repoIndex}/issues/${number}`,
    });
  }
  return out;
}

/** Builds a 50,000-thread corpus in a temp database and measures ingest and search. */
export async function benchCorpus(): Promise<BenchSection> {
  const dir = await Deno.makeTempDir({ prefix: "longcall-bench-corpus-" });
  const store = openStore(`${dir}/bench.db`);
  try {
    const rows = store.corpus;
    const words = vocabulary();
    const rand = prng(42);
    const perRepo = THREADS / REPOSITORIES;
    const batches: Array<{ repository: string; threads: ThreadObservation[] }> = [];
    for (let r = 0; r < REPOSITORIES; r++) {
      const threads = makeThreads({ index: r, count: perRepo }, { words, rand });
      for (let i = 0; i < threads.length; i += BATCH) {
        batches.push({ repository: `org${r}/repo${r}`, threads: threads.slice(i, i + BATCH) });
      }
    }
    const observedAt = Date.UTC(2026, 0, 1);
    const ingestStart = performance.now();
    for (const b of batches) await rows.threadsUpsert(b.repository, b.threads, { observedAt });
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    const ingestRate = THREADS / ingestSeconds;

    // Queries as people type them: content words (technical and rarer ones, never a lone
    // function word), two- and three-word ANDs, natural phrases with a function word, prefixes,
    // filters, and next pages.
    const qrand = prng(99);
    const content = words.slice(STOP_WORDS.length);
    const pick = () => content[zipf(qrand, content.length)] ?? "build";
    const stop = () => STOP_WORDS[Math.floor(qrand() * STOP_WORDS.length)] ?? "the";
    const queries: SearchThreadsInput[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const shape = i % 10;
      const base: SearchThreadsInput = { query: pick(), limit: 20 };
      if (shape === 1) base.query = `${pick()} ${pick()}`;
      if (shape === 2) base.query = `${pick()} ${pick()} ${pick()}`;
      if (shape === 3) base.query = `${pick()} ${stop()} ${pick()}`;
      if (shape === 4) base.query = `${pick().slice(0, 4)}*`;
      if (shape === 5) base.repositories = [`org${i % REPOSITORIES}/repo${i % REPOSITORIES}`];
      if (shape === 6) Object.assign(base, { kind: "pull_request", state: "open" });
      if (shape === 7) base.label = LABELS[i % LABELS.length] ?? "bug";
      if (shape === 8) base.limit = 50;
      queries.push(SearchThreadsArgs.parse(base));
    }
    for (const q of queries.slice(0, 20)) searchThreads(rows, q); // warm caches
    const times: number[] = [];
    let hits = 0;
    let pagesFollowed = 0;
    let narrowed = 0;
    for (const q of queries) {
      const t0 = performance.now();
      const answer = searchThreads(rows, q);
      times.push(performance.now() - t0);
      hits += answer.items.length;
      if (answer.ranking !== "all_matches") narrowed++;
      if (answer.next_cursor !== null && pagesFollowed < 50) {
        pagesFollowed++;
        const t1 = performance.now();
        searchThreads(rows, { ...q, cursor: answer.next_cursor });
        times.push(performance.now() - t1);
      }
    }
    // Worst case, reported apart: a lone function word matching nearly every thread.
    const broad: number[] = [];
    for (const word of STOP_WORDS.slice(0, 20)) {
      const t0 = performance.now();
      searchThreads(rows, { query: word, limit: 20 });
      broad.push(performance.now() - t0);
    }
    broad.sort((a, b) => a - b);
    times.sort((a, b) => a - b);
    const p50 = percentile(times, 0.5);
    const p99 = percentile(times, 0.99);
    const dbBytes = Deno.statSync(`${dir}/bench.db`).size + (await fileSize(`${dir}/bench.db-wal`));
    return {
      title: `Corpus: ${THREADS.toLocaleString("en-US")} threads in ${REPOSITORIES} repositories`,
      rows: [
        {
          metric: "ingest through threadsUpsert (batches of 100, one transaction each)",
          value: `${Math.round(ingestRate).toLocaleString("en-US")} threads/s (${ingestSeconds.toFixed(1)} s)`,
          goal: `>= ${INGEST_GOAL_PER_S.toLocaleString("en-US")} threads/s`,
          met: ingestRate >= INGEST_GOAL_PER_S,
        },
        {
          metric: `search_threads p50 (${times.length} searches, ${pagesFollowed} of them next pages)`,
          value: `${p50.toFixed(2)} ms`,
        },
        {
          metric: "search_threads p99",
          value: `${p99.toFixed(2)} ms`,
          goal: `<= ${SEARCH_P99_GOAL_MS} ms`,
          met: p99 <= SEARCH_P99_GOAL_MS,
        },
        { metric: "search_threads max", value: `${(times.at(-1) ?? NaN).toFixed(2)} ms` },
        {
          metric: "mean hits per search; searches ranking only the newest matches",
          value: `${(hits / queries.length).toFixed(1)}; ${narrowed} of ${queries.length}`,
        },
        {
          metric: "broad query (one function word, matches ~all threads) p50 / max",
          value: `${percentile(broad, 0.5).toFixed(2)} ms / ${(broad.at(-1) ?? NaN).toFixed(2)} ms`,
        },
        { metric: "database size", value: `${(dbBytes / 1024 / 1024).toFixed(0)} MiB` },
      ],
    };
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return 0;
  }
}

if (import.meta.main) {
  const section = await benchCorpus();
  console.log(section.title);
  for (const row of section.rows) {
    const goal = row.goal === undefined ? "" : `  (goal ${row.goal}: ${row.met ? "met" : "NOT met"})`;
    console.log(`  ${row.metric}: ${row.value}${goal}`);
  }
}
