/**
 * The Tasks extension's adapter as test and benchmark servers hand it to `runServer` and
 * `createServerFactory` (`ServerDeps.tasks`): already imported, as the bundle's entry hands it over.
 * src/main.ts loads it dynamically instead, at a server's first modern connection.
 *
 * @module
 */

import * as adapter from "../src/tasks/adapter.ts";

/** Resolves to src/tasks/adapter.ts. */
export const tasksAdapter = (): Promise<typeof adapter> => Promise.resolve(adapter);
