/**
 * `longcall search`: offline full-text search over the synced corpus (no network, no job). Its
 * flags map onto `corpus.search_threads`'s input, parsed with the tool's own schema
 * (src/corpus/inputs.ts), so the command and the tool refuse the same arguments.
 *
 * @module
 */

import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from "../base/limits.ts";
import { zodToInvalidArgument } from "../base/validation.ts";
import { SearchThreadsArgs } from "../corpus/inputs.ts";
import { searchThreads } from "../corpus/search.ts";
import { openStore } from "../store/store.ts";
import { type Command, intOption } from "./command.ts";
import { dbForReading } from "./config.ts";
import { EXIT_OK, UsageError } from "./exit.ts";
import { dbOption, jsonOption, oneOf, THREAD_KIND_FLAG, THREAD_STATE_FLAG } from "./github_options.ts";

/** The `search` command. */
export function searchCommand(): Command {
  return {
    name: "search",
    summary: "Search synced issues and pull requests offline (titles and labels weigh most).",
    usage:
      "longcall search QUERY... [--repo OWNER/REPO]... [--kind K] [--state S] [--label L] [--limit N] [--cursor C] [--json] [--db PATH]",
    description: [
      "Reads only the local corpus (no network): sync repositories first with `longcall sync`. Words are ANDed;",
      "`word*` matches a prefix. A repository never synced is reported as not synced: its matches are unknown,",
      "not absent. Exit code 0 (also with no hits), 2 usage.",
    ].join("\n"),
    options: {
      repo: { type: "string", multiple: true, help: "Only this repository (repeatable)", value: "OWNER/REPO" },
      kind: { type: "string", help: "issue, pull_request or both (default)", value: "K" },
      state: { type: "string", help: "open, closed or all (default)", value: "S" },
      label: { type: "string", help: "Only threads with this label", value: "L" },
      limit: {
        type: "string",
        help: `Hits per page (1..${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT})`,
        value: "N",
      },
      cursor: { type: "string", help: "Next page: the cursor printed by the previous page", value: "C" },
      json: jsonOption,
      db: dbOption,
    },
    examples: [
      'longcall search "flaky timeout" --repo denoland/deno',
      "longcall search panic --kind issue --state open --label bug --json",
    ],
    run(values, positionals) {
      const query = positionals.join(" ").trim();
      if (query === "") throw new UsageError("Cannot search: give a QUERY");
      const args: Record<string, unknown> = {
        query,
        kind: oneOf(values.kind, THREAD_KIND_FLAG),
        state: oneOf(values.state, THREAD_STATE_FLAG),
        limit: intOption(values.limit, {
          name: "limit",
          min: 1,
          max: SEARCH_LIMIT_MAX,
          fallback: SEARCH_LIMIT_DEFAULT,
        }),
      };
      const repos = values.repo as string[] | undefined;
      if (repos !== undefined && repos.length > 0) args.repositories = repos;
      if (values.label !== undefined) args.label = String(values.label);
      if (values.cursor !== undefined) args.cursor = String(values.cursor);
      const parsed = SearchThreadsArgs.safeParse(args);
      if (!parsed.success) throw zodToInvalidArgument(parsed.error); // main.ts: exit 2 with its message
      const input = parsed.data;
      // A read of the corpus only: no job is admitted or run, so no runtime (control side or
      // execution) is opened, only the store.
      const store = openStore(dbForReading(values.db as string | undefined));
      try {
        const answer = searchThreads(store.corpus, input);
        if (values.json === true) {
          console.log(JSON.stringify(answer, null, 2));
          return Promise.resolve(EXIT_OK);
        }
        for (const c of answer.coverage) {
          if (c.status === "not_synced") {
            console.error(
              `note: ${c.repository} was never synced; its matches are unknown (longcall sync ${c.repository})`,
            );
          }
        }
        if (answer.items.length === 0) console.log("No matching threads in the corpus.");
        const width = Math.max(...answer.items.map((i) => i.ref.length), 8);
        for (const hit of answer.items) {
          const kind = hit.kind === "pull_request" ? "pr" : "issue";
          const labels = hit.labels.length === 0 ? "" : `  [${hit.labels.join(", ")}]`;
          console.log(`${hit.ref.padEnd(width)}  ${`${hit.state} ${kind}`.padEnd(12)}  ${hit.title}${labels}`);
        }
        if (answer.next_cursor !== null) console.log(`more: --cursor ${answer.next_cursor}`);
        return Promise.resolve(EXIT_OK);
      } finally {
        store.close();
      }
    },
  };
}
