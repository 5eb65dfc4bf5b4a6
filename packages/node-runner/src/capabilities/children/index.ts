export { ChildGrantUnknownError } from "../../kernel/children/errors.js";
export type { ChildAgentReport, ChildStatus } from "../../kernel/session/run-child.js";
export { type ChildAgentOptions, childAgent, childAgentToolName, maxChildTaskBytes } from "./child-agent.js";
export { readChildAgentReport } from "./read-report.js";
