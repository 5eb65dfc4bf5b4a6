import { readFileSync } from "node:fs";

/** The package's version, read once from its manifest. */
export const executorVersion: string = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
