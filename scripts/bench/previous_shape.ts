/**
 * The bench's same-run measure of a second pipe fill (scripts/bench/mcp.ts, the previous-shape row): a 100-id
 * `jobs.get` answer rebuilt in the concise shape it had before issue 14 made it fit one fill.
 *
 * @module
 */

/**
 * A `jobs.get` answer in the concise shape it had until the concise view was made to fit 100 ids in one pipe
 * fill (issue 14), from the detailed answer of the same ids: each item's id, started_at and expires_at, and
 * cancellation_requested and completed_items even when false and 0 (the request and result the detailed view
 * adds left out). The same jobs, the bytes a 100-id answer had then.
 */
export function previousConciseAnswer(detailed: Record<string, unknown>): Record<string, unknown> {
  const items = (detailed["items"] as Record<string, unknown>[]).map((item) => {
    const value = item["value"] as Record<string, unknown> | undefined;
    if (value === undefined) return item;
    const { request: _request, result: _result, result_truncated: _t, result_omitted_bytes: _o, ...kept } = value;
    return {
      ...item,
      value: { completed_items: 0, ...kept, cancellation_requested: value["cancellation_requested"] ?? false },
    };
  });
  return { ...detailed, items };
}
