import { readFileSync } from "node:fs";

/** This package's version, from its package.json (`dist/cli/` and `src/cli/` are both two levels down). */
export const castellanVersion = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;
