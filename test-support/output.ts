// What the output guard (console-guard.ts, a vitest setup file) captured, and the one call a
// test makes to declare that it writes on purpose. The state lives on globalThis so that every
// copy of this module in a worker (the setup file's, each test file's) sees the same writes.

/** One write to the console or to `process.stdout` / `process.stderr` that the guard captured. */
export interface CapturedWrite {
  /** How it was written: `console.log`, `console.error`, …, `process.stdout.write`, `process.stderr.write`. */
  readonly channel: string;
  /** The stream it would have reached: console.log/info/debug/dir/table go to stdout, warn/error/trace to stderr. */
  readonly stream: "stdout" | "stderr";
  /** The text as the stream would have received it (a console call's line ends with `\n`). */
  readonly text: string;
  /**
   * Where it was written from: the first stack frame outside the guard, Node's internals and
   * node_modules, as `path:line:column` from the workspace root (or a phrase saying there was none).
   */
  readonly location: string;
}

/** What a test wrote, read while it runs; every getter reads the writes made so far in this test. */
export interface CapturedOutput {
  /** The text that would have reached stdout. */
  readonly stdout: string;
  /** The text that would have reached stderr. */
  readonly stderr: string;
  /** Both streams, in the order written. */
  readonly text: string;
  /** Each write with its channel and location, in order. */
  readonly writes: readonly CapturedWrite[];
}

/** The guard's state in this worker. */
export interface GuardState {
  /** Writes made while a test runs (from the guard's beforeEach to its afterEach); undefined between tests. */
  test: CapturedWrite[] | undefined;
  /** Whether the running test called {@link expectOutput}. */
  expected: boolean;
  /** Writes made outside any test: while a test file loads, in beforeAll, in afterAll. */
  outside: CapturedWrite[];
}

const stateKey = Symbol.for("castellan.test-output-guard");

/** The guard's state in this worker, created on first use. */
export function guardState(): GuardState {
  const holder = globalThis as { [stateKey]?: GuardState };
  holder[stateKey] ??= { test: undefined, expected: false, outside: [] };
  return holder[stateKey];
}

/** Adds a write to the running test's writes, or to the writes outside any test. */
export function recordWrite(write: CapturedWrite): void {
  const state = guardState();
  (state.test ?? state.outside).push(write);
}

/**
 * Declares that the running test writes to the console or to stdout/stderr on purpose, and
 * returns what it writes (from the start of the test, including its beforeEach hooks) so that
 * the test can assert on it. The output is captured, not shown. A test that calls this and
 * then writes nothing fails, so the declaration cannot outlive the output it was made for.
 * Throws outside a test.
 */
export function expectOutput(): CapturedOutput {
  const state = guardState();
  const writes = state.test;
  if (writes === undefined) {
    throw new Error("expectOutput() declares output for the running test; call it inside a test or its beforeEach.");
  }
  state.expected = true;
  const joined = (stream?: CapturedWrite["stream"]) =>
    writes
      .filter((write) => stream === undefined || write.stream === stream)
      .map((write) => write.text)
      .join("");
  return {
    get stdout() {
      return joined("stdout");
    },
    get stderr() {
      return joined("stderr");
    },
    get text() {
      return joined();
    },
    get writes() {
      return [...writes];
    },
  };
}

const shownWrites = 20;
const shownCharacters = 600;

/** A readable report of `writes`: each one's channel, location and text, indented under `heading`. */
export function describeWrites(heading: string, writes: readonly CapturedWrite[]): string {
  const lines = [heading];
  for (const write of writes.slice(0, shownWrites)) {
    lines.push(`  ${write.channel} at ${write.location}`);
    const text = write.text.length > shownCharacters ? `${write.text.slice(0, shownCharacters)}…` : write.text;
    for (const line of text.replace(/\n$/, "").split("\n")) lines.push(`    | ${line}`);
  }
  if (writes.length > shownWrites) lines.push(`  … and ${writes.length - shownWrites} more`);
  return lines.join("\n");
}
