import { mkdir, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineAgent } from "@castellan/harness";
import { offline } from "@castellan/models/offline";
import { openSession, runSessionCommand, workspace } from "@castellan/node-runner";
import { sandboxInstallLine } from "../system/sandbox-packages.js";
import type { DoctorCheck } from "./doctor-check.js";

/** How long the probe command may take, in ms. */
export const sandboxProbeTimeoutMs = 30_000;

/** A loopback listener outside the sandbox, counting the connections it was offered. */
async function listen(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return { server, port: (server.address() as { port: number }).port, connections: () => count };
}

/** The probe: one shell line per effect, each printing what happened. */
function probeCommand(outside: string, port: number): string {
  return [
    "(printf inside > inside.txt) 2>/dev/null && echo inside:written || echo inside:denied",
    `(printf outside > '${outside}/outside.txt') 2>/dev/null && echo outside:written || echo outside:denied`,
    `socat -u OPEN:/dev/null TCP:127.0.0.1:${port},connect-timeout=3 2>/dev/null && echo connect:ok || echo connect:refused`,
  ].join("; ");
}

/**
 * `sandbox confined`: opens a `workspace({ sandbox: "os" })` Session on a temporary root and runs
 * one probe through `runSessionCommand`. Ok when a write inside the root lands, a write to a
 * folder beside it does not, and a TCP connect to a port this process listens on outside the
 * sandbox does not arrive. Everything it made is removed, whatever happened.
 */
export async function sandboxProbe(): Promise<DoctorCheck> {
  const check = "sandbox confined";
  const parent = await realpath(await mkdtemp(join(tmpdir(), "castellan-doctor-")));
  const root = join(parent, "root");
  const outside = join(parent, "outside");
  const listener = await listen();
  try {
    await Promise.all([mkdir(root), mkdir(outside)]);
    const session = await openSession({
      agent: defineAgent("castellan.doctor", {
        model: offline(),
        capabilities: [workspace({ root: pathToFileURL(`${root}/`), sandbox: "os", network: { allowedDomains: [] } })],
      }),
    });
    let output: string;
    try {
      const result = await runSessionCommand(session, {
        command: probeCommand(outside, listener.port),
        timeoutMs: sandboxProbeTimeoutMs,
      });
      output = result.stdout;
    } finally {
      await session.close();
    }
    const causes: string[] = [];
    const insideText = await readFile(join(root, "inside.txt"), "utf8").catch(() => undefined);
    if (!output.includes("inside:written") || insideText !== "inside") causes.push("a write inside the root failed");
    const outsideText = await readFile(join(outside, "outside.txt"), "utf8").catch(() => undefined);
    if (!output.includes("outside:denied") || outsideText !== undefined) {
      causes.push("a write outside the root was not denied");
    }
    if (!output.includes("connect:refused") || listener.connections() > 0) {
      causes.push("a direct TCP connect to a loopback port outside the sandbox was not refused");
    }
    if (causes.length > 0) {
      return {
        check,
        status: "fail",
        detail: causes.join("; "),
        fix: "commands are not confined here: run castellan with --sandbox none only if you accept that",
        required: true,
      };
    }
    return { check, status: "ok", detail: "writes stay in the workspace, no direct network", required: true };
  } catch (error) {
    const missing = (error as { missing?: readonly string[] }).missing ?? [];
    return {
      check,
      status: "fail",
      detail: `could not run: ${(error as Error).message}`,
      fix:
        missing.length > 0
          ? sandboxInstallLine(missing)
          : "check that unprivileged user namespaces are allowed (bubblewrap needs them)",
      required: true,
    };
  } finally {
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
    await rm(parent, { recursive: true, force: true });
  }
}
