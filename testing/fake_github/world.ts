/**
 * The fake's mutable world: its clock (the injected `now` plus what `advance` added), the scenario
 * timeline and when it started, the generated repositories, and the issue changes tests make
 * (`touchIssue`, `touchIssueAfterPage`). Route handlers read it; the server lifecycle changes it.
 *
 * @module
 */

import issuesFixture from "../../fixtures/github/issues.json" with { type: "json" };
import { clone, iso } from "./answers.ts";
import {
  type FakeGitHubOptions,
  FIXTURE_REPO,
  type JsonObject,
  type ScenarioName,
  type ScenarioStep,
} from "./model.ts";
import { generatedIssue } from "./payloads.ts";
import { type ScenarioState, scenarioState, type ShaState } from "./state.ts";
import { SCENARIOS } from "./timelines.ts";

/** What `touchIssue` may change (besides `updated_at`, which it always sets). */
export type IssueChanges = { title?: string; state?: "open" | "closed" };

interface IssueOverride {
  updatedAt: number;
  title?: string;
  state?: "open" | "closed";
}

/** The fake's state; one per running fake. */
export class FakeWorld {
  readonly #baseNow: () => number;
  #offset = 0;
  #steps: readonly ScenarioStep[];
  #scenarioStart: number;
  /** Generated repositories: full name -> number of items. */
  readonly generated: ReadonlyMap<string, number>;
  readonly #generatedCache = new Map<string, JsonObject[]>();
  readonly #overrides = new Map<string, IssueOverride>();
  readonly #pendingMoves: Array<{ fullName: string; number: number; afterPage: number; changes: IssueChanges }> = [];

  constructor(options: FakeGitHubOptions) {
    this.#baseNow = options.now ?? (() => Date.now());
    this.#steps = typeof options.scenario === "object"
      ? options.scenario
      : SCENARIOS[options.scenario ?? "checks_pass"];
    this.#scenarioStart = this.now();
    this.generated = new Map<string, number>(Object.entries(options.generatedRepos ?? {}));
    for (const [name, n] of this.generated) {
      if (!/^[^/]+\/[^/]+$/.test(name) || !Number.isInteger(n) || n < 0) {
        throw new RangeError(`Cannot generate repository ${name}: current value of its item count is ${n}`);
      }
    }
  }

  /** The fake's current time. */
  now(): number {
    return this.#baseNow() + this.#offset;
  }

  /** Moves the fake's time forward. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`Cannot advance time: current value is ${ms}`);
    this.#offset += ms;
  }

  /** Restarts the checks timeline at the current time. */
  setScenario(scenario: ScenarioName | readonly ScenarioStep[]): void {
    const steps = typeof scenario === "object" ? scenario : SCENARIOS[scenario];
    if (steps === undefined) throw new RangeError(`Cannot set a scenario: current value is ${scenario}`);
    this.#steps = steps;
    this.#scenarioStart = this.now();
  }

  /** Milliseconds since the scenario started. */
  scenarioElapsedMs(): number {
    return this.now() - this.#scenarioStart;
  }

  /** The scenario state now. */
  scenario(): ScenarioState {
    return scenarioState({ steps: this.#steps, startMs: this.#scenarioStart }, this.now());
  }

  /** Whether the fake serves the repository (the fixture one or a generated one). */
  knownRepo(fullName: string): boolean {
    return fullName === FIXTURE_REPO || this.generated.has(fullName);
  }

  /** The issues and pull requests of a repository with the tests' changes applied; undefined when unknown. */
  issuesOf(fullName: string): JsonObject[] | undefined {
    let list: JsonObject[] | undefined;
    if (fullName === FIXTURE_REPO) {
      list = (issuesFixture as unknown[]).map(clone);
    } else if (this.generated.has(fullName)) {
      let cached = this.#generatedCache.get(fullName);
      if (cached === undefined) {
        const n = this.generated.get(fullName) ?? 0;
        cached = Array.from({ length: n }, (_, i) => generatedIssue(fullName, i + 1));
        this.#generatedCache.set(fullName, cached);
      }
      list = cached.map((x) => ({ ...x }));
    } else {
      return undefined;
    }
    for (const item of list) {
      const o = this.#overrides.get(`${fullName}#${item.number}`);
      if (o === undefined) continue;
      item.updated_at = iso(o.updatedAt);
      if (o.title !== undefined) item.title = o.title;
      if (o.state !== undefined) {
        item.state = o.state;
        item.closed_at = o.state === "closed" ? iso(o.updatedAt) : null;
      }
    }
    return list;
  }

  /** The checks and statuses of a commit of the fixture repository (`sparkline` is the head branch). */
  shaStateFor(fullName: string, ref: string): ShaState | undefined {
    if (fullName !== FIXTURE_REPO) return undefined;
    const s = this.scenario();
    const sha = ref === "sparkline" || ref === "heads/sparkline" ? s.headSha : ref;
    if (!s.knownShas.has(sha)) return undefined;
    return s.bySha.get(sha) ?? { checks: [], statuses: [] };
  }

  /** Marks an issue as updated now, with the changes `options` names. */
  touch(fullName: string, number: number, options: IssueChanges): void {
    const o: IssueOverride = { updatedAt: this.now() };
    if (options.title !== undefined) o.title = options.title;
    if (options.state !== undefined) o.state = options.state;
    this.#overrides.set(`${fullName}#${number}`, o);
  }

  /** Queues a {@linkcode touch} (with the changes `options` names) for right after page `options.afterPage` of
   * the repository's issue listing is answered. */
  touchAfterPage(fullName: string, number: number, options: IssueChanges & { afterPage: number }): void {
    const { afterPage, ...changes } = options;
    if (!Number.isInteger(afterPage) || afterPage < 1) {
      throw new RangeError(`Cannot move an issue after a page: current value of afterPage is ${afterPage}`);
    }
    this.#pendingMoves.push({ fullName, number, afterPage, changes });
  }

  /** Fires the first pending move for this page read (several moves for one page fire on successive reads). */
  applyMoves(fullName: string, page: number): void {
    const i = this.#pendingMoves.findIndex((m) => m.fullName === fullName && m.afterPage === page);
    const [m] = i < 0 ? [] : this.#pendingMoves.splice(i, 1);
    if (m !== undefined) this.touch(m.fullName, m.number, m.changes);
  }
}
