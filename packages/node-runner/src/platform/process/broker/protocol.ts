// The spawn broker's messages over its IPC channel (JSON), and the header a command's output
// socket opens with. A command's output never crosses the channel: the broker connects two
// sockets to the host's private stdio socket, writes the header, and hands them to the command
// as its stdout and stderr.

/** Host to broker: start one command. `token` names its output sockets; only the host knows it. */
export interface BrokerSpawnMessage {
  readonly type: "spawn";
  readonly token: string;
  readonly executable: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** A descriptor (3 to 8) the broker opens as a pipe and reads for a PID namespace's init; see `SpawnDetachedOptions`. */
  readonly pidNamespaceReportFd?: number;
}

/** Broker to host: how a command started, and how it ended. */
export type BrokerEvent =
  | { readonly type: "spawned"; readonly token: string; readonly pid: number }
  | { readonly type: "failed"; readonly token: string; readonly message: string; readonly code?: string }
  /** Once per command that asked for a report: the init's pid, or null when the report closed without one. */
  | { readonly type: "reported"; readonly token: string; readonly pid: number | null }
  | {
      readonly type: "exited";
      readonly token: string;
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
    };

/** The first line of an output socket: `<token> stdout\n` or `<token> stderr\n`. */
export function outputHeader(token: string, stream: "stdout" | "stderr"): string {
  return `${token} ${stream}\n`;
}

/** The longest header the host reads before it drops a connection that sent none. */
export const maxHeaderBytes = 128;
