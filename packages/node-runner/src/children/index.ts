export { type ChildAgentOptions, childAgent, childAgentToolName, maxChildTaskBytes } from "./child-agent.js";
export { ChildGrantUnknownError } from "./errors.js";
export type { ChildAgentReport, ChildStatus } from "./run-child.js";
