import type { ServerResponse } from "node:http";
import type { ExecutorRequestError } from "../errors/errors.js";

/** Sends a JSON answer. No CORS header is ever set. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  response.end(text);
}

/** The error body of a refused request: `{ error: { code, message, fields? } }`, with its wire code. */
export function sendError(response: ServerResponse, error: ExecutorRequestError): void {
  sendJson(response, error.status, {
    error: {
      code: error.wireCode,
      message: error.message,
      ...(error.fields ? { fields: error.fields } : {}),
    },
  });
}

/** A failure that is not a refused request: 500, saying nothing about its cause. */
export function sendInternalError(response: ServerResponse): void {
  sendJson(response, 500, { error: { code: "internal", message: "The server failed to answer this request." } });
}
