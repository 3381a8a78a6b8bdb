/**
 * Where the GitHub REST API is unless configured otherwise. On its own so that a process which
 * only admits GitHub jobs (the serving thread, whose jobs run in the network worker) reads the
 * default without loading the client.
 *
 * @module
 */

/** github.com's REST API root (GHES: `https://host/api/v3`). */
export const GITHUB_API_URL_DEFAULT = "https://api.github.com";
