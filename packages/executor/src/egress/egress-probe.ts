import { errorMessage } from "@castellan/harness";
import { shellArgument as shellQuote } from "@castellan/node-runner";
import type { ProbeRunner } from "../probes/probe-runner.js";
import { type EgressTarget, parseEgressTarget } from "./egress-target.js";

/**
 * What the egress check found. `reachable`: the target answered by address and the name by
 * name. `blocked`: no way out, or the address but not the name (`dns` names the half to fix).
 * `undetermined`: the name but not the address (the address is likely filtered), or the check
 * could not run. `not-measured`: no target is configured. `not-carried-out`: the configured
 * target is not an address literal with a port.
 */
export type EgressVerdict =
  | { readonly state: "reachable" }
  | { readonly state: "blocked"; readonly half: "dns" | "route"; readonly reason: string }
  | { readonly state: "undetermined"; readonly reason: string }
  | { readonly state: "not-measured" }
  | { readonly state: "not-carried-out"; readonly reason: string };

/** The bound of the egress command; each connection has 4 s of it. */
export const egressProbeTimeoutMs = 10_000;

// Runs inside the sandbox, where the only way out is its proxy: each argument is CONNECTed
// through it, so the proxy applies the job's allow list and resolves names itself.
const connectScript = [
  'const net=require("net");',
  "const raw=process.env.HTTPS_PROXY||process.env.https_proxy||process.env.HTTP_PROXY||process.env.http_proxy;",
  'if(!raw){console.log(JSON.stringify({error:"the sandbox has no proxy"}));process.exit(0)}',
  "const u=new URL(raw);",
  'const auth=u.username?"Proxy-Authorization: Basic "+Buffer.from(decodeURIComponent(u.username)+":"+decodeURIComponent(u.password)).toString("base64")+"\\r\\n":"";',
  "const attempt=(t)=>new Promise((done)=>{const s=net.connect(Number(u.port)||80,u.hostname);let over=false;",
  'const end=(v)=>{if(over)return;over=true;s.destroy();done(v)};s.setTimeout(4000,()=>end("timeout"));',
  's.on("connect",()=>s.write("CONNECT "+t+" HTTP/1.1\\r\\nHost: "+t+"\\r\\n"+auth+"\\r\\n"));',
  'let b="";s.on("data",(d)=>{b+=d;const i=b.indexOf("\\r\\n");if(i>=0){const m=/^HTTP\\/1\\.[01] (\\d{3})/.exec(b.slice(0,i));end(m?Number(m[1]):"garbled")}});',
  's.on("error",(e)=>end("error "+(e.code||e.message)));s.on("close",()=>end("closed"))});',
  "Promise.all(process.argv.slice(1).map(attempt)).then((r)=>console.log(JSON.stringify({address:r[0],name:r[1]})));",
].join("");

/** The sandboxed command that tries both halves; its stdout is one JSON line. */
export function egressCommand(target: EgressTarget, dnsName: string, node: string = process.execPath): string {
  return [node, "-e", connectScript, `${target.host}:${target.port}`, `${dnsName}:${target.port}`]
    .map(shellQuote)
    .join(" ");
}

function describe(outcome: unknown): string {
  if (outcome === 403) return "refused by the sandbox's allow list";
  if (outcome === 502) return "no connection could be made";
  if (typeof outcome === "number") return `the sandbox's proxy answered ${outcome}`;
  return String(outcome);
}

/**
 * Measures egress from a sandboxed command under the job's network policy: a connection to
 * the target by address, and one to `dnsName` on the target's port by name. Never throws.
 */
export async function probeEgress(
  run: ProbeRunner,
  target: string | undefined,
  dnsName: string,
): Promise<EgressVerdict> {
  if (target === undefined) return { state: "not-measured" };
  const parsed = parseEgressTarget(target);
  if (!parsed) {
    return {
      state: "not-carried-out",
      reason: `the egress target "${target}" is not an IPv4:port or [IPv6]:port literal`,
    };
  }
  let stdout: string;
  try {
    const result = await run(egressCommand(parsed, dnsName), egressProbeTimeoutMs);
    if (result.timedOut) return { state: "undetermined", reason: "the egress check timed out" };
    if (result.exitCode !== 0) {
      return { state: "undetermined", reason: `the egress check exited ${result.exitCode ?? "by a signal"}` };
    }
    stdout = result.stdout;
  } catch (error) {
    return {
      state: "undetermined",
      reason: `the egress check could not be run: ${errorMessage(error)}`,
    };
  }
  let answer: { address?: unknown; name?: unknown; error?: unknown };
  try {
    answer = JSON.parse(stdout.trim().split("\n").at(-1) ?? "");
  } catch {
    return { state: "undetermined", reason: "the egress check printed no verdict" };
  }
  if (typeof answer.error === "string") return { state: "undetermined", reason: answer.error };
  const address = answer.address === 200;
  const name = answer.name === 200;
  const where = `${parsed.host}:${parsed.port}`;
  if (address && name) return { state: "reachable" };
  if (address) {
    return {
      state: "blocked",
      half: "dns",
      reason: `${where} answered by address, but ${dnsName} was not reachable by name (${describe(answer.name)}): name resolution is the half to fix`,
    };
  }
  if (name) {
    return {
      state: "undetermined",
      reason: `${dnsName} answered by name but ${where} did not by address (${describe(answer.address)}); the address is likely filtered`,
    };
  }
  return {
    state: "blocked",
    half: "route",
    reason: `neither ${where} (${describe(answer.address)}) nor ${dnsName} (${describe(answer.name)}) was reachable`,
  };
}
