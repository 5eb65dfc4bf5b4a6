// A vitest setup file (vitest.config.ts `setupFiles`): every write a test makes to the console
// or to process.stdout / process.stderr is captured instead of shown, and a test that wrote
// without calling expectOutput() (./output.ts) fails in afterEach with what it wrote and where.
// Writes outside any test (a file loading, beforeAll, afterAll) fail the file in afterAll.
//
// Only this worker process is watched: vitest's reporters run in the main process, and a child
// process a test spawns writes to its own stdio, not through these streams. Writes straight to
// a file descriptor (fs.writeSync(1, …)) are not seen. A write from a callback that outlives
// its test counts for whichever test, or the file, is running when it happens; a file's tests
// are taken to run one at a time (no it.concurrent).
import { Console } from "node:console";
import { relative } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeEach } from "vitest";
import { type CapturedWrite, describeWrites, guardState, recordWrite } from "./output.ts";

/**
 * The console methods taken over; time, countReset and groupEnd write nothing but keep the
 * capturing console's timers, counters and indentation.
 */
const consoleMethods = [
  "log",
  "info",
  "debug",
  "warn",
  "error",
  "trace",
  "dir",
  "dirxml",
  "table",
  "assert",
  "count",
  "countReset",
  "group",
  "groupCollapsed",
  "groupEnd",
  "time",
  "timeEnd",
  "timeLog",
] as const;

const guarded = Symbol.for("castellan.test-output-guard.wrapper");
const guardFiles = new Set([fileURLToPath(import.meta.url), fileURLToPath(new URL("./output.ts", import.meta.url))]);

/** Named for a write with no caller of ours on the stack, such as a Node warning printed from a callback. */
const unknownPlace = "an unknown place (only Node's own frames on the stack)";

/** The console call under way, so that the capturing console's writes are named after it. */
let calling: { channel: string; location: string } | undefined;

/** A stream that records what the capturing console writes to it. */
function sink(stream: CapturedWrite["stream"]): Writable {
  const writable = new Writable();
  writable.write = ((chunk: unknown) => {
    recordWrite({
      channel: calling?.channel ?? "console",
      stream,
      text: String(chunk),
      location: calling?.location ?? unknownPlace,
    });
    return true;
  }) as Writable["write"];
  return writable;
}

const capturing = new Console({ stdout: sink("stdout"), stderr: sink("stderr"), colorMode: false });

/** The first frame of the current stack outside the guard, Node's internals and node_modules. */
function callerLocation(): string {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  Error.captureStackTrace(holder, callerLocation);
  Error.stackTraceLimit = limit;
  for (const line of (holder.stack ?? "").split("\n").slice(1)) {
    const match = /\(?([^\s()]+):(\d+):(\d+)\)?$/.exec(line.trim());
    if (!match) continue;
    const [, where = "", row, column] = match;
    if (where.startsWith("node:") || where.includes("/node_modules/")) continue;
    const file = where.startsWith("file://") ? fileURLToPath(where) : where;
    if (guardFiles.has(file)) continue;
    return `${relative(process.cwd(), file)}:${row}:${column}`;
  }
  return unknownPlace;
}

function mark<T extends object>(wrapper: T): T {
  Object.defineProperty(wrapper, guarded, { value: true });
  return wrapper;
}

function isGuarded(value: unknown): boolean {
  return typeof value === "function" && (value as { [guarded]?: boolean })[guarded] === true;
}

function guardConsole(): void {
  for (const method of consoleMethods) {
    if (isGuarded(console[method])) continue;
    const capture = capturing[method] as (...args: unknown[]) => void;
    console[method] = mark((...args: unknown[]) => {
      calling = { channel: `console.${method}`, location: callerLocation() };
      try {
        capture.apply(capturing, args);
      } finally {
        calling = undefined;
      }
    });
  }
}

function guardStream(name: CapturedWrite["stream"]): void {
  const stream = process[name];
  if (isGuarded(stream.write)) return;
  stream.write = mark((chunk: unknown, encoding?: unknown, callback?: unknown) => {
    const done = typeof encoding === "function" ? encoding : callback;
    const text =
      typeof chunk === "string"
        ? chunk
        : Buffer.from(chunk as Uint8Array).toString(
            typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8",
          );
    recordWrite({ channel: `process.${name}.write`, stream: name, text, location: callerLocation() });
    if (typeof done === "function") process.nextTick(done as () => void);
    return true;
  }) as typeof stream.write;
}

/** Puts the guard in place; again before each test, in case a test replaced a method and left it. */
function guard(): void {
  guardConsole();
  guardStream("stdout");
  guardStream("stderr");
}

/** An error whose report is its message alone: the guard's own stack says nothing about the test. */
function unexpectedOutput(message: string): Error {
  const error = new Error(message);
  error.name = "UnexpectedOutputError";
  error.stack = `${error.name}: ${message}`;
  return error;
}

guard();
// A worker may run several test files: what an earlier file left behind is not this file's.
Object.assign(guardState(), { test: undefined, expected: false, outside: [] });

beforeEach(() => {
  guard();
  const state = guardState();
  state.test = [];
  state.expected = false;
});

afterEach(() => {
  const state = guardState();
  const writes = state.test ?? [];
  const expected = state.expected;
  state.test = undefined;
  state.expected = false;
  if (expected && writes.length === 0) {
    throw unexpectedOutput("This test called expectOutput() but wrote nothing to the console, stdout or stderr.");
  }
  if (!expected && writes.length > 0) {
    throw unexpectedOutput(
      describeWrites(
        "This test wrote to the console, stdout or stderr without calling expectOutput() (test-support/output.ts):",
        writes,
      ),
    );
  }
});

afterAll(() => {
  const state = guardState();
  const writes = state.outside.splice(0);
  if (writes.length > 0) {
    throw unexpectedOutput(
      describeWrites(
        "This file wrote to the console, stdout or stderr outside any test (loading, beforeAll, afterAll):",
        writes,
      ),
    );
  }
});
