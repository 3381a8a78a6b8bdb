/**
 * The scripted "model" every host drives (no network, no LLM) and its meter: model calls, tool
 * calls, model-visible bytes and the context re-read, with a timed transcript.
 *
 * @module
 */

import type { Json } from "../scenarios.ts";

/** Counters of one run. */
export interface Meter {
  /** Model inferences: each reads the conversation so far and writes a tool call or the answer. */
  modelCalls: number;
  /** Tool calls the model wrote. */
  toolCalls: number;
  /** UTF-8 bytes the model read (tool results) and wrote (tool call arguments). */
  visibleBytes: number;
  /** Sum over model calls of the conversation bytes each one re-reads (tool traffic only). */
  contextBytes: number;
  /** Requests the host made on its own, outside the model (`tasks/get`, `tasks/cancel`). */
  hostRequests: number;
}

/** One line of a run's transcript. */
export interface TranscriptEntry {
  /** Real milliseconds since the run's first model call. */
  atMs: number;
  who: "model" | "tool" | "host" | "user";
  text: string;
  bytes?: number;
}

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/**
 * A deterministic stand-in for the model: the drivers tell it what it decided; it counts what an LLM would
 * have had to read and write. The decisions themselves are scripted in the drivers.
 */
export class ScriptedModel {
  readonly meter: Meter = { modelCalls: 0, toolCalls: 0, visibleBytes: 0, contextBytes: 0, hostRequests: 0 };
  readonly transcript: TranscriptEntry[] = [];
  readonly startedAt = Date.now();
  #context = 0;
  #onChange: () => void;

  constructor(onChange: () => void = () => {}) {
    this.#onChange = onChange;
  }

  #log(who: TranscriptEntry["who"], text: string, options: { bytes?: number } = {}) {
    const { bytes } = options;
    this.transcript.push({ atMs: Date.now() - this.startedAt, who, text, ...(bytes === undefined ? {} : { bytes }) });
  }

  /** One model inference that writes a tool call. */
  callTool(name: string, args: Record<string, Json>): void {
    const text = JSON.stringify(args);
    const bytes = utf8(text);
    this.meter.modelCalls++;
    this.meter.contextBytes += this.#context;
    this.meter.toolCalls++;
    this.meter.visibleBytes += bytes;
    this.#context += bytes;
    this.#log("model", `${name} ${text}`, { bytes });
    this.#onChange();
  }

  /** A tool result (or a tool error) lands in the model's context. */
  read(text: string, label: string): void {
    const bytes = utf8(text);
    this.meter.visibleBytes += bytes;
    this.#context += bytes;
    this.#log("tool", label, { bytes });
    this.#onChange();
  }

  /** The final model inference: it reads everything and answers the user. */
  answer(text: string): void {
    this.meter.modelCalls++;
    this.meter.contextBytes += this.#context;
    this.#log("model", `answer: ${text}`);
    this.#onChange();
  }

  /** Something the host or the user did without the model (`options.hostRequest`: a request the host sent). */
  note(who: "host" | "user", text: string, options: { hostRequest?: boolean } = {}): void {
    if (options.hostRequest === true) this.meter.hostRequests++;
    this.#log(who, text);
    this.#onChange();
  }
}
