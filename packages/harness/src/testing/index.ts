export { type AgentProjection, type ProjectAgentInput, projectAgent } from "./project-agent.js";
