// The init of a PID namespace that a command's program made (bubblewrap's `--unshare-pid`),
// known from the report the program writes on a descriptor of its own (bubblewrap's
// `--info-fd`: a JSON object whose `child-pid` is that init, written by bubblewrap outside the
// sandbox before the init may run anything). The init leaves the command's process group
// (`--new-session`) and, as a namespace init, ignores SIGTERM from outside; once its parent
// is gone it is nobody's child. Killed with SIGKILL, it takes every process of its namespace
// with it (the kernel's rule for a namespace whose init dies), so ending it needs no reading of
// the process tree at the right moment. It is named by its pid and its start time in `/proc`,
// so a pid reused by another process after it is gone is never signalled.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";

/** The lowest descriptor a report may use: 0 to 2 are the command's stdio. */
export const minReportFd = 3;
/** The highest descriptor a report may use (the sandbox runtime keeps 9 for bubblewrap's arguments). */
export const maxReportFd = 8;
/** The bytes of a report read for the pid; bubblewrap's is under 300. More is read and discarded. */
const maxReportBytes = 4096;

/** Stdin from /dev/null, stdout and stderr piped, and a pipe at `reportFd` (the descriptors between ignored). */
export function stdioWithReport(reportFd: number | undefined): ("ignore" | "pipe")[] {
  const stdio: ("ignore" | "pipe")[] = ["ignore", "pipe", "pipe"];
  if (reportFd === undefined) return stdio;
  while (stdio.length < reportFd) stdio.push("ignore");
  stdio.push("pipe");
  return stdio;
}

/** A namespace init as `/proc` showed it when it was reported. */
export interface NamespaceInit {
  readonly pid: number;
  /** Field 22 of `/proc/<pid>/stat`: with the pid, names one process for as long as the system runs. */
  readonly startTime: string;
}

/** The `child-pid` of bubblewrap's `--info-fd` / `--json-status-fd` report, once its digits are complete. */
export function reportedChildPid(text: string): number | undefined {
  const match = /"child-pid"\s*:\s*(\d{1,10})[^\d]/.exec(text);
  if (!match) return undefined;
  const pid = Number(match[1]);
  return Number.isSafeInteger(pid) && pid > 1 ? pid : undefined;
}

/**
 * Reads a report stream to its end (the writer may fail if it is closed early) and resolves
 * with the pid it names as soon as that is read, or with undefined at its end without one.
 * Never rejects.
 */
export function readNamespaceReport(stream: Readable | null | undefined): Promise<number | undefined> {
  if (!stream) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = "";
    let settled = false;
    const settle = (pid: number | undefined) => {
      if (settled) return;
      settled = true;
      resolve(pid);
    };
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      if (settled || text.length >= maxReportBytes) return;
      text += chunk.slice(0, maxReportBytes - text.length);
      const pid = reportedChildPid(text);
      if (pid !== undefined) settle(pid);
    });
    stream.once("end", () => settle(reportedChildPid(`${text}\n`)));
    stream.once("close", () => settle(reportedChildPid(`${text}\n`)));
    stream.on("error", () => settle(undefined));
  });
}

/** State and start time of `/proc/<pid>/stat`; undefined when it is absent. */
function statOf(text: string): { readonly state: string; readonly startTime: string } {
  // "pid (name) state ppid ...": the name may hold spaces and parentheses, so read after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0] ?? "", startTime: fields[19] ?? "" };
}

const exited = (state: string) => state === "Z" || state === "X";

/** `pid` as a {@link NamespaceInit}, or undefined when it is gone or has exited (its namespace is then gone too). */
export async function identifyNamespaceInit(pid: number): Promise<NamespaceInit | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const { state, startTime } = statOf(text);
  return exited(state) || startTime === "" ? undefined : Object.freeze({ pid, startTime });
}

/** True while `init` is the same process and has not exited. Synchronous: an `exit` listener uses it. */
export function stillRunning(init: NamespaceInit): boolean {
  let text: string;
  try {
    text = readFileSync(`/proc/${init.pid}/stat`, "utf8");
  } catch {
    return false;
  }
  const { state, startTime } = statOf(text);
  return startTime === init.startTime && !exited(state);
}

/** Test-only: whether {@link killNamespaceInit} signals; the attack corpus turns it off to show its case can fail. */
const seam = { killEnabled: true };

/** For tests only, never for hosts: turns the init kill off (`false`) or on again, process-wide. */
export function setNamespaceInitKillForTesting(enabled: boolean): void {
  seam.killEnabled = enabled;
}

/** Whether the init kill is on (see {@link setNamespaceInitKillForTesting}). */
export function namespaceInitKillEnabled(): boolean {
  return seam.killEnabled;
}

/**
 * SIGKILLs `init` when `/proc` still shows that very process; synchronous, so an `exit`
 * listener can call it. True when the signal was sent.
 */
export function killNamespaceInit(init: NamespaceInit): boolean {
  if (!seam.killEnabled || !stillRunning(init)) return false;
  try {
    process.kill(init.pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves once `init` is gone or has exited, checking every few milliseconds, less often as
 * time passes. An init exits only after every process of its namespace has.
 */
export async function namespaceInitGone(init: NamespaceInit): Promise<void> {
  let interval = 2;
  while (stillRunning(init)) {
    await new Promise((resolve) => setTimeout(resolve, interval));
    interval = Math.min(interval * 2, 50);
  }
}
