// A loopback stand-in for the Responses API that openai.ts talks to: it records every request
// and answers each one from a script keyed on what the request ends with (the last function call
// output, or the last user message that is one of the script's prompts; live context after them
// is skipped), streamed in the Responses wire format of the codex binding's own tests.
import type { ServerResponse } from "node:http";
import { ResponsesStream } from "../../../../packages/models/test/codex/support/responses-sse.ts";
import {
  type HttpFixture,
  type RecordedRequest,
  sendSse,
  startHttpFixture,
} from "../../../../packages/models/test/support/http-fixture.ts";

/** One input item of a Responses request, as much of it as the script reads. */
export interface InputItem {
  readonly type?: string;
  readonly role?: string;
  readonly call_id?: string;
  readonly name?: string;
  readonly arguments?: string;
  readonly output?: unknown;
  readonly content?: unknown;
}

/** The body of a Responses request, as much of it as the tests read. */
export interface ResponsesBody {
  readonly model?: string;
  readonly instructions?: string;
  readonly input: readonly InputItem[];
  readonly tools?: readonly { readonly type: string; readonly name?: string; readonly [field: string]: unknown }[];
}

/** What the model does next: call a function, or answer with text. */
export type ScriptStep =
  | { readonly call: string; readonly callId: string; readonly arguments: Readonly<Record<string, unknown>> }
  | { readonly text: string };

/** The script: what to answer after each prompt, and after each function call's output (by call id). */
export interface Script {
  readonly afterPrompt: Readonly<Record<string, ScriptStep>>;
  readonly afterOutput: Readonly<Record<string, ScriptStep>>;
}

/** The text of a message item's content, joined. */
export function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
}

/** The output of a function call output item, as text. */
export function outputText(item: InputItem): string {
  return typeof item.output === "string" ? item.output : textOfContent(item.output);
}

/** The item the script answers: the last function call output, or the last scripted prompt. */
export function answeredItem(body: ResponsesBody, script: Script): InputItem | undefined {
  for (let index = body.input.length - 1; index >= 0; index--) {
    const item = body.input[index];
    if (!item) continue;
    if (item.type === "function_call_output") return item;
    if (item.role === "user" && textOfContent(item.content).trim() in script.afterPrompt) return item;
  }
  return undefined;
}

/** The step the script takes for a request; a request it has no answer for gets a text saying so. */
export function stepFor(body: ResponsesBody, script: Script): ScriptStep {
  const item = answeredItem(body, script);
  const step =
    item?.type === "function_call_output"
      ? script.afterOutput[item.call_id ?? ""]
      : item
        ? script.afterPrompt[textOfContent(item.content).trim()]
        : undefined;
  return step ?? { text: "UNSCRIPTED REQUEST" };
}

let responses = 0;

async function answer(request: RecordedRequest, response: ServerResponse, script: Script): Promise<void> {
  if (request.method !== "POST" || !request.path.endsWith("/responses")) {
    response.writeHead(404, { "content-type": "text/plain" });
    response.end("not found");
    return;
  }
  const step = stepFor(request.json as ResponsesBody, script);
  const stream = new ResponsesStream(`resp_${++responses}`);
  if ("call" in step) stream.functionCall(step.callId, step.call, [JSON.stringify(step.arguments)]);
  else stream.text([step.text], `msg_${responses}`);
  await sendSse(response, stream.completed());
}

/** Starts the stand-in on a free 127.0.0.1 port. */
export async function startResponsesServer(script: Script): Promise<HttpFixture> {
  return await startHttpFixture((request, response) => answer(request, response, script));
}

/** The request bodies the server received, in order. */
export function bodies(fixture: HttpFixture): ResponsesBody[] {
  return fixture.requests.map((request) => request.json as ResponsesBody);
}
