/**
 * A `/issues` listing that does not skip threads updated while it is paged.
 *
 * GitHub pages `GET /repos/{o}/{r}/issues?sort=updated` by `page=N`. A thread updated
 * between two page reads moves: with `direction=desc` it jumps to page 1 (already read) and
 * is never seen at its old place, while the thread at each page boundary shifts one place
 * down and is read twice. With a `state` filter, a thread that leaves the filter (closed
 * during an `open` listing) shifts every later thread one place up, and the one at the
 * next page boundary is skipped although it never changed.
 *
 * {@linkcode listIssuesStable} therefore:
 *
 * 1. lists newest first (`sort=updated&direction=desc`), newer version of a thread wins;
 * 2. when that took more than one page (one page is a single consistent answer), re-lists
 *    with `state=all&since=M`, M the newest `updated_at` seen: every thread updated after
 *    page 1 was read has `updated_at >= M` and shows up there;
 * 3. repeats step 2 with the new M until a re-listing fits in one page and brings nothing
 *    new or newer (stable);
 * 4. when a thread seen earlier has left the `state` filter, a thread it shifted may be
 *    skipped without any trace, so the whole listing is read again;
 * 5. gives up after {@linkcode SYNC_RELISTINGS_MAX} re-listings and reports the listing
 *    incomplete (`complete: false`) instead of claiming a complete one.
 *
 * A thread seen matching the filter that has since left it is answered in its newest version
 * (so the corpus does not keep its old state), but it does not take one of `itemsMax`'s places.
 *
 * @module
 */

import { SYNC_RELISTINGS_MAX } from "../base/limits.ts";
import type { EndpointOptions, GitHubClient, RepoRef } from "./client.ts";
import type { GitHubIssue } from "./types.ts";

export { SYNC_RELISTINGS_MAX };

/** Options of {@linkcode listIssuesStable}. */
export interface StableListingOptions extends EndpointOptions {
  state: "open" | "closed" | "all";
  /** ISO 8601: only threads updated at or after it. */
  since?: string;
  /** Newest threads wanted (the listing stops there). */
  itemsMax?: number;
  /** Pages of the full listing (default the client's bound). */
  pagesMax?: number;
  /** Re-listings allowed after the first listing (default {@linkcode SYNC_RELISTINGS_MAX}). */
  relistingsMax?: number;
}

/** {@linkcode listIssuesStable}'s answer. */
export interface StableListing {
  /** Distinct threads, newest `updated_at` first (the newest version of each): at most `itemsMax`
   * matching the `state` filter, plus each one seen matching that has since left it. */
  items: GitHubIssue[];
  /** The full listing read every page (no bound cut it) and the result is stable. */
  complete: boolean;
  /** No thread was found moving when the last re-listing was read. */
  stable: boolean;
  /** Listings requested (the first one and every re-listing). */
  listings: number;
}

/** What {@linkcode ThreadVersions.merge} made of a thread it was given. */
export type MergeOutcome = "new" | "newer" | "same" | "older";

/** The newest version seen of each thread (by number and `updated_at`); pure bookkeeping of a listing. */
export class ThreadVersions<T extends { number: number; updated_at: string }> {
  readonly #seen = new Map<number, T>();

  /** Threads held. */
  get size(): number {
    return this.#seen.size;
  }

  /** Whether thread `number` was seen. */
  has(number: number): boolean {
    return this.#seen.has(number);
  }

  /** Keeps `thread` when it is new or newer than the version held; says which. */
  merge(thread: T): MergeOutcome {
    const old = this.#seen.get(thread.number);
    if (old === undefined) {
      this.#seen.set(thread.number, thread);
      return "new";
    }
    const a = Date.parse(thread.updated_at);
    const b = Date.parse(old.updated_at);
    if (a > b) {
      this.#seen.set(thread.number, thread);
      return "newer";
    }
    return a === b ? "same" : "older";
  }

  /** The newest `updated_at` held (ISO 8601), or undefined when nothing is. */
  newestUpdatedAt(): string | undefined {
    let best: number | undefined;
    for (const t of this.#seen.values()) {
      const at = Date.parse(t.updated_at);
      if (best === undefined || at > best) best = at;
    }
    return best === undefined ? undefined : new Date(best).toISOString();
  }

  /** Every thread held, newest `updated_at` first, ties by the higher number first. */
  newestFirst(): T[] {
    return [...this.#seen.values()].sort((a, b) =>
      Date.parse(b.updated_at) - Date.parse(a.updated_at) || b.number - a.number
    );
  }
}

function matches(state: StableListingOptions["state"], issue: GitHubIssue): boolean {
  return state === "all" || issue.state === state;
}

/** Lists the issues and pull requests of `repo` without skipping threads that move; see the module doc. */
export async function listIssuesStable(
  gh: GitHubClient,
  repo: RepoRef,
  options: StableListingOptions,
): Promise<StableListing> {
  const relistingsMax = options.relistingsMax ?? SYNC_RELISTINGS_MAX;
  if (!Number.isInteger(relistingsMax) || relistingsMax < 0 || relistingsMax > SYNC_RELISTINGS_MAX) {
    throw new RangeError(
      `Cannot re-list 0..${SYNC_RELISTINGS_MAX} times: current value of relistingsMax is ${relistingsMax}`,
    );
  }
  const { state, since, itemsMax, pagesMax, relistingsMax: _r, ...endpoint } = options;
  /** Threads that matched the filter at least once, newest version of each. */
  const seen = new ThreadVersions<GitHubIssue>();
  const newest = (): string | undefined => seen.newestUpdatedAt() ?? since;

  let listings = 0;
  const fullListing = async (): Promise<{ complete: boolean; pages: number }> => {
    listings++;
    const page = await gh.listIssues(repo, {
      ...endpoint,
      state,
      sort: "updated",
      direction: "desc",
      ...(since === undefined ? {} : { since }),
      ...(itemsMax === undefined ? {} : { itemsMax }),
      ...(pagesMax === undefined ? {} : { pagesMax }),
    });
    for (const issue of page.items) if (matches(state, issue)) seen.merge(issue);
    return { complete: page.complete, pages: page.pages };
  };

  let full = await fullListing();
  // One page is one consistent answer: nothing can have moved inside it.
  let stable = full.pages <= 1;
  let relistings = 0;
  while (!stable && relistings < relistingsMax) {
    relistings++;
    listings++;
    const from = newest();
    const again = await gh.listIssues(repo, {
      ...endpoint,
      state: "all",
      sort: "updated",
      direction: "desc",
      ...(from === undefined ? {} : { since: from }),
      ...(itemsMax === undefined ? {} : { itemsMax }),
    });
    let moved = false;
    let leftFilter = false;
    for (const issue of again.items) {
      if (!matches(state, issue)) {
        // A thread we saw matching has left the filter: later threads shifted up unseen.
        if (seen.has(issue.number) && seen.merge(issue) === "newer") leftFilter = true;
        continue;
      }
      const m = seen.merge(issue);
      if (m === "new" || m === "newer") moved = true;
    }
    if (leftFilter) {
      if (relistings >= relistingsMax) break;
      relistings++;
      full = await fullListing();
      continue;
    }
    stable = !moved && again.pages <= 1 && again.complete;
  }
  const items = seen.newestFirst();
  let kept = 0;
  return {
    items: itemsMax === undefined ? items : items.filter((i) => !matches(state, i) || kept++ < itemsMax),
    complete: full.complete && stable,
    stable,
    listings,
  };
}
