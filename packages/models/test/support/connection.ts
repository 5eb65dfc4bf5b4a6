import type { ServerResponse } from "node:http";

/** Resolves when the server side of a response's connection has closed (the client went away). */
export function closed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (response.socket?.destroyed) resolve();
    else response.on("close", () => resolve());
  });
}
