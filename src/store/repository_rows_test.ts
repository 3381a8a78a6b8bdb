import assert from "node:assert/strict";
import type { RepositoryObservation } from "./corpus_types.ts";
import { openDatabase } from "./db.ts";
import { RepositoryRows } from "./repository_rows.ts";
import { Connection } from "./tx.ts";

const T0 = Date.UTC(2026, 0, 1);

const obs: RepositoryObservation = {
  owner: "Acme",
  name: "widgets",
  description: "Widgets",
  topics: ["a", "b"],
  default_branch: "main",
  stargazers_count: 3,
  license: "MIT",
  archived: false,
  observed_at: T0,
};

async function withRows(fn: (rows: RepositoryRows) => Promise<void>): Promise<void> {
  const conn = new Connection(openDatabase(":memory:"));
  try {
    await fn(new RepositoryRows(conn));
  } finally {
    conn.close();
  }
}

Deno.test("RepositoryRows: stores owner/name as observed and reads it back; names compare case-insensitively", async () => {
  await withRows(async (rows) => {
    assert.equal(await rows.repositoryUpsert(obs), true);
    const [row, missing] = rows.repositoriesGet(["acme/WIDGETS", "acme/none"]);
    assert.deepEqual(row, {
      full_name: "Acme/widgets",
      owner: "Acme",
      name: "widgets",
      description: "Widgets",
      topics: ["a", "b"],
      default_branch: "main",
      stargazers_count: 3,
      license: "MIT",
      archived: false,
      synced_at: T0,
    });
    assert.equal(missing, undefined);
  });
});

Deno.test("RepositoryRows: an older observation is ignored; a newer one replaces every field", async () => {
  await withRows(async (rows) => {
    await rows.repositoryUpsert({ ...obs, observed_at: T0 + 10 });
    assert.equal(await rows.repositoryUpsert({ ...obs, description: "older", observed_at: T0 }), false);
    assert.equal(
      await rows.repositoryUpsert({
        ...obs,
        description: null,
        stargazers_count: null,
        archived: true,
        observed_at: T0 + 20,
      }),
      true,
    );
    const [row] = rows.repositoriesGet(["Acme/widgets"]);
    assert.deepEqual([row?.description, row?.stargazers_count, row?.archived, row?.synced_at], [
      null,
      null,
      true,
      T0 + 20,
    ]);
  });
});

Deno.test("RepositoryRows: a bad name, time or star count is refused before anything is written", async () => {
  await withRows(async (rows) => {
    const bad: [Partial<RepositoryObservation>, ErrorConstructor | RangeErrorConstructor, RegExp][] = [
      [{ owner: "-acme" }, TypeError, /repository must be owner\/name; current value is "-acme\/widgets"/],
      [{ name: ".." }, TypeError, /repository must be owner\/name/],
      [{ observed_at: -1 }, RangeError, /observed_at must be epoch milliseconds/],
      [{ stargazers_count: -1 }, RangeError, /stargazers_count must be an integer >= 0/],
    ];
    for (const [over, type, message] of bad) {
      await assert.rejects(
        () => rows.repositoryUpsert({ ...obs, ...over }),
        (err: unknown) => err instanceof type && message.test((err as Error).message),
        JSON.stringify(over),
      );
    }
    assert.deepEqual(rows.repositoriesGet(["Acme/widgets"]), [undefined]);
  });
});
