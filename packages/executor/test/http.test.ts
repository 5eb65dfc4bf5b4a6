// The executor's HTTP front over real loopback HTTP: the Host and Origin checks, no CORS, the
// bearer token (constant-time, any wrong length), /health without the token and without job
// data, every refusal of a body (415, 413 at 1 MiB + 1 byte without reading on, invalid JSON,
// zod paths, unknown, unserved and out-of-scope fields, unsupported kinds, guard limits only
// raised), job id checks on every route, and error bodies that never echo a submitted value.
import { afterEach, describe, expect, it } from "vitest";
import { type ExecutorServer, executorVersion, maxBodyBytes } from "../src/index.js";
import { jobBody, send, startServer, testToken } from "./support.ts";

let running: ExecutorServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function server(options: Parameters<typeof startServer>[0] = {}) {
  const started = await startServer(options);
  running = started.server;
  return started.port;
}

function expectNoCors(headers: Record<string, unknown>): void {
  expect(Object.keys(headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
}

describe("the executor's HTTP front", () => {
  it("answers /health without a token, with what the server is and no job data", async () => {
    const port = await server();
    const health = await send(port, "GET", "/health", { auth: null });
    expect(health.status).toBe(200);
    expect(health.json).toEqual({
      status: "ok",
      version: executorVersion,
      kinds: ["coder", "bootstrap", "blueprint"],
      capabilities: [
        "network",
        "proxyPhasePath",
        "tuning",
        "dependencyInstall",
        "validationChecks",
        "reproduction",
        "skills",
        "mcpServers",
        "referenceScreenshots",
        "designImages",
        "artifactUpload",
        "packageRegistries",
        "pullRequest",
      ],
      sandbox: { boot: "unmeasured", last: "unmeasured" },
      egress: { target: null, last: "unmeasured" },
    });
    expectNoCors(health.headers);
  });

  it("refuses a Host it does not answer to and any Origin, and has no CORS", async () => {
    const port = await server({ allowedHosts: ["executor.internal:8443"] });
    for (const host of [`localhost:${port}`, `[::1]:${port}`, "executor.internal:8443"]) {
      expect((await send(port, "GET", "/health", { headers: { host } })).status, host).toBe(200);
    }
    const forbidden = await send(port, "GET", "/health", { headers: { host: "attacker.example:27182" } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error.code).toBe("forbidden-host");
    expect((await send(port, "GET", "/health", { headers: { host: `127.0.0.1:${port + 1}` } })).status).toBe(403);
    const origin = await send(port, "GET", "/jobs", { headers: { origin: `http://127.0.0.1:${port}` } });
    expect(origin.status).toBe(403);
    expect(origin.json.error.code).toBe("forbidden-origin");
    const options = await send(port, "OPTIONS", "/run", { headers: { origin: "https://app.example" } });
    expect(options.status).toBe(403);
    const preflight = await send(port, "OPTIONS", "/run");
    expect(preflight.status).toBe(405);
    expect(preflight.json.error.code).toBe("method-not-allowed");
    for (const exchange of [forbidden, origin, options, preflight]) expectNoCors(exchange.headers);
  });

  it("accepts an allowed Origin", async () => {
    const port = await server({ allowedOrigins: ["https://console.example"] });
    expect((await send(port, "GET", "/jobs", { headers: { origin: "https://console.example" } })).status).toBe(200);
  });

  it("needs the bearer token everywhere but /health: none, a wrong one or a wrong length is 401", async () => {
    const port = await server();
    for (const auth of [null, "wrong-token-0123456789abcdef-01234567", testToken.slice(0, -1), `${testToken}x`, ""]) {
      const answer = await send(port, "GET", "/jobs", { auth });
      expect(answer.status, String(auth)).toBe(401);
      expect(answer.json.error.code).toBe("unauthorized");
      expect(answer.text).not.toContain(testToken);
    }
    const basic = await send(port, "GET", "/jobs", { auth: null, headers: { authorization: `Basic ${testToken}` } });
    expect(basic.status).toBe(401);
    expect((await send(port, "GET", "/jobs")).json).toEqual({ jobs: [] });
  });

  it("checks the job id on every route: .., a/b, a%2Fb, 129 characters and an empty id are invalid-job-id", async () => {
    const port = await server();
    for (const id of ["..", "a/b", "a%2Fb", "x".repeat(129), "", ".hidden", "-dash"]) {
      for (const [method, suffix] of [
        ["GET", ""],
        ["POST", "/cancel"],
        ["GET", "/events"],
      ] as const) {
        const answer = await send(port, method, `/jobs/${id}${suffix}`);
        expect(answer.status, `${method} ${id}${suffix}`).toBe(400);
        expect(answer.json.error.code).toBe("invalid-job-id");
      }
    }
    const missing = await send(port, "GET", `/jobs/${"x".repeat(128)}`);
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("job-not-found");
    expect((await send(port, "GET", "/nowhere")).json.error.code).toBe("route-not-found");
    expect((await send(port, "DELETE", "/jobs/job-1")).status).toBe(405);
  });

  it("checks GET /jobs's state and limit", async () => {
    const port = await server();
    expect((await send(port, "GET", "/jobs?state=running&limit=1000")).status).toBe(200);
    for (const query of ["state=bogus", "limit=0", "limit=1001", "limit=ten"]) {
      const answer = await send(port, "GET", `/jobs?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.json.error.code).toBe("invalid-body");
    }
  });
});

describe("job bodies", () => {
  it("refuses anything but application/json (415), and a body over 1 MiB (413) without reading on", async () => {
    const port = await server();
    const text = await send(port, "POST", "/run", {
      body: JSON.stringify(jobBody()),
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect(text.json.error.code).toBe("unsupported-media-type");
    const big = Buffer.alloc(maxBodyBytes + 1, 0x20);
    const tooLarge = await send(port, "POST", "/run", { body: big });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json.error.code).toBe("body-too-large");
    expect(tooLarge.headers.connection).toBe("close");
    // Exactly at the bound it is read, and then refused as not JSON.
    const atBound = await send(port, "POST", "/run", { body: Buffer.alloc(maxBodyBytes, 0x20) });
    expect(atBound.status).toBe(400);
    expect(atBound.json.error.code).toBe("invalid-body");
    expect((await send(port, "POST", "/run", { body: "{not json" })).json.error.code).toBe("invalid-body");
  });

  it("names the paths of a malformed body and never echoes a submitted value", async () => {
    const port = await server();
    const secret = "sk-live-SECRET-token-value-0123456789";
    const answer = await send(port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({
          jobId: "../escape",
          model: { provider: "someone", token: secret, id: "" },
          repo: { url: `http://repo.invalid/${secret}`, baseBranch: "-main", token: secret },
          systemPrompt: 42,
        }),
      ),
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe("invalid-body");
    const paths = answer.json.error.fields.map((field: { path: string }) => field.path).sort();
    expect(paths).toEqual(["jobId", "model.id", "model.provider", "repo.baseBranch", "repo.url", "systemPrompt"]);
    expect(answer.text).not.toContain(secret);
    expect(answer.text).not.toContain("repo.invalid");
    expect(answer.text).not.toContain("../escape");
  });

  it("refuses unknown fields by name, at any depth", async () => {
    const port = await server();
    const answer = await send(port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({ extra: 1, repo: { url: "https://127.0.0.1:9/r.git", baseBranch: "main", depth: 1 } }),
      ),
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe("unknown-fields");
    expect(answer.json.error.fields.map((field: { path: string }) => field.path).sort()).toEqual([
      "extra",
      "repo.depth",
    ]);
  });

  it("refuses fields out of scope, and the mocker and playwright kinds", async () => {
    const port = await server();
    for (const field of ["secrets", "repos", "ambientAuth", "generateImages", "infra", "contextDocuments"]) {
      const answer = await send(port, "POST", "/run", { body: JSON.stringify(jobBody({ [field]: {} })) });
      expect(answer.status, field).toBe(400);
      expect(answer.json.error.code).toBe("unsupported-field");
      expect(answer.json.error.fields).toEqual([{ path: field, message: "not served by this executor" }]);
    }
    for (const kind of ["mocker", "playwright"]) {
      const answer = await send(port, "POST", "/run", { body: JSON.stringify(jobBody({ kind })) });
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe("unsupported-kind");
      expect(answer.json.error.message).toContain(kind);
    }
  });

  it("checks URLs (https, http on loopback, file only when allowed), openai-compatible's baseURL and proxyPhasePath", async () => {
    const port = await server();
    const refused = async (body: Record<string, unknown>) => {
      const answer = await send(port, "POST", "/run", { body: JSON.stringify(body) });
      expect(answer.status).toBe(400);
      return answer.json.error.fields.map((field: { path: string }) => field.path);
    };
    expect(await refused(jobBody({ repo: { url: "file:///srv/repo.git", baseBranch: "main" } }))).toEqual(["repo.url"]);
    expect(await refused(jobBody({ repo: { url: "https://user:pw@127.0.0.1/r.git", baseBranch: "main" } }))).toEqual([
      "repo.url",
    ]);
    expect(await refused(jobBody({ model: { provider: "openai-compatible", token: "k", id: "m" } }))).toEqual([
      "model.baseURL",
    ]);
    expect(
      await refused(jobBody({ model: { provider: "anthropic", token: "k", id: "m" }, proxyPhasePath: true })),
    ).toEqual(["proxyPhasePath"]);
    await running?.close();
    const files = await server({ allowFileRemotes: true });
    const accepted = await send(files, "POST", "/run", {
      body: JSON.stringify(jobBody({ repo: { url: "file:///nonexistent/repo.git", baseBranch: "main" } })),
    });
    expect(accepted.status).toBe(202);
  });

  it("lets a body raise the guard limits, never lower them", async () => {
    const port = await server();
    const lower = await send(port, "POST", "/run", {
      body: JSON.stringify(jobBody({ tuning: { guardLimits: { maxConsecutiveMcpCalls: 10 } } })),
    });
    expect(lower.status).toBe(400);
    expect(lower.json.error.fields).toEqual([
      { path: "tuning.guardLimits.maxConsecutiveMcpCalls", message: "may only raise the server's limit of 40." },
    ]);
    const raise = await send(port, "POST", "/run", {
      body: JSON.stringify(jobBody({ tuning: { guardLimits: { maxConsecutiveMcpCalls: 80, noEditCallLimit: 60 } } })),
    });
    expect(raise.status).toBe(202);
  });

  it("accepts a valid job (202); bootstrap and blueprint check bodies of their own", async () => {
    const port = await server();
    const answer = await send(port, "POST", "/run", {
      body: JSON.stringify(jobBody({ network: { allowedDomains: ["registry.npmjs.org", "*.example.com"] } })),
    });
    expect(answer.status).toBe(202);
    expect(answer.json).toEqual({ jobId: "job-1", state: expect.stringMatching(/^(queued|running)$/) });
    for (const route of ["/bootstrap", "/blueprint"]) {
      const empty = await send(port, "POST", route, { body: "{}" });
      expect(empty.status).toBe(400);
      expect(empty.json.error.code).toBe("invalid-body");
      // The coding job's own fields are not theirs.
      const coding = await send(port, "POST", route, {
        body: JSON.stringify(jobBody({ jobId: `x${route.slice(1)}`, validationChecks: { commands: [] } })),
      });
      expect(coding.json.error.code).toBe("unknown-fields");
    }
    const referenced = await send(port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "ref", reference: { url: "https://127.0.0.1/r.git", branch: "main" } })),
    });
    expect(referenced.json.error).toMatchObject({ code: "unknown-fields", fields: [{ path: "reference" }] });
  });
});
