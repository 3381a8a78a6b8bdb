import type { Migration } from "../migrations.ts";

/** The offline corpus: placeholder until the corpus tables land (GitHub issue). */
export const M002_CORPUS: Migration = {
  version: 2,
  name: "corpus",
  sql: `
CREATE TABLE http_etags (
  url TEXT PRIMARY KEY,
  etag TEXT NOT NULL,
  body TEXT NOT NULL,
  stored_at INTEGER NOT NULL
) STRICT;
`,
};
