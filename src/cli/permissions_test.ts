/**
 * The pure parts of src/cli/permissions.ts: the flag list, its audit, the launch line and netHostOf
 * (the --github-host parsing is tested in tests/distribution_test.ts). tests/permissions_test.ts
 * proves the flags on real processes.
 */

import assert from "node:assert/strict";
import {
  auditFlags,
  FORBIDDEN_FLAGS,
  GITHUB_API_HOST,
  HTTP_BIND_HOSTS,
  launchFlags,
  netHostOf,
  permissionFlags,
  RESOLUTION_FLAGS,
  V8_FLAGS,
} from "./permissions.ts";

Deno.test("permissionFlags() grants no run, ffi or sys and scopes net and env", () => {
  const flags = permissionFlags();
  assert.deepEqual(auditFlags(flags), []);
  for (const forbidden of FORBIDDEN_FLAGS) assert.ok(!flags.some((f) => f.split("=")[0] === forbidden), forbidden);
  assert.ok(flags.includes("--no-prompt"));
  const net = flags.find((f) => f.startsWith("--allow-net="));
  assert.equal(net, `--allow-net=${GITHUB_API_HOST},127.0.0.1,[::1]`);
  assert.ok(flags.some((f) => f.startsWith("--allow-env=") && f.includes("GITHUB_TOKEN")));
});

Deno.test("auditFlags() flags every forbidden or unscoped permission", () => {
  assert.deepEqual(auditFlags(["--allow-run"]), ["forbidden flag --allow-run"]);
  assert.deepEqual(auditFlags(["--allow-ffi"]), ["forbidden flag --allow-ffi"]);
  assert.deepEqual(auditFlags(["--allow-sys"]), ["forbidden flag --allow-sys"]);
  assert.deepEqual(auditFlags(["-A"]), ["forbidden flag -A"]);
  assert.deepEqual(auditFlags(["--allow-net"]), ["unscoped --allow-net"]);
  assert.deepEqual(auditFlags(["--allow-env"]), ["unscoped --allow-env"]);
});

Deno.test("launchFlags() is the permission flags, RESOLUTION_FLAGS, V8_FLAGS; auditFlags() refuses any other of those", () => {
  assert.deepEqual(launchFlags(), [...permissionFlags(), ...RESOLUTION_FLAGS, ...V8_FLAGS]);
  assert.deepEqual(RESOLUTION_FLAGS, ["--conditions=browser"]);
  for (const other of ["--conditions=node", "--conditions=browser,node", "--conditions"]) {
    assert.deepEqual(auditFlags([other]), [`unexpected flag ${other}`]);
  }
  assert.deepEqual(auditFlags(launchFlags()), []);
  assert.deepEqual(auditFlags(["--v8-flags=--allow-natives-syntax"]), [
    "unexpected flag --v8-flags=--allow-natives-syntax",
  ]);
  assert.deepEqual(auditFlags(["--v8-flags=--max-semi-space-size=1"]), [
    "unexpected flag --v8-flags=--max-semi-space-size=1",
  ]);
  assert.deepEqual(auditFlags(["--v8-flags=--max-semi-space-size=1,--expose-gc,--allow-natives-syntax"]), [
    "unexpected flag --v8-flags=--max-semi-space-size=1,--expose-gc,--allow-natives-syntax",
  ]);
});

Deno.test("permissionFlags({ githubHosts }) grants net to those hosts plus loopback, once each", () => {
  const net = (hosts: string[]) => permissionFlags({ githubHosts: hosts }).find((f) => f.startsWith("--allow-net="));
  assert.equal(net(["127.0.0.1:4567"]), "--allow-net=127.0.0.1:4567,127.0.0.1,[::1]");
  assert.equal(
    net(["127.0.0.1"]),
    `--allow-net=${HTTP_BIND_HOSTS.join(",")}`,
    "a loopback GitHub host is not repeated",
  );
  assert.equal(net(["ghe.example.com", "ghe.example.com"]), "--allow-net=ghe.example.com,127.0.0.1,[::1]");
  assert.deepEqual(auditFlags(permissionFlags({ githubHosts: ["ghe.example.com:8443"] })), []);
});

Deno.test("auditFlags() refuses --allow-import and passes scoped grants and plain flags", () => {
  assert.deepEqual(auditFlags(["--allow-import"]), ["unexpected flag --allow-import"]);
  assert.deepEqual(auditFlags(["--allow-import=example.com"]), ["unexpected flag --allow-import=example.com"]);
  assert.deepEqual(auditFlags(["--allow-all"]), ["forbidden flag --allow-all"]);
  assert.deepEqual(auditFlags(["--allow-run=git"]), ["forbidden flag --allow-run=git"], "a scoped run is still run");
  assert.deepEqual(auditFlags(["--allow-net=api.github.com", "--allow-env=HOME", "--allow-read", "--no-prompt"]), []);
  assert.deepEqual(auditFlags([]), []);
});

Deno.test("netHostOf() is host:port with an explicit port and the bare host on the scheme's default port", () => {
  assert.equal(netHostOf("https://api.github.com"), GITHUB_API_HOST);
  assert.equal(netHostOf("https://ghe.example.com/api/v3"), "ghe.example.com");
  assert.equal(netHostOf("https://ghe.example.com:443/api/v3"), "ghe.example.com", "443 is https's default");
  assert.equal(netHostOf("http://127.0.0.1:45678"), "127.0.0.1:45678");
  assert.equal(netHostOf("http://[::1]:8080/x"), "[::1]:8080");
  assert.throws(() => netHostOf("not a url"), TypeError);
});
