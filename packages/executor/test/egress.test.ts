// The egress check: only an IPv4:port or [IPv6]:port literal is aimed at (anything else is
// reported, at start and in the block, as a check not carried out); reachable needs the address
// and the name; address without name is blocked, naming DNS; name without address is unknown.
// On a real server, from a job's sandbox under its network policy, against a loopback listener.
import { createServer, type Socket } from "node:net";
import type { ModelRequest } from "@castellan/harness";
import { scriptedModel } from "@castellan/models/testing";
import { afterEach, describe, expect, it } from "vitest";
import { describeNeeding, osSandboxPrograms } from "../../../test-support/system-programs.ts";
import { inventoryHeading, type ProbeRun, parseEgressTarget, probeEgress } from "../src/index.js";
import { bareRepository, jobBody, send, settled, startServer, tempDirPerTest } from "./support.ts";

const temp = tempDirPerTest("castellan-executor-egress-");
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const answered = (address: unknown, name: unknown): ProbeRun => ({
  exitCode: 0,
  stdout: `${JSON.stringify({ address, name })}\n`,
  stderr: "",
  timedOut: false,
});

describe("the egress target", () => {
  it("is an IPv4:port or [IPv6]:port literal, nothing else", () => {
    expect(parseEgressTarget("127.0.0.1:443")).toEqual({ host: "127.0.0.1", port: 443 });
    expect(parseEgressTarget("[::1]:8080")).toEqual({ host: "[::1]", port: 8080 });
    for (const target of [
      "example",
      "example:443",
      "127.0.0.1",
      "127.0.0.1:0",
      "127.0.0.1:70000",
      "256.0.0.1:80",
      "[not-an-address]:80",
      "::1:80",
      "http://127.0.0.1:80",
    ]) {
      expect(parseEgressTarget(target), target).toBeUndefined();
    }
  });
});

describe("the egress verdict", () => {
  it("needs both halves to be reachable, and names DNS when only the address answered", async () => {
    const dns = "registry.example";
    expect(await probeEgress(async () => answered(200, 200), "127.0.0.1:443", dns)).toEqual({ state: "reachable" });
    const nameless = await probeEgress(async () => answered(200, 403), "127.0.0.1:443", dns);
    expect(nameless).toMatchObject({ state: "blocked", half: "dns" });
    expect((nameless as { reason: string }).reason).toContain("name resolution is the half to fix");
    const filtered = await probeEgress(async () => answered(502, 200), "127.0.0.1:443", dns);
    expect(filtered).toMatchObject({ state: "undetermined" });
    expect((filtered as { reason: string }).reason).toContain("the address is likely filtered");
    expect(await probeEgress(async () => answered(403, 403), "127.0.0.1:443", dns)).toMatchObject({
      state: "blocked",
      half: "route",
    });
  });

  it("is unknown when the check could not run, and never runs without a usable target", async () => {
    const failed = (run: Partial<ProbeRun>) => async (): Promise<ProbeRun> => ({
      exitCode: 0,
      stdout: "",
      stderr: "",
      timedOut: false,
      ...run,
    });
    expect(await probeEgress(failed({ timedOut: true, exitCode: null }), "127.0.0.1:1", "x")).toMatchObject({
      state: "undetermined",
    });
    expect(await probeEgress(failed({ exitCode: 127 }), "127.0.0.1:1", "x")).toMatchObject({ state: "undetermined" });
    expect(await probeEgress(failed({ stdout: "garbage" }), "127.0.0.1:1", "x")).toMatchObject({
      state: "undetermined",
    });
    expect(
      await probeEgress(
        async () => {
          throw new Error("no sandbox");
        },
        "127.0.0.1:1",
        "x",
      ),
    ).toMatchObject({ state: "undetermined" });
    let runs = 0;
    const counted = async () => {
      runs++;
      return answered(200, 200);
    };
    expect(await probeEgress(counted, undefined, "x")).toEqual({ state: "not-measured" });
    expect(await probeEgress(counted, "example", "x")).toMatchObject({ state: "not-carried-out" });
    expect(runs).toBe(0);
  });
});

describeNeeding(osSandboxPrograms, "the egress check of a real job", () => {
  it("is reachable with the target and the name allowed, blocked with nothing allowed", async () => {
    const connections: Socket[] = [];
    const listener = createServer((socket) => {
      connections.push(socket);
      socket.end();
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => listener.close(() => resolve())));
    const port = (listener.address() as { port: number }).port;
    const model = scriptedModel([{ text: "One." }, { text: "Two." }]);
    const started = await startServer({
      allowFileRemotes: true,
      egressTarget: `127.0.0.1:${port}`,
      egressDnsName: "localhost",
      modelFactory: () => model,
    });
    cleanups.push(() => started.server.close());
    const bare = await bareRepository(temp.path);
    const repo = { url: `file://${bare}`, baseBranch: "main" };

    await send(started.port, "POST", "/run", {
      body: JSON.stringify(
        jobBody({ jobId: "allowed", repo, network: { allowedDomains: ["127.0.0.1", "localhost"] } }),
      ),
    });
    expect((await settled(started.port, "allowed")).state).toBe("succeeded");
    const allowed = (model.requests[0] as ModelRequest).system;
    expect(allowed.slice(allowed.indexOf(inventoryHeading))).toContain(
      "Network egress: reachable from the sandbox under this job's network policy, by address and by name.",
    );
    // Both halves really connected: by address and by name.
    expect(connections.length).toBe(2);
    const health = (await send(started.port, "GET", "/health", { auth: null })).json;
    expect(health.egress).toMatchObject({ target: `127.0.0.1:${port}`, last: { verdict: "reachable" } });

    await send(started.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "closed", repo })),
    });
    expect((await settled(started.port, "closed")).state).toBe("succeeded");
    const closed = (model.requests[1] as ModelRequest).system;
    expect(closed).toContain("Network egress: blocked: neither");
    expect(closed).toContain("refused by the sandbox's allow list");
    expect(connections.length).toBe(2);
    expect((await send(started.port, "GET", "/health", { auth: null })).json.egress.last).toMatchObject({
      verdict: "blocked",
    });
  }, 120_000);

  it("reports a target that is not an address literal at start and in the block, and says not measured without one", async () => {
    const model = scriptedModel([{ text: "One." }]);
    const started = await startServer({ allowFileRemotes: true, egressTarget: "example", modelFactory: () => model });
    cleanups.push(() => started.server.close());
    expect(started.logged).toContainEqual(
      expect.objectContaining({ kind: "executor-egress-target-invalid", target: "example" }),
    );
    const bare = await bareRepository(temp.path);
    await send(started.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "bad-target", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    expect((await settled(started.port, "bad-target")).state).toBe("succeeded");
    expect((model.requests[0] as ModelRequest).system).toContain(
      'Network egress: the check was not carried out: the egress target "example" is not an IPv4:port or [IPv6]:port literal.',
    );

    const plain = scriptedModel([{ text: "One." }]);
    const unset = await startServer({ allowFileRemotes: true, modelFactory: () => plain });
    cleanups.push(() => unset.server.close());
    await send(unset.port, "POST", "/run", {
      body: JSON.stringify(jobBody({ jobId: "no-target", repo: { url: `file://${bare}`, baseBranch: "main" } })),
    });
    expect((await settled(unset.port, "no-target")).state).toBe("succeeded");
    expect((plain.requests[0] as ModelRequest).system).toContain(
      "Network egress: not measured (the server has no egress target configured).",
    );
    expect((await send(unset.port, "GET", "/health", { auth: null })).json.egress).toEqual({
      target: null,
      last: "unmeasured",
    });
  }, 120_000);
});
