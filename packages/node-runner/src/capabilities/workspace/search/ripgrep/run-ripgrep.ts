import { spawn } from "node:child_process";

/** One matching line as rg reported it. */
export interface RipgrepMatch {
  readonly line: number;
  /** Byte offset of the line's start. */
  readonly lineStart: number;
  /** The line's first bytes without its LF, at most the capacity asked for. */
  readonly prefix: Uint8Array;
}

/** What rg reported for one file of a batch. */
export interface RipgrepFile {
  readonly matches: RipgrepMatch[];
  /** Where rg saw the file's first NUL (in what it checked), or undefined. */
  binaryOffset: number | undefined;
  /** A message was too long to take in (a huge line): the file must be searched another way. */
  oversized: boolean;
}

/** How a batch ended. */
export type RipgrepOutcome =
  | { readonly kind: "done"; readonly files: ReadonlyMap<string, RipgrepFile> }
  | { readonly kind: "timedOut" };

/** Messages longer than this are not parsed: their file is searched by the built-in engine. */
const maxMessageBytes = 4 * 1024 * 1024;

/**
 * Runs `rg` on a batch of files given explicitly (relative to `cwd`, so no ignore rule or
 * walk of rg's applies), as a fixed string, with JSON output: `--no-config` (no user
 * configuration), `--encoding none` (no BOM sniffing or transcoding: bytes as they are),
 * `--no-mmap`. Explicit files are searched in full, binary ones too, with the first NUL of
 * the first buffer reported. Killed at `deadline` (outcome `timedOut`) or on abort (rejects
 * with the signal's reason).
 */
export function runRipgrep(options: {
  readonly executable: string;
  readonly cwd: string;
  readonly query: string;
  readonly paths: readonly string[];
  /** Bytes of each line kept: `maxLineBytes + 1`. */
  readonly prefixBytes: number;
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
}): Promise<RipgrepOutcome> {
  const { signal } = options;
  signal?.throwIfAborted();
  const args = ["--no-config", "--json", "--fixed-strings", "--encoding", "none", "--no-mmap", "-e", options.query];
  const child = spawn(options.executable, [...args, "--", ...options.paths], {
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const files = new Map<string, RipgrepFile>();
  const fileOf = (path: string) => {
    let file = files.get(path);
    if (!file) {
      file = { matches: [], binaryOffset: undefined, oversized: false };
      files.set(path, file);
    }
    return file;
  };
  return new Promise<RipgrepOutcome>((resolve, reject) => {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let oversized = false;
    let errors = "";
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      settle();
    };
    const stop = (settle: () => void) => {
      child.kill("SIGKILL");
      finish(settle);
    };
    const onAbort = () => stop(() => reject(signal?.reason));
    const timer = setTimeout(
      () => stop(() => resolve({ kind: "timedOut" })),
      Math.max(0, options.deadline - Date.now()),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
    const message = (line: Buffer) => {
      if (line.length === 0) return;
      const parsed = JSON.parse(line.toString("utf8")) as RipgrepMessage;
      if (parsed.type === "match") {
        const data = parsed.data;
        fileOf(textOf(data.path)).matches.push({
          line: data.line_number,
          lineStart: data.absolute_offset,
          prefix: lineBytes(data.lines, options.prefixBytes),
        });
      } else if (parsed.type === "end") {
        const offset = parsed.data.binary_offset;
        fileOf(textOf(parsed.data.path)).binaryOffset = typeof offset === "number" ? offset : undefined;
      }
    };
    child.stdout.on("data", (data: Buffer) => {
      try {
        let from = 0;
        for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a, from)) {
          const piece = data.subarray(from, end);
          if (oversized) markOversized(Buffer.concat([...pending, piece]));
          else message(pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]));
          pending = [];
          pendingBytes = 0;
          oversized = false;
          from = end + 1;
        }
        const rest = data.subarray(from);
        if (rest.length === 0) return;
        if (!oversized && pendingBytes + rest.length > maxMessageBytes) {
          // Keep only the message's start: it names the file, which is then searched built in.
          oversized = true;
          const head = Buffer.concat([...pending, rest]).subarray(0, 65_536);
          pending = [Buffer.from(head)];
          pendingBytes = head.length;
        } else if (!oversized) {
          pending.push(Buffer.from(rest));
          pendingBytes += rest.length;
        }
      } catch (error) {
        stop(() => reject(error));
      }
    });
    const markOversized = (head: Buffer) => {
      const path = pathInHead(head);
      if (path === undefined) throw new Error("rg wrote a message too long to read and without a path.");
      fileOf(path).oversized = true;
    };
    child.stderr.on("data", (data: Buffer) => {
      if (errors.length < 4_096) errors += data.toString();
    });
    child.on("error", (error) => finish(() => reject(error)));
    child.on("close", (code) => {
      // 0: found, 1: nothing found; 2 with output: some file could not be read (skipped, as the walk skips it).
      if (code === 0 || code === 1 || (code === 2 && !/^error parsing|unrecognized/m.test(errors))) {
        finish(() => resolve({ kind: "done", files }));
      } else {
        finish(() => reject(new Error(`rg exited with ${code}: ${errors.slice(0, 500)}`)));
      }
    });
  });
}

interface RipgrepData {
  readonly text?: string;
  readonly bytes?: string;
}

type RipgrepMessage =
  | {
      readonly type: "match";
      readonly data: { path: RipgrepData; lines: RipgrepData; line_number: number; absolute_offset: number };
    }
  | { readonly type: "end"; readonly data: { path: RipgrepData; binary_offset: number | null } }
  | { readonly type: "begin" | "context" | "summary"; readonly data: unknown };

function textOf(data: RipgrepData): string {
  return data.text ?? Buffer.from(data.bytes ?? "", "base64").toString("utf8");
}

/** The line's first `capacity` bytes, without the LF rg keeps (a CR before it stays). */
function lineBytes(data: RipgrepData, capacity: number): Uint8Array {
  let bytes = data.text !== undefined ? Buffer.from(data.text, "utf8") : Buffer.from(data.bytes ?? "", "base64");
  if (bytes[bytes.length - 1] === 0x0a) bytes = bytes.subarray(0, bytes.length - 1);
  return bytes.length > capacity ? bytes.subarray(0, capacity) : bytes;
}

/** The path of a match message from its first bytes: `{"type":"match","data":{"path":{...},"lines":`. */
function pathInHead(head: Buffer): string | undefined {
  const text = head.toString("utf8");
  const start = text.indexOf('"path":');
  const end = text.indexOf(',"lines":', start);
  if (start < 0 || end < 0) return undefined;
  try {
    return textOf(JSON.parse(text.slice(start + 7, end)) as RipgrepData);
  } catch {
    return undefined;
  }
}
