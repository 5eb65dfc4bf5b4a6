// A deterministic, provider-neutral model for the example: it reads each request (the system
// text, the tools offered, the conversation and its latest results) and answers with the next
// step of the coding flow. It keeps no counter and no memory of its own, so a new process that
// reopens the Session continues where the saved history stands, and a compacted history
// continues from the summary this model wrote.
import { randomUUID } from "node:crypto";
import type {
  ContentBlock,
  JsonValue,
  Message,
  ModelBinding,
  ModelRequest,
  ModelStreamEvent,
  ToolCall,
} from "@castellan/harness";

/** The specifier the mock reports on every answer. */
export const mockSpecifier = "mock/coding";

const summaryRequest = "Summarize the conversation so far";
const progressMarker = "Progress of the coding flow:";

/** What the conversation shows has happened so far. */
interface Facts {
  task?: string;
  issue?: string;
  symbol?: string;
  hitPath?: string;
  source?: { readonly path: string; readonly text: string };
  patched?: string;
  installRefusal?: string;
  test?: { readonly command: string; readonly exitCode: number | null; readonly summary: string };
  runningTest?: string;
  review?: string;
  skill?: boolean;
  template?: string;
  refused?: string;
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isSummary(message: Message): boolean {
  return message.role === "user" && textOf(message.content).startsWith("Summary of the earlier conversation");
}

/** The facts a summary written by this model carries: one `key: JSON value` line each. */
function factsFromSummary(text: string, facts: Facts): void {
  const start = text.indexOf(progressMarker);
  if (start < 0) return;
  for (const line of text.slice(start + progressMarker.length).split("\n")) {
    const colon = line.indexOf(": ");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim();
    try {
      (facts as Record<string, unknown>)[key] = JSON.parse(line.slice(colon + 2));
    } catch {
      // A line that is not one of ours.
    }
  }
}

/** The first `code` span of the issue that names a function or variable. */
function symbolIn(issue: string): string | undefined {
  for (const match of issue.matchAll(/`([A-Za-z_$][\w$]*)`/g)) {
    const name = match[1] as string;
    if (/[a-z][A-Z]/.test(name)) return name;
  }
  return undefined;
}

/** Everything the conversation shows: summaries first, then each tool result in order. */
function factsOf(messages: readonly Message[]): Facts {
  const facts: Facts = {};
  const calls = new Map<string, ToolCall>();
  for (const message of messages) {
    if (isSummary(message)) {
      factsFromSummary(textOf(message.content), facts);
      continue;
    }
    if (message.role === "user") {
      const text = textOf(message.content).trim();
      if (text && !/what did you change/i.test(text)) facts.task ??= text;
      continue;
    }
    if (message.role === "assistant") {
      for (const call of message.toolCalls) calls.set(call.id, call);
      continue;
    }
    const call = calls.get(message.toolCallId);
    const input = (call?.input ?? {}) as Record<string, JsonValue>;
    const text = textOf(message.content);
    const denied = message.isError && text.startsWith("Permission denied");
    if (denied && message.toolName === "exec_command" && input.command === "npm install") {
      facts.installRefusal = text;
      continue;
    }
    if (denied) {
      facts.refused ??= `${message.toolName}: ${text}`;
      continue;
    }
    switch (message.toolName) {
      case "mcp__docs__read_text_file":
      case "read_issue":
        if (!message.isError) {
          facts.issue = text;
          const symbol = symbolIn(text);
          if (symbol) facts.symbol = symbol;
        }
        break;
      case "search_workspace": {
        const hits = (parseJson(text)?.hits ?? []) as { path?: string }[];
        const paths = hits.map((hit) => hit.path).filter((path): path is string => typeof path === "string");
        // The source first: not a test, a document, or a dot-folder (such as the saved Session).
        const source = (path: string) => !/^(test|tests|docs)\//.test(path) && !/(^|\/)\./.test(path);
        facts.hitPath = paths.find(source) ?? "";
        break;
      }
      case "read_workspace_file": {
        const page = parseJson(text);
        if (typeof page?.path === "string" && typeof page.text === "string") {
          facts.source = { path: page.path, text: page.text };
        }
        break;
      }
      case "apply_workspace_patch":
        if (!message.isError) facts.patched = facts.source?.path ?? "";
        else facts.refused ??= `apply_workspace_patch: ${text}`;
        break;
      case "exec_command":
      case "command_session": {
        const report = parseJson(text);
        if (report?.type !== "command-session-report") break;
        const command = typeof input.command === "string" ? input.command : "npm test";
        if (report.state === "running") facts.runningTest = String(report.commandId);
        else {
          const stdout = String((report.stdout as { text?: string } | undefined)?.text ?? "");
          // node --test prints its totals as "ℹ pass 3" (spec reporter) or "# pass 3" (TAP).
          const pass = /^(?:ℹ|#) pass (\d+)/m.exec(stdout)?.[1];
          const fail = /^(?:ℹ|#) fail (\d+)/m.exec(stdout)?.[1];
          facts.runningTest = undefined;
          facts.test = {
            command: message.toolName === "exec_command" ? command : (facts.test?.command ?? "npm test"),
            exitCode: typeof report.exitCode === "number" ? report.exitCode : null,
            summary: pass !== undefined ? `${pass} passed, ${fail ?? "0"} failed` : "no test summary",
          };
        }
        break;
      }
      default:
        if (message.toolName.startsWith("agent_")) {
          const report = parseJson(text);
          facts.review = typeof report?.text === "string" ? report.text : text;
        } else if (message.toolName === "activate_skill" && !message.isError) {
          facts.skill = true;
        } else if (message.toolName === "read_skill_resource" && !message.isError) {
          facts.template = text;
        }
    }
  }
  return facts;
}

/** The patch that makes each line item count its quantity, from the file as it was read. */
function fixPatch(source: { readonly path: string; readonly text: string }): string | undefined {
  const line = source.text.split("\n").find((candidate) => /\+ item\.price\b(?! \*)/.test(candidate));
  if (!line) return undefined;
  const fixed = line.replace("item.price", "item.price * item.quantity");
  return ["*** Begin Patch", `*** Update File: ${source.path}`, "@@", `-${line}`, `+${fixed}`, "*** End Patch"].join(
    "\n",
  );
}

function firstLine(text: string | undefined): string {
  return (
    (text ?? "")
      .replace(/^#+\s*/, "")
      .split("\n")[0]
      ?.trim() ?? ""
  );
}

/** A review's reasons (the lines after its verdict), as one sentence list. */
function reasons(review: string): string {
  return review
    .split("\n")
    .slice(1)
    .map((line) => line.replace(/^[-*]\s*/, "").trim())
    .filter(Boolean)
    .join(" ");
}

/** The final report, written on the change-report template where it was read. */
function report(facts: Facts): string {
  const verdict = firstLine(facts.review) || "no review";
  const commands = [
    facts.installRefusal ? `- \`npm install\`: not run (refused: ${facts.installRefusal.split(": ").pop()})` : "",
    facts.test ? `- \`${facts.test.command}\`: exit ${facts.test.exitCode ?? "unknown"} (${facts.test.summary})` : "",
  ].filter(Boolean);
  const values: Record<string, string> = {
    problem: firstLine(facts.issue) || "see docs/ISSUE.md",
    changes: facts.patched
      ? `- \`${facts.patched}\`: \`${facts.symbol ?? "the total"}\` now adds \`price * quantity\` for each line item`
      : "- nothing was changed",
    commands: commands.length > 0 ? commands.join("\n") : "- no command ran",
    review: facts.review ? `${verdict}: ${reasons(facts.review)}` : "not reviewed",
    refused: facts.refused ?? "nothing",
  };
  const template =
    facts.template ??
    "## Change report\n\n**Problem:** {problem}\n\n**Change:**\n{changes}\n\n**Verification:**\n{commands}\n\n**Review:** {review}\n\n**Refused:** {refused}\n";
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => values[key] ?? whole).trim();
}

type Step = { readonly text: string } | { readonly call: { readonly name: string; readonly input: JsonValue } };

const call = (name: string, input: JsonValue): Step => ({ call: { name, input } });

/** The coder's next step. */
function coderStep(request: ModelRequest, facts: Facts, offered: ReadonlySet<string>): Step {
  if (facts.refused) {
    return { text: `I stopped: a step was refused, so the project was left as it was.\n\n${report(facts)}` };
  }
  if (facts.issue === undefined) {
    const docs = /are in (\/\S*?\/?); read them/.exec(request.system)?.[1];
    if (offered.has("mcp__docs__read_text_file") && docs) {
      return call("mcp__docs__read_text_file", { path: `${docs.replace(/\/?$/, "/")}ISSUE.md` });
    }
    return call("read_workspace_file", { path: "docs/ISSUE.md" });
  }
  if (facts.symbol === undefined) {
    return { text: `The issue names no function or variable to look for, so nothing was changed.\n\n${report(facts)}` };
  }
  if (facts.hitPath === undefined) return call("search_workspace", { query: facts.symbol });
  if (facts.source === undefined) {
    if (!facts.hitPath) return { text: `I could not find \`${facts.symbol ?? "the code"}\` in the project.` };
    return call("read_workspace_file", { path: facts.hitPath });
  }
  if (facts.patched === undefined) {
    const patch = fixPatch(facts.source);
    if (!patch) return { text: `I found no line in ${facts.source.path} that matches the issue; nothing was changed.` };
    return call("apply_workspace_patch", { patch });
  }
  if (facts.installRefusal === undefined && facts.test === undefined)
    return call("exec_command", { command: "npm install" });
  if (facts.runningTest) return call("command_session", { commandId: facts.runningTest, action: "poll" });
  if (facts.test === undefined) return call("exec_command", { command: "npm test" });
  const reviewer = [...offered].find((name) => name.startsWith("agent_"));
  if (facts.review === undefined && reviewer) {
    return call(reviewer, {
      task: `Review the change to ${facts.patched}: \`${facts.symbol ?? "the total"}\` now multiplies each line item's price by its quantity, as docs/ISSUE.md asks. \`npm test\` exited ${facts.test.exitCode}.`,
    });
  }
  if (!facts.skill && offered.has("activate_skill")) return call("activate_skill", { name: "change-report" });
  if (facts.template === undefined && offered.has("read_skill_resource")) {
    return call("read_skill_resource", { name: "change-report", path: "template.md" });
  }
  return { text: report(facts) };
}

/** An answer about what the saved history shows was changed. */
function historyAnswer(facts: Facts): string {
  if (!facts.patched) return "I have not changed anything in this project yet.";
  const test = facts.test
    ? `Then \`${facts.test.command}\` exited ${facts.test.exitCode ?? "unknown"} (${facts.test.summary}).`
    : "No test run is recorded.";
  return [
    `I changed ${facts.patched}: the apply_workspace_patch receipt shows \`${facts.symbol ?? "the total"}\` now adds \`price * quantity\` for each line item instead of the unit price alone.`,
    test,
    facts.review ? `The reviewer answered ${firstLine(facts.review)}.` : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** The reviewer's next step: read the file named in its task, then give a verdict. */
function reviewerStep(request: ModelRequest, facts: Facts): Step {
  if (facts.source === undefined) {
    const path = /(?:^|\s)((?:src|lib)\/[\w./-]+\.\w+)/.exec(facts.task ?? "")?.[1] ?? "src/cart.js";
    return call("read_workspace_file", { path });
  }
  const counts = /item\.price \* item\.quantity/.test(facts.source.text);
  void request;
  return {
    text: counts
      ? `APPROVE\n- ${facts.source.path} now multiplies each unit price by its quantity, as the issue asks.\n- The change is one line; itemCount is unchanged.`
      : `REQUEST_CHANGES\n- ${facts.source.path} still adds each unit price once and ignores the quantity.`,
  };
}

/** The summary of a compacted conversation: prose for a reader, and the facts as lines this model reads back. */
function summaryOf(messages: readonly Message[]): string {
  const facts = factsOf(messages);
  const lines = Object.entries(facts)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  const done = [
    facts.issue !== undefined && "read the issue",
    facts.source && `read ${facts.source.path}`,
    facts.patched && `patched ${facts.patched}`,
    facts.test && `ran ${facts.test.command} (exit ${facts.test.exitCode})`,
    facts.review !== undefined && "had it reviewed",
  ].filter(Boolean);
  return [
    `The user asked: ${facts.task ?? "(nothing yet)"}. So far the agent ${done.length > 0 ? done.join(", ") : "has done nothing"}.`,
    progressMarker,
    ...lines,
  ].join("\n");
}

function* words(text: string): Generator<string> {
  // Streamed as a provider would: a few characters at a time, split on spaces.
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  for (let index = 0; index < pieces.length; index += 4) yield pieces.slice(index, index + 4).join("");
}

function estimateTokens(request: ModelRequest): number {
  return Math.ceil(JSON.stringify(request).length / 4);
}

/**
 * The example's model: `mock/coding`, answering the coder, its reviewer and compaction
 * requests deterministically from what each request holds. It is offered the hosted web search
 * and never uses it.
 */
export function mockCodingModel(): ModelBinding {
  return {
    specifier: mockSpecifier,
    async *stream(request: ModelRequest, { signal }): AsyncGenerator<ModelStreamEvent> {
      if (signal.aborted) {
        yield { type: "error", error: signal.reason instanceof Error ? signal.reason : new Error("aborted") };
        return;
      }
      const offered = new Set(request.tools.map((tool) => tool.name));
      const last = request.messages.at(-1);
      let step: Step;
      if (request.tools.length === 0 && last?.role === "user" && textOf(last.content).startsWith(summaryRequest)) {
        step = { text: summaryOf(request.messages.slice(0, -1)) };
      } else if (request.system.startsWith("You are the code reviewer")) {
        step = reviewerStep(request, factsOf(request.messages));
      } else {
        const facts = factsOf(request.messages);
        const asked = [...request.messages].reverse().find((message) => message.role === "user" && !isSummary(message));
        step =
          asked && /what did you change/i.test(textOf(asked.content))
            ? { text: historyAnswer(facts) }
            : coderStep(request, facts, offered);
      }
      const inputTokens = estimateTokens(request);
      if ("text" in step) {
        for (const piece of words(step.text)) yield { type: "text-delta", text: piece };
        yield { type: "usage", usage: { inputTokens, outputTokens: Math.ceil(step.text.length / 4) } };
        yield { type: "finish", stopReason: "end" };
        return;
      }
      // Ids only need to be unique in the Session; nothing is decided by them.
      yield { type: "tool-call", toolCall: { id: `call_${randomUUID()}`, ...step.call } };
      yield { type: "usage", usage: { inputTokens, outputTokens: 20 } };
      yield { type: "finish", stopReason: "tool-calls" };
    },
  };
}
