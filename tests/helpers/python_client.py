"""The official Python MCP client (`mcp` 2.3.0, `mcp.Client`) driving a longcall stdio server.

Spawned by tests/python_client_test.ts with a venv's python. `Client.call_tool` validates every
result's `structuredContent` against the tool's advertised `outputSchema` with `jsonschema` and
raises on a mismatch, so each call below either returns a result that client accepts or ends this
script with the client's own error. The client declares no Tasks extension: job tools answer with
a JobReference, which the script follows with `jobs.get` as a host without tasks would.

    python python_client.py MODE DENO_JSON_ARGS
      MODE            legacy (initialize) or auto (2026-07-28 server/discover first)
      DENO_JSON_ARGS  JSON: {"command": ..., "args": [...], "env": {...}} of the server

Prints one JSON line: what each call returned (the tool, isError, and what the test checks).
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters

WATCH = {"owner": "octo", "repo": "widgets", "number": 42, "poll_interval_ms": 5000, "timeout_ms": 600000}
SYNC = {"repositories": ["a/one", "octo/absent"]}
UNKNOWN_ID = "019adf3c5e21-0b9c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8"


async def main() -> None:
    mode, target = sys.argv[1], json.loads(sys.argv[2])
    server = StdioServerParameters(command=target["command"], args=target["args"], env=target["env"])
    out: dict = {"mode": mode, "calls": []}

    async with Client(server, mode=mode, read_timeout_seconds=60) as client:
        out["protocol_version"] = client.protocol_version
        tools = (await client.list_tools()).tools
        out["tools"] = sorted(t.name for t in tools)

        async def call(name: str, arguments: dict) -> dict:
            result = await client.call_tool(name, arguments)  # raises when structuredContent misfits
            structured = result.structured_content or {}
            out["calls"].append({"tool": name, "is_error": bool(result.is_error), "keys": sorted(structured)})
            return {"is_error": bool(result.is_error), "structured": structured}

        async def follow(job_id: str) -> dict:
            """jobs.get with wait_ms until the job ends; then its detailed item (the typed result)."""
            for _ in range(20):
                answer = await call("jobs.get", {"ids": [job_id], "wait_ms": 20000, "until": "terminal"})
                item = answer["structured"]["items"][0]
                if item["value"]["execution_state"] == "terminal":
                    break
            detailed = await call("jobs.get", {"ids": [job_id], "response_format": "detailed"})
            return detailed["structured"]["items"][0]["value"]

        watch = await call("github.wait_pull_request_checks", WATCH)
        out["watch_reference"] = watch["structured"].get("ref")
        out["watch"] = await follow(watch["structured"]["id"])

        sync = await call("github.sync_threads", SYNC)
        out["sync"] = await follow(sync["structured"]["id"])

        out["search"] = (await call("corpus.search_threads", {"query": "generated"}))["structured"].get("items", [])[:1]
        await call("corpus.get_threads", {"threads": ["a/one#1", "a/one#999"], "view": "full"})
        await call("corpus.get_repositories", {"repositories": ["a/one", "b/never"]})
        await call("corpus.get_pull_request_checks", {"pull_requests": ["octo/widgets#42", "octo/widgets#7"]})
        await call("jobs.get", {"ids": [UNKNOWN_ID, "not-an-id"] + [watch["structured"]["id"]] * 3})
        await call("jobs.cancel", {"ids": [UNKNOWN_ID, watch["structured"]["id"]]})
        # A refused argument: an isError result whose structuredContent is the typed error.
        out["refused"] = (await call("github.wait_pull_request_checks", {"owner": "octo"}))["structured"]

    print(json.dumps(out))


asyncio.run(main())
