// The executor tests' shared pieces: a temporary directory per test, and a server on a free
// loopback port with raw HTTP requests to it (node:http, so Host and Origin are the test's own).
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { createExecutorServer, type ExecutorServer, type ExecutorServerOptions } from "../src/index.js";

export { tempDirPerTest };

/** Gives each test a fresh temporary directory named after `prefix`, removed after it. */
function tempDirPerTest(prefix: string): { readonly path: string } {
  let current: string | undefined;
  beforeEach(async () => {
    current = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (current !== undefined) await rm(current, { recursive: true, force: true });
    current = undefined;
  });
  return {
    get path() {
      if (current === undefined) throw new Error("The temporary directory exists only while a test runs.");
      return current;
    },
  };
}

/** The token every test server accepts. */
export const testToken = "test-token-0123456789abcdef-0123456789";

/** A listening server on 127.0.0.1 and a free port; close it after the test. */
export async function startServer(
  options: ExecutorServerOptions = {},
): Promise<{ server: ExecutorServer; port: number }> {
  const server = createExecutorServer({ token: testToken, host: "127.0.0.1", port: 0, env: {}, ...options });
  const { port } = await server.listen();
  return { server, port };
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
