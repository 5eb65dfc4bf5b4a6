// The browser bench's page: about 300 elements (100 rows, each a heading-like label, a
// counter and a button), served on loopback. A button click bumps its row's counter.
import { createServer, type Server } from "node:http";

/** The page's HTML: `rows` rows of three elements each. */
export function benchPage(rows: number): string {
  const items = Array.from(
    { length: rows },
    (_, index) =>
      `<li><span>Item ${index}</span> <output id="c${index}">0</output> <button type="button" onclick="c${index}.value = Number(c${index}.value) + 1">Toggle ${index}</button></li>`,
  ).join("\n");
  return `<!doctype html><html><head><title>Bench list</title></head><body><main><h1>Bench list</h1><ul>\n${items}\n</ul></main></body></html>`;
}

/** Serves the page at `/` on 127.0.0.1; resolves with its URL and a close function. */
export async function servePage(rows: number): Promise<{ readonly url: string; close(): Promise<void> }> {
  const html = benchPage(rows);
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    response.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
