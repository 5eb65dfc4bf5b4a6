import { findExecutable } from "@castellan/node-runner/commands";
import { chromiumPath } from "../agent/cli-agent.js";
import { sandboxInstallLine, sandboxPackages } from "../system/sandbox-packages.js";
import type { DoctorCheck } from "./doctor-check.js";

/** The oldest Node `castellan` supports. */
export const minimumNode = { major: 22, minor: 12 } as const;

/** Node's version against {@link minimumNode}. */
export function nodeCheck(version: string = process.versions.node): DoctorCheck {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const ok = major > minimumNode.major || (major === minimumNode.major && minor >= minimumNode.minor);
  return {
    check: "node",
    status: ok ? "ok" : "fail",
    detail: `${version}${ok ? "" : `, older than ${minimumNode.major}.${minimumNode.minor}`}`,
    ...(ok ? {} : { fix: `install Node ${minimumNode.major}.${minimumNode.minor} or newer` }),
    required: true,
  };
}

/** Where a program named in `PATH` is, or `missing` with its install line. */
function programCheck(name: string, path: string, required: boolean, fix: string): DoctorCheck {
  const found = findExecutable(name, path);
  return found
    ? { check: name, status: "ok", detail: found, required }
    : { check: name, status: "missing", detail: "not found in PATH", fix, required };
}

/** `bwrap`, `socat`, `rg` (the OS sandbox) and `git`, looked up in `PATH`. */
export function programChecks(env: NodeJS.ProcessEnv): DoctorCheck[] {
  const path = env.PATH ?? "";
  return [
    ...Object.keys(sandboxPackages).map((name) => programCheck(name, path, true, sandboxInstallLine([name]))),
    programCheck("git", path, false, "apt-get install -y git"),
  ];
}

/** Chromium for `--browser`: `CASTELLAN_CHROMIUM` or `/usr/bin/chromium`, an executable file at an absolute path. */
export function chromiumCheck(env: NodeJS.ProcessEnv): DoctorCheck {
  const path = chromiumPath(env);
  if (findExecutable(path) === path) {
    return { check: "chromium", status: "ok", detail: `${path} (for --browser)`, required: false };
  }
  return {
    check: "chromium",
    status: "missing",
    detail: `${path} is not an executable file (needed only for --browser)`,
    fix: env.CASTELLAN_CHROMIUM?.trim()
      ? "point CASTELLAN_CHROMIUM at a Chromium executable (an absolute path)"
      : "apt-get install -y chromium, or set CASTELLAN_CHROMIUM",
    required: false,
  };
}
