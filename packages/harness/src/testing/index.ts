export {
  type AgentProjection,
  type PendingReference,
  type PendingSection,
  type ProjectAgentInput,
  projectAgent,
} from "./project-agent.js";
