// The conformance scenarios: every adapter runs every one (the *.test.ts files here), against
// its own loopback fixture. An adapter that behaves otherwise in one of them has a named entry
// with its reason in exceptions.ts; no scenario is ever skipped.

/** Each scenario's name, as test titles and exceptions name it, and what it checks. */
export const scenarios = {
  text: "text deltas in order, one usage event, finish with `end`",
  "tool round trip":
    "a tool call assembled from streamed arguments, run by a Session, its result sent back under its call id",
  "image in a tool result": "a tool result's image reaches the provider with its call",
  "continuation across a restart":
    "a second OS process reopens the file-store Session and sends the adapter's provider blocks back byte for byte",
  "malformed stream": "an event that is not JSON ends the stream with model_stream_malformed, after the text before it",
  "truncated stream":
    "a body that ends before the answer's terminal event ends with model_stream_malformed, never finish",
  "disconnect mid-stream": "a dropped connection ends with model_network after the text before it, and is not retried",
  "HTTP 401": "model_auth, not retried, with a credential the server echoed kept out",
  "HTTP 403": "model_auth, not retried",
  "HTTP 404 unknown model": "model_unknown",
  "too long": "the provider's answer for a prompt over the context window is model_context_overflow, not retried",
  "HTTP 429 with retry-after": "model_rate_limited with retryAfterMs from the header; retried after that wait",
  "HTTP 429 without retry-after": "model_rate_limited without retryAfterMs; retried after the backoff",
  "HTTP 500": "model_server_error, retried",
  "HTTP 503": "model_overloaded",
  "HTTP 529": "model_overloaded",
  "abort before the first byte": "ends with the abort's reason, closes the request, leaves no socket or timer",
  "abort mid-stream":
    "ends with the abort's reason after the text before it, closes the connection, leaves no socket or timer",
  "usage and cost":
    "input counts the cached tokens, cache reads and writes are parts of it, and costUsd prices each part at its own rate",
  "complete answer": "a finished answer's request ends on its own: nothing aborted or cancelled, the connection reused",
  credential: "the key goes only into the request's authorization header: never into events, errors or saved records",
} as const;

/** A scenario's name. */
export type ScenarioName = keyof typeof scenarios;
