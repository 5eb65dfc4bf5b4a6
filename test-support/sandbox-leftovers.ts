// The end-of-run check that the test suite left no sandbox process behind (issue 26, item 7):
// a bubblewrap or socat that started during the run, has not exited, and is nobody's child any
// more (its parent is init, pid 1, or gone), named with its whole tree. Such a process outlived
// the Session that started it; every later test and the machine would inherit it.
//
// vitest.config.ts runs ./sandbox-leftovers-setup.ts as a globalSetup: it takes the baseline
// when the run starts, and the check runs once when the run ends, first asked by the summary
// reporter (scripts/summary-reporter.ts, so the closing line counts it) and else by the
// teardown, either way making `vitest run` exit non-zero. What it finds is killed after being
// named, so a failed run does not leave it to the next one either.
import { readdirSync, readFileSync } from "node:fs";

/** One process as `/proc` shows it. */
export interface ProcessRow {
  readonly pid: number;
  readonly parent: number;
  /** The command name (`comm`), e.g. `bwrap`. */
  readonly name: string;
  /** State letter: `Z` and `X` have exited. */
  readonly state: string;
  /** Field 22 of `/proc/<pid>/stat`: with the pid, names one process. */
  readonly startTime: string;
  /** The arguments joined with spaces, cut to 300 characters. */
  readonly commandLine: string;
}

/** The processes that were running when the run started: `pid` to its start time. */
export type ProcessBaseline = ReadonlyMap<number, string>;

/** The programs whose leftovers the check looks for. */
export const sandboxPrograms: readonly string[] = Object.freeze(["bwrap", "socat"]);

/** Every process `/proc` lists (none without `/proc`). */
export function readProcessTable(): ProcessRow[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const rows: ProcessRow[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      let commandLine = "";
      try {
        commandLine = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim().slice(0, 300);
      } catch {}
      rows.push({
        pid: Number(name),
        parent: Number(fields[1]),
        name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
        state: fields[0] ?? "",
        startTime: fields[19] ?? "",
        commandLine,
      });
    } catch {
      // Gone meanwhile.
    }
  }
  return rows;
}

/** The baseline of `table`: what is running now is never counted as left by the run. */
export function baselineOf(table: readonly ProcessRow[]): ProcessBaseline {
  return new Map(table.map((row) => [row.pid, row.startTime]));
}

/**
 * The sandbox processes of `table` that are new since `baseline`, have not exited, and whose
 * parent is 1 or absent from the table, followed by every live descendant of theirs; pids in
 * ascending order within each tree.
 */
export function orphanedSandboxProcesses(table: readonly ProcessRow[], baseline: ProcessBaseline): ProcessRow[] {
  const live = table.filter((row) => row.state !== "Z" && row.state !== "X");
  const pids = new Set(live.map((row) => row.pid));
  const isNew = (row: ProcessRow) => baseline.get(row.pid) !== row.startTime;
  const roots = live
    .filter((row) => sandboxPrograms.includes(row.name) && isNew(row) && (row.parent === 1 || !pids.has(row.parent)))
    .sort((a, b) => a.pid - b.pid);
  const children = new Map<number, ProcessRow[]>();
  for (const row of live) children.set(row.parent, [...(children.get(row.parent) ?? []), row]);
  const found = new Map<number, ProcessRow>();
  for (const root of roots) {
    const queue = [root];
    while (queue.length > 0) {
      const row = queue.shift() as ProcessRow;
      if (found.has(row.pid)) continue;
      found.set(row.pid, row);
      queue.push(...(children.get(row.pid) ?? []).sort((a, b) => a.pid - b.pid));
    }
  }
  return [...found.values()];
}

/** One line per process: `pid <pid> (<name>), parent <parent>: <command line>`. */
export function describeLeftovers(rows: readonly ProcessRow[]): string[] {
  return rows.map(
    (row) => `pid ${row.pid} (${row.name}), parent ${row.parent}: ${row.commandLine || "(no command line)"}`,
  );
}

/** SIGKILLs `rows`, bubblewrap first (a namespace's init takes its namespace with it). */
export function killLeftovers(rows: readonly ProcessRow[]): void {
  const ordered = [...rows].sort((a, b) => Number(b.name === "bwrap") - Number(a.name === "bwrap"));
  for (const row of ordered) {
    try {
      process.kill(row.pid, "SIGKILL");
    } catch {}
  }
}

/**
 * Finds what the run left since `baseline`: a first look, then, if it found anything, looks
 * again for up to `settleMs` (a process being ended as the run finished may still be on its
 * way out) and keeps only what stays. Resolves with the description of each, after killing them.
 */
export async function checkSandboxLeftovers(baseline: ProcessBaseline, settleMs = 2_000): Promise<string[]> {
  let left = orphanedSandboxProcesses(readProcessTable(), baseline);
  for (let waited = 0; left.length > 0 && waited < settleMs; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = orphanedSandboxProcesses(readProcessTable(), baseline);
  }
  const described = describeLeftovers(left);
  killLeftovers(left);
  return described;
}

/** Where the run's check is kept between the globalSetup and the reporter (both in vitest's main process). */
const checkKey = Symbol.for("castellan.test.sandboxLeftovers");

/** The run's check, as the globalSetup registers it. */
export interface RunLeftoverCheck {
  /** Runs the check once (later calls get the same answer): a line per process left, empty when none. */
  run(): Promise<readonly string[]>;
  /** Set by whoever printed the answer, so it is printed once. */
  reported: boolean;
}

/** Registers the run's check, with the baseline taken now. */
export function registerRunLeftoverCheck(): RunLeftoverCheck {
  const baseline = baselineOf(readProcessTable());
  let answer: Promise<readonly string[]> | undefined;
  const check: RunLeftoverCheck = {
    run: () => {
      answer ??= checkSandboxLeftovers(baseline);
      return answer;
    },
    reported: false,
  };
  (globalThis as Record<symbol, unknown>)[checkKey] = check;
  return check;
}

/** The run's check, when the globalSetup registered one (it does in vitest.config.ts's runs). */
export function runLeftoverCheck(): RunLeftoverCheck | undefined {
  return (globalThis as Record<symbol, unknown>)[checkKey] as RunLeftoverCheck | undefined;
}

/** The message that names what the run left. */
export function leftoverReport(lines: readonly string[]): string {
  return [
    `The run left ${lines.length} sandbox process${lines.length === 1 ? "" : "es"} behind (started during the run, now nobody's child; killed now):`,
    ...lines.map((line) => `  ${line}`),
  ].join("\n");
}
