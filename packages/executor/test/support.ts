// The executor tests' shared pieces: a temporary directory per test, and a server on a free
// loopback port with raw HTTP requests to it (node:http, so Host and Origin are the test's own).
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createExecutorServer, type ExecutorServer, type ExecutorServerOptions } from "../src/index.js";

// The same per-test temporary directory the runner's tests use.
export { tempDirPerTest } from "../../node-runner/test/support/temp-dir.ts";

/** The token every test server accepts. */
export const testToken = "test-token-0123456789abcdef-0123456789";

/**
 * A listening server on 127.0.0.1 and a free port, its data and transcripts in a temporary
 * directory of its own that closing it removes; close it after the test.
 */
export async function startServer(
  options: ExecutorServerOptions = {},
): Promise<{ server: ExecutorServer; port: number; directory: string; logged: unknown[] }> {
  const logged: unknown[] = [];
  const directory = await mkdtemp(join(tmpdir(), "castellan-executor-server-"));
  const created = createExecutorServer({
    token: testToken,
    host: "127.0.0.1",
    port: 0,
    env: {},
    dataDirectory: join(directory, "data"),
    transcriptRoot: join(directory, "transcripts"),
    sandboxStatusFile: join(directory, "sandbox-status.json"),
    log: (entry) => logged.push(entry),
    ...options,
  });
  const server: ExecutorServer = {
    options: created.options,
    listen: () => created.listen(),
    async close() {
      await created.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
  const { port } = await server.listen();
  return { server, port, directory, logged };
}

/** One raw HTTP exchange. */
export interface Exchange {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly json: any;
}

/** Sends one request; `host` defaults to `127.0.0.1:<port>`, `auth` to the test token. */
export function send(
  port: number,
  method: string,
  path: string,
  options: {
    readonly body?: string | Buffer;
    readonly headers?: Readonly<Record<string, string>>;
    readonly auth?: string | null;
  } = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, ...options.headers };
    if (options.auth !== null) headers.authorization = `Bearer ${options.auth ?? testToken}`;
    if (options.body !== undefined) {
      headers["content-type"] ??= "application/json";
      headers["content-length"] = String(Buffer.byteLength(options.body));
    }
    const request = httpRequest({ host: "127.0.0.1", port, method, path, headers, setHost: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
      response.on("error", reject);
    });
    request.on("error", reject);
    if (options.body !== undefined) request.end(options.body);
    else request.end();
  });
}

/** A valid coding job body, with overrides. */
export function jobBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    jobId: "job-1",
    model: {
      provider: "openai-compatible",
      baseURL: "http://127.0.0.1:9/v1",
      token: "model-secret-token-value",
      id: "m",
    },
    systemPrompt: "You fix bugs.",
    repo: { url: "https://127.0.0.1:9/acme/app.git", baseBranch: "main" },
    ...overrides,
  };
}

/** Runs git with a fixed identity and no hooks of the machine; resolves with stdout. */
export function git(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["-c", "user.name=Test", "-c", "user.email=test@localhost", "-c", "init.defaultBranch=main", ...args],
      { cwd },
      (error, stdout, stderr) => (error ? reject(new Error(`git ${args.join(" ")}: ${stderr}`)) : resolve(stdout)),
    );
  });
}

/** A new bare repository under `base` whose `main` holds one commit with README.md; returns its path. */
export async function bareRepository(base: string): Promise<string> {
  const directory = await mkdtemp(join(base, "repo-"));
  const bare = join(directory, "origin.git");
  const seed = join(directory, "seed");
  await git(["init", "--bare", bare], directory);
  await git(["init", seed], directory);
  await writeFile(join(seed, "README.md"), "# app\n");
  await git(["add", "README.md"], seed);
  await git(["commit", "-m", "first"], seed);
  await git(["push", bare, "main"], seed);
  return bare;
}

/** One server-sent event. */
export interface SseEvent {
  readonly id: number;
  readonly event: string;
  readonly data: any;
}

/** Follows a job's event stream until the server ends it; resolves with every event. */
export function followEvents(
  port: number,
  jobId: string,
  lastEventId?: number,
): Promise<{ status: number; events: SseEvent[] }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: `127.0.0.1:${port}`, authorization: `Bearer ${testToken}` };
    if (lastEventId !== undefined) headers["last-event-id"] = String(lastEventId);
    const request = httpRequest(
      { host: "127.0.0.1", port, method: "GET", path: `/jobs/${jobId}/events`, headers, setHost: false },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => {
          const events = text
            .split("\n\n")
            .filter((block) => block.trim() !== "")
            .map((block) => {
              const fields = Object.fromEntries(
                block
                  .split("\n")
                  .map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]),
              );
              return { id: Number(fields.id), event: String(fields.event), data: JSON.parse(String(fields.data)) };
            });
          resolve({ status: response.statusCode ?? 0, events });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end();
  });
}

/** Polls a job's view until it has settled (or 90 s passed); resolves with the last view. */
export async function settled(port: number, jobId: string, timeoutMs = 90_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = (await send(port, "GET", `/jobs/${jobId}`)).json;
    if (!["queued", "running"].includes(view.state) || Date.now() > deadline) return view;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
