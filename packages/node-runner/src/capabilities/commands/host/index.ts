export { runSessionCommand, type SessionCommandRequest, type SessionCommandResult } from "./run-session-command.js";
