import assert from "node:assert/strict";
import { forwardCancellations, RequestCancels } from "./cancels.ts";

Deno.test("RequestCancels.cancel() aborts every call under (authority, request id) with the reason, and no other", () => {
  const cancels = new RequestCancels();
  const a = cancels.open("token-a", 7);
  const twin = cancels.open("token-a", 7);
  const otherAuthority = cancels.open("token-b", 7);
  const stringId = cancels.open("token-a", "7");
  const anonymous = cancels.open(null, 7);
  assert.equal(cancels.size, 4, "one key per (authority, id), two calls under one of them");
  cancels.cancel("token-a", 7, { reason: "client said so" });
  assert.equal(a.signal.aborted, true);
  assert.equal(a.signal.reason, "client said so");
  assert.equal(twin.signal.aborted, true, "a colliding id of the same authority ends too");
  assert.equal(otherAuthority.signal.aborted, false, "another authority's request 7 is untouched");
  assert.equal(stringId.signal.aborted, false, 'the string id "7" is not the number 7');
  assert.equal(anonymous.signal.aborted, false);
});

Deno.test("RequestCancels: close() forgets a call; the key goes once its last call closes; cancel of an unknown key is a no-op", () => {
  const cancels = new RequestCancels();
  const a = cancels.open(null, 1);
  const b = cancels.open(null, 1);
  a.close();
  assert.equal(cancels.size, 1);
  cancels.cancel(null, 1);
  assert.equal(a.signal.aborted, false, "a closed call is not aborted");
  assert.equal(b.signal.aborted, true);
  b.close();
  b.close();
  assert.equal(cancels.size, 0);
  cancels.cancel(null, 99);
});

Deno.test("forwardCancellations() routes the SDK's _oncancel to the registry and still calls the SDK's own", async () => {
  const cancels = new RequestCancels();
  const seen: unknown[] = [];
  const server = {
    _oncancel(notification: { params: { requestId?: string | number; reason?: unknown } }): Promise<void> {
      seen.push(notification.params.requestId);
      return Promise.resolve();
    },
  };
  forwardCancellations(server, { cancels, authority: "tok" });
  const call = cancels.open("tok", "r1");
  await server._oncancel({ params: { requestId: "r1", reason: "bye" } });
  assert.equal(call.signal.aborted, true);
  assert.equal(call.signal.reason, "bye");
  await server._oncancel({ params: {} });
  assert.deepEqual(seen, ["r1", undefined], "the SDK's handler ran both times");
});

Deno.test("forwardCancellations() leaves a server without _oncancel (another SDK version) unchanged", () => {
  const server = {};
  forwardCancellations(server, { cancels: new RequestCancels(), authority: null });
  assert.deepEqual(Object.keys(server), []);
});
