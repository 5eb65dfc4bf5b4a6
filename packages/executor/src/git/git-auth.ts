import type { Redactor } from "../log/redactor.js";

/**
 * The environment that lets one git process authenticate to the remote with `token`: an
 * `http.extraHeader` with basic auth (`x-access-token:<token>`) through `GIT_CONFIG_COUNT`, so
 * the token is never in a URL, an argv or `.git/config`, and only the server's own clone, fetch
 * and push carry it. The header's encoded form joins the redactor too (git's traces print it).
 * No token: an empty environment.
 */
export function gitAuthEnvironment(token: string | undefined, redactor: Redactor): Record<string, string> {
  if (!token) return {};
  const encoded = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  redactor.add(encoded);
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "http.extraHeader",
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${encoded}`,
  };
}
