import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { writePrivateFileAtomically } from "@castellan/node-runner";

/** A private package registry of the body. */
export interface PackageRegistry {
  /** The registry's URL (`https:`, or `http:` on loopback). */
  readonly registry: string;
  /** The npm scope it serves (`@acme`); without one it becomes the default registry. */
  readonly scope?: string;
  readonly token: string;
}

/** The most bytes of the user's own `.npmrc` the job's is seeded from. */
const maxUserConfigBytes = 1_048_576;

/** The user's npm config file: `npm_config_userconfig` of the server's environment, else `~/.npmrc`. */
export function userNpmrcPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.npm_config_userconfig || env.NPM_CONFIG_USERCONFIG || join(homedir(), ".npmrc");
}

/** `//host/path/`: the key npm files a registry's credentials under. */
function nerfDart(registry: string): string {
  const url = new URL(registry);
  const path = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`;
  return `//${url.host}${path}`;
}

/**
 * A key or value as npm's ini reader gives it back whole: as it is when it holds only
 * characters the reader leaves alone, else JSON-quoted (the reader unquotes a `"..."` text with
 * `JSON.parse`). Unquoted, a `;` or `#` would start a comment and end the text there, a line
 * break would start a line (a setting) of its own, and outer spaces or quotes would be dropped.
 */
function iniText(text: string): string {
  return /^[A-Za-z0-9@%+,./:=_~-]*$/.test(text) ? text : JSON.stringify(text);
}

/** The first line of an ini text that opens a section (`[name]`): every later setting belongs to it. */
const sectionHeader = /^[ \t]*\[[^\]\r\n]*\][ \t]*\r?$/m;

/**
 * Writes the job's own `.npmrc` (0600) into its home: the user's file as it is (never written
 * or removed), then each registry's scope line and token. The job's commands are pointed at it
 * by `npm_config_userconfig`; yarn does not read that variable (its own config is untouched).
 * The job's settings follow the user's top-level ones, so npm (which keeps the last of a
 * repeated key) takes the job's, and precede the user's first `[section]`, which would
 * otherwise take them in. Resolves with the file's path.
 */
export async function writeJobNpmrc(options: {
  readonly home: string;
  readonly registries: readonly PackageRegistry[];
  /** The user's file to seed from. Default {@link userNpmrcPath}. */
  readonly userConfig?: string;
}): Promise<string> {
  const userConfig = options.userConfig ?? userNpmrcPath();
  const seeded = await readFile(userConfig).then(
    (bytes) => (bytes.length <= maxUserConfigBytes ? bytes.toString("utf8") : ""),
    () => "",
  );
  const section = sectionHeader.exec(seeded);
  const topLevel = section ? seeded.slice(0, section.index) : seeded;
  const sections = section ? seeded.slice(section.index) : "";
  const lines = [topLevel.trimEnd(), "", "; Castellan: this job's package registries"];
  for (const entry of options.registries) {
    const registry = entry.registry.endsWith("/") ? entry.registry : `${entry.registry}/`;
    lines.push(`${entry.scope ? `${entry.scope}:registry` : "registry"}=${iniText(registry)}`);
    lines.push(`${iniText(`${nerfDart(registry)}:_authToken`)}=${iniText(entry.token)}`);
  }
  if (sections !== "") lines.push("", sections.trimEnd());
  const path = join(options.home, ".npmrc");
  await writePrivateFileAtomically(path, `${lines.join("\n").trimStart()}\n`);
  return path;
}
