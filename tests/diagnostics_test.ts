/**
 * Honest diagnostics (issue 12, finding 7), as real child processes with explicit flags:
 * `longcall permissions` reports the flags the process really runs with (queried from Deno)
 * and lists every grant beyond the shipped set as a problem (`--check` exits 1); a database
 * path holding random bytes or a directory fails start-up naming the path and what is wrong,
 * never "internal error".
 *
 *   deno test --allow-read --allow-write --allow-env --allow-run --allow-net=127.0.0.1 tests/diagnostics_test.ts
 */

import assert from "node:assert/strict";
import { permissionFlags } from "../src/cli/permissions.ts";
import { openDatabase } from "../src/store/db.ts";
import { tempDir } from "../testing/temp.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = `${ROOT}src/main.ts`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function deno(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    env: { LONGCALL_LOG: "warn", LONGCALL_DB: "", ...env },
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

interface Report {
  flags: string[];
  shipped_flags: string[];
  problems: string[];
  notes: string[];
}

const GITHUB = "127.0.0.1:45679";
const ENV = { LONGCALL_GITHUB_API_URL: `http://${GITHUB}` };
const SHIPPED = permissionFlags({ githubHosts: [GITHUB] });

Deno.test("longcall permissions under the shipped flags: those flags, no problems, --check exits 0", async () => {
  await using dir = await tempDir();
  const r = await deno(["run", ...SHIPPED, MAIN, "permissions", "--json", "--check", "--db", dir.file("x.db")], ENV);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  assert.deepEqual(report.flags, SHIPPED);
  assert.deepEqual(report.shipped_flags, SHIPPED);
  assert.deepEqual(report.problems, []);
});

Deno.test("longcall permissions under -A: reports --allow-all as a problem; --check exits 1, without it 0", async () => {
  await using dir = await tempDir();
  // -A alone cannot create the network worker (Deno exits asking for --unstable-worker-options).
  const args = ["run", "-A", "--unstable-worker-options", MAIN, "permissions", "--json", "--db", dir.file("x.db")];
  const plain = await deno(args, ENV);
  assert.equal(plain.code, 0, plain.stderr);
  const report = JSON.parse(plain.stdout) as Report;
  assert.deepEqual(report.flags, ["--allow-all"]);
  assert.ok(report.problems.includes("forbidden flag --allow-all"), JSON.stringify(report.problems));
  const checked = await deno([...args, "--check"], ENV);
  assert.equal(checked.code, 1, checked.stderr);
  // The text report says so too.
  const text = await deno(
    ["run", "-A", "--unstable-worker-options", MAIN, "permissions", "--db", dir.file("x.db")],
    ENV,
  );
  assert.match(text.stdout, /Flags in effect \(queried from Deno\):\n {2}--allow-all/);
  assert.match(text.stdout, /forbidden flag --allow-all/);
  assert.doesNotMatch(text.stdout, /Problems: none/);
});

Deno.test("longcall permissions lists every grant beyond the shipped set and prints the flags in effect", async () => {
  await using dir = await tempDir();
  const extra = [
    "--no-prompt",
    "--unstable-worker-options",
    "--allow-net", // unscoped
    "--allow-env=LONGCALL_DB,LONGCALL_LOG,LONGCALL_GITHUB_API_URL,HOME,AWS_SECRET_ACCESS_KEY",
    `--allow-read=${dir.path},${ROOT}`,
    `--allow-write=${dir.path}`,
    "--allow-run=git",
    "--allow-sys=hostname",
  ];
  const r = await deno(["run", ...extra, MAIN, "permissions", "--json", "--check", "--db", dir.file("x.db")], ENV);
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  assert.deepEqual(report.flags, [
    "--no-prompt",
    "--unstable-worker-options",
    "--allow-net",
    "--allow-env=LONGCALL_DB,LONGCALL_LOG,LONGCALL_GITHUB_API_URL,HOME,AWS_SECRET_ACCESS_KEY",
    `--allow-read=${dir.path}`,
    `--allow-write=${dir.path}`,
    "--allow-run=git",
    "--allow-sys=hostname",
  ]);
  for (
    const p of [
      "unscoped --allow-net",
      "env AWS_SECRET_ACCESS_KEY is granted beyond the shipped list",
      "forbidden flag --allow-run=git",
      "forbidden flag --allow-sys=hostname",
    ]
  ) {
    assert.ok(report.problems.includes(p), `${p} in ${JSON.stringify(report.problems)}`);
  }
});

Deno.test("longcall permissions: a scoped net grant to another host is a problem", async () => {
  await using dir = await tempDir();
  const flags = SHIPPED.map((f) => f.startsWith("--allow-net=") ? `${f},example.com:443` : f);
  const r = await deno(["run", ...flags, MAIN, "permissions", "--json", "--check", "--db", dir.file("x.db")], ENV);
  assert.equal(r.code, 1, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  assert.deepEqual(report.problems, ["net to example.com:443 is granted beyond the shipped set"]);
  assert.ok(report.flags.includes(`--allow-net=${GITHUB},127.0.0.1,[::1],example.com:443`), report.flags.join(" "));
});

Deno.test("start-up on random bytes or a directory at the database path names the path, never 'internal error'", async () => {
  await using dir = await tempDir();
  const random = dir.file("random.db");
  const bytes = new Uint8Array(64 * 1024);
  crypto.getRandomValues(bytes);
  await Deno.writeFile(random, bytes);
  const folder = dir.file("folder.db");
  await Deno.mkdir(folder);
  const flags = ["--no-prompt", `--allow-read=${dir.path}`, `--allow-write=${dir.path}`, "--allow-env", "--deny-net"];
  const cases: [string, string[], RegExp][] = [
    [random, ["jobs", "list"], /the file is not an SQLite database/],
    [folder, ["jobs", "list"], /it is a directory, not a database file/],
    [random, ["search", "x"], /the file is not an SQLite database/],
  ];
  for (const [path, command, what] of cases) {
    const r = await deno(["run", ...flags, MAIN, ...command, "--db", path]);
    assert.equal(r.code, 1, `${command.join(" ")} ${path}: ${r.stderr}`);
    assert.ok(r.stderr.includes(path), r.stderr);
    assert.match(r.stderr, what);
    assert.doesNotMatch(r.stderr, /internal error/i);
  }
  // serve too (it would otherwise read MCP messages from stdin first).
  const serve = await deno(["run", ...SHIPPED, MAIN, "serve", "--db", random], ENV);
  assert.equal(serve.code, 1, serve.stderr);
  assert.ok(serve.stderr.includes(random), serve.stderr);
  assert.match(serve.stderr, /not an SQLite database/);
  assert.doesNotMatch(serve.stderr, /internal error/i);
  assert.equal(serve.stdout, "");
  // The random file was left unchanged.
  assert.deepEqual(await Deno.readFile(random), bytes);
  // A path the file system refuses (here a file where a directory should be; a read-only mount or a directory
  // this user may not write is answered the same way): named, with what to do, never 'internal error'.
  const plain = dir.file("plain");
  await Deno.writeTextFile(plain, "");
  for (const path of [`${plain}/x.db`, `${plain}/sub/x.db`]) {
    const r = await deno(["run", ...SHIPPED, MAIN, "serve", "--db", path], ENV);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^longcall serve: Cannot use database path ${path}: Not a directory .*--db`));
    assert.doesNotMatch(r.stderr, /internal error/i);
  }
});

/**
 * Makes `path` read-only for this process: mode 0444, and where that does not stop it (root) the immutable
 * attribute. Returns why it could not, or undefined; `undo` gives the file back to the test's clean-up.
 */
async function readOnlyFile(path: string): Promise<{ reason?: string; undo(): Promise<void> }> {
  await Deno.chmod(path, 0o444);
  const writable = () => Deno.open(path, { write: true }).then((f) => (f.close(), true), () => false);
  const chattr = (flag: string) => new Deno.Command("chattr", { args: [flag, path], stderr: "piped" }).output();
  if (!await writable()) return { undo: () => Deno.chmod(path, 0o644) };
  try {
    const out = await chattr("+i");
    if (out.success) return { undo: async () => void await chattr("-i") };
    return {
      reason: `chattr +i failed: ${new TextDecoder().decode(out.stderr).trim()}`,
      undo: () => Promise.resolve(),
    };
  } catch (err) {
    return { reason: `no chattr: ${err}`, undo: () => Promise.resolve() };
  }
}

Deno.test("an existing database file this user may not write is refused at start, by path, before serving", async () => {
  await using dir = await tempDir();
  const db = dir.file("ro.db");
  openDatabase(db).close();
  const ro = await readOnlyFile(db);
  try {
    if (ro.reason !== undefined) {
      console.log(`skipped: cannot make a file read-only for root here (${ro.reason})`);
      return;
    }
    for (const command of [["serve"], ["jobs", "list"]]) {
      const r = await deno(["run", ...SHIPPED, MAIN, ...command, "--db", db], ENV);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`^longcall ${command.join(" ")}: Cannot use database path ${db}: .*--db`));
      assert.equal(r.stdout, "", "nothing served");
    }
  } finally {
    await ro.undo();
  }
});
