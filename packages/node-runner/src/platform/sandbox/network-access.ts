import { domainToASCII } from "node:url";
import { defineTool, type Tool, type ToolAdmitContext, ToolInputError } from "@castellan/harness";

/** The input of `request_network_access`. */
export interface RequestNetworkAccessInput {
  /** 1 to 16 canonical host names (see {@link checkCanonicalHost}). */
  readonly hosts: readonly string[];
  /** Why the hosts are needed: non-empty after trimming, at most 1,000 characters. */
  readonly reason: string;
}

/** What `request_network_access`'s `admit` says a call asks for: the canonical hosts and the reason. */
export interface RequestNetworkAccessAdmission {
  readonly hosts: readonly string[];
  readonly reason: string;
}

/** What `request_network_access` returns, as JSON text. */
export interface RequestNetworkAccessResult {
  /** Hosts added to this Runner's allow list by this call. */
  readonly granted: readonly string[];
  /** Hosts the policy's `allowedDomains` or an earlier grant already allowed. */
  readonly alreadyAllowed: readonly string[];
  /** Hosts not granted (a `deniedDomains` match), each with why. */
  readonly refused: readonly { readonly host: string; readonly reason: string }[];
}

/** Most hosts one call may ask for. */
export const maxNetworkAccessHosts = 16;
/** Longest reason accepted, in characters. */
export const maxNetworkAccessReasonLength = 1_000;

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Whether `host` is canonical: lowercase ASCII labels, no trailing dot, scheme, port, path, userinfo, wildcard or IP literal. */
export function isCanonicalHost(host: string): boolean {
  if (host.length < 1 || host.length > 253) return false;
  if (process.getBuiltinModule("node:net").isIP(host) !== 0) return false;
  const labels = host.split(".");
  if (!labels.every((part) => label.test(part))) return false;
  // A numeric last label is an IP literal in inet_aton shorthand (`127.1`, `2852039166`).
  return !/^[0-9]+$/.test(labels[labels.length - 1] ?? "");
}

/** The canonical form of `raw` where one exists: scheme, userinfo, path, port and trailing dots dropped, lowercased, punycode. */
export function suggestCanonicalHost(raw: string): string | undefined {
  let host = raw.trim();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  host = host.split(/[/?#]/, 1)[0] ?? "";
  const at = host.lastIndexOf("@");
  if (at !== -1) host = host.slice(at + 1);
  if (host.startsWith("[")) return undefined;
  host = host.replace(/:[0-9]*$/, "").replace(/\.+$/, "");
  if (host === "" || host.includes("*")) return undefined;
  const ascii = domainToASCII(host);
  return ascii !== "" && isCanonicalHost(ascii) ? ascii : undefined;
}

/**
 * `raw` if it is canonical.
 *
 * @throws ToolInputError (`host_invalid`) naming the canonical form where one exists.
 */
export function checkCanonicalHost(raw: unknown): string {
  if (typeof raw === "string" && isCanonicalHost(raw)) return raw;
  const shown = JSON.stringify(raw);
  const suggestion = typeof raw === "string" ? suggestCanonicalHost(raw) : undefined;
  throw new ToolInputError(
    "host_invalid",
    suggestion === undefined
      ? `The host ${shown} is not a canonical host name: give lowercase ASCII labels (letters, digits, "-"), no scheme, port, path, userinfo, wildcard, trailing dot or IP literal; Unicode names as xn-- punycode. Nothing was granted.`
      : `The host ${shown} is not canonical; ask for "${suggestion}". Nothing was granted.`,
  );
}

/**
 * The call's canonical hosts (deduplicated, in order) and trimmed reason.
 *
 * @throws ToolInputError `hosts_invalid`, `host_invalid` or `reason_invalid`.
 */
export function checkNetworkAccessInput(input: RequestNetworkAccessInput): RequestNetworkAccessAdmission {
  const hosts = (input as { hosts?: unknown }).hosts;
  if (!Array.isArray(hosts) || hosts.length < 1 || hosts.length > maxNetworkAccessHosts) {
    throw new ToolInputError(
      "hosts_invalid",
      `hosts must hold 1 to ${maxNetworkAccessHosts} host names; it holds ${Array.isArray(hosts) ? hosts.length : "none"}. Nothing was granted.`,
    );
  }
  const canonical = [...new Set(hosts.map(checkCanonicalHost))];
  const reason = (input as { reason?: unknown }).reason;
  const trimmed = typeof reason === "string" ? reason.trim() : "";
  if (typeof reason !== "string" || trimmed === "" || reason.length > maxNetworkAccessReasonLength) {
    throw new ToolInputError(
      "reason_invalid",
      `reason must say why the hosts are needed: non-empty, at most ${maxNetworkAccessReasonLength.toLocaleString("en")} characters. Nothing was granted.`,
    );
  }
  return { hosts: canonical, reason: trimmed };
}

/** Whether a `deniedDomains` / `allowedDomains` entry matches `host` on every port. */
function patternMatches(pattern: string, host: string, anyPort: boolean): boolean {
  let hostPattern = pattern.toLowerCase();
  const colon = hostPattern.lastIndexOf(":");
  if (!hostPattern.startsWith("[") && colon !== -1 && hostPattern.indexOf(":") === colon) {
    // A port-restricted entry: it denies on some port (so it refuses), but does not allow on all.
    if (!anyPort) return false;
    hostPattern = hostPattern.slice(0, colon);
  }
  if (hostPattern === "*") return anyPort;
  if (hostPattern.startsWith("*.")) return host.endsWith(hostPattern.slice(1));
  return host === hostPattern;
}

/** What the tool needs of the plugin: the call check, the policy, the scope's grants and the runtime. */
export interface NetworkAccessScope {
  checkCall(ctx: { readonly sandbox: unknown }): void;
  readonly allowedDomains: readonly string[];
  readonly deniedDomains: readonly string[];
  /** This scope's grants so far. */
  readonly grants: Set<string>;
  /** Applies new grants to the active profile. */
  apply(hosts: readonly string[]): Promise<void>;
}

const description = `Ask for network access to specific hosts for the sandboxed commands (exec_command); a person approves it. Give exact host names (e.g. "registry.npmjs.org"): lowercase, no scheme, port, path or wildcard; Unicode names as xn-- punycode. Granted hosts are allowed for later commands; nothing is run or retried. Command approval never grants network access. The result is JSON { granted, alreadyAllowed, refused: [{ host, reason }] }; a host the policy denies is refused.`;

/**
 * `request_network_access`: widens the allow list of the call's scope (the plugin's one per
 * Runner, or a `workspace()` Session's own); not read-only.
 */
export function createRequestNetworkAccessTool(
  scopeOf: (call: ToolAdmitContext) => NetworkAccessScope,
): Tool<RequestNetworkAccessInput> {
  return defineTool<RequestNetworkAccessInput>({
    name: "request_network_access",
    description,
    inputSchema: {
      type: "object",
      properties: {
        hosts: {
          type: "array",
          items: { type: "string" },
          description: `1 to ${maxNetworkAccessHosts} exact host names.`,
        },
        reason: { type: "string", description: "Why the commands need these hosts; shown to the approver." },
      },
      required: ["hosts", "reason"],
      additionalProperties: false,
    },
    admit(input, ctx: ToolAdmitContext) {
      scopeOf(ctx).checkCall(ctx);
      const admission = checkNetworkAccessInput(input);
      return { admission: { hosts: [...admission.hosts], reason: admission.reason } };
    },
    async execute(input, ctx) {
      const scope = scopeOf(ctx);
      scope.checkCall(ctx);
      const { hosts } = checkNetworkAccessInput(input);
      const granted: string[] = [];
      const alreadyAllowed: string[] = [];
      const refused: { host: string; reason: string }[] = [];
      for (const host of hosts) {
        const denied = scope.deniedDomains.find((pattern) => patternMatches(pattern, host, true));
        if (denied !== undefined) {
          refused.push({ host, reason: `denied by the sandbox policy (deniedDomains ${JSON.stringify(denied)})` });
        } else if (
          scope.grants.has(host) ||
          scope.allowedDomains.some((pattern) => patternMatches(pattern, host, false))
        ) {
          alreadyAllowed.push(host);
        } else {
          granted.push(host);
        }
      }
      if (granted.length > 0) {
        await scope.apply(granted);
        for (const host of granted) scope.grants.add(host);
      }
      const result: RequestNetworkAccessResult = { granted, alreadyAllowed, refused };
      return JSON.stringify(result);
    },
  });
}
