import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The `workspace` param of a Session working in `directory`: its absolute path as a file URL. */
export function workspaceUrl(directory: string): string {
  return pathToFileURL(resolve(directory)).href;
}
