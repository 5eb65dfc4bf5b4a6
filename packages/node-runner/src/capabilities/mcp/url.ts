import { McpUrlRefusedError } from "./errors.js";

/** True for a loopback host: 127.0.0.0/8, ::1, or `localhost`. */
function isLoopback(hostname: string): boolean {
  const host = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  if (host === "localhost") return true;
  const isIP = process.getBuiltinModule("node:net").isIP;
  if (isIP(host) === 4) return host.split(".")[0] === "127";
  if (isIP(host) === 6) return host === "::1" || host === "0:0:0:0:0:0:0:1";
  return false;
}

/**
 * A Streamable HTTP server URL: `https:`, or `http:` on loopback. Checked on the text alone,
 * before any DNS lookup or socket.
 *
 * @throws McpUrlRefusedError (`mcp_url_refused`).
 */
export function checkServerUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new McpUrlRefusedError(String(value), "it is not a URL");
  }
  if (url.protocol === "https:") return url;
  if (url.protocol !== "http:")
    throw new McpUrlRefusedError(url.href, `the scheme ${url.protocol} is not https: or http:`);
  if (!isLoopback(url.hostname)) throw new McpUrlRefusedError(url.href, "plain http: is allowed on loopback only");
  return url;
}
