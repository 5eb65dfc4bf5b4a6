import type { IncomingMessage } from "node:http";
import { ExecutorRequestError } from "../errors/errors.js";

/** The largest body read: 1 MiB. */
export const maxBodyBytes = 1_048_576;

/**
 * Reads a JSON request body of at most 1 MiB. Anything but `application/json` is 415; a body
 * that announces or reaches more than the bound is 413, and nothing past the bound is read;
 * text that is not JSON is 400 `invalid-body`.
 */
export async function readJson(request: IncomingMessage): Promise<unknown> {
  const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new ExecutorRequestError("executor_unsupported_media_type", "The body must be application/json.");
  }
  const tooLarge = () =>
    new ExecutorRequestError("executor_body_too_large", `The body is larger than ${maxBodyBytes} bytes.`);
  const announced = Number(request.headers["content-length"]);
  if (Number.isFinite(announced) && announced > maxBodyBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new ExecutorRequestError("executor_invalid_body", "The body is not JSON.");
  }
}
