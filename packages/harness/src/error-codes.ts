/**
 * Every code a Castellan error can carry: the closed set callers branch on. Each one's meaning
 * is listed in the repository's docs/errors.md; a test keeps this list, the codes the source
 * throws and that page the same.
 */
export const castellanErrorCodes = [
  // Declarations and options
  "invalid_declaration",
  "invalid_options",
  "input_invalid",
  "params_invalid",
  "plugin_invalid",
  // Opening a Session
  "aborted",
  "session_locked",
  "session_log_corrupt",
  "session_log_unsupported",
  "session_log_write_failed",
  "session_agent_mismatch",
  "session_params_mismatch",
  "model_not_found",
  "model_ambiguous",
  "model_registration",
  "model_resolution_failed",
  "tool_not_found",
  "tool_ambiguous",
  "sandbox_not_found",
  "skills_unavailable",
  "skill_invalid",
  "skill_not_found",
  "skill_directory_missing",
  "skill_name_conflict",
  "skills_too_many",
  "skill_not_available",
  "skill_load_failed",
  "resource_failed",
  "resource_pending",
  "instructions_file_missing",
  "instructions_file_not_regular",
  "instructions_file_invalid_utf8",
  "instructions_file_blank",
  "workspace_root_invalid",
  "environment_invalid",
  "tool_execution_host_error",
  // Runs
  "run_aborted",
  "model_failed",
  "max_turns",
  "budget_exceeded",
  "compaction_failed",
  "projection_failed",
  "hook_invalid",
  "session_hook_failed",
  "state_invalid",
  "state_key_reserved",
  // Using a Session
  "session_closed",
  "input_duplicate",
  "run_active",
  "run_ended",
  "nothing_to_resume",
  "approval_not_pending",
  // Commands
  "command_limit_reached",
  "command_aborted",
  "command_spawn_failed",
  "command_not_found",
  "command_options_invalid",
  "command_observer_failed",
  "command_tools_missing",
  // Sandboxed commands
  "sandbox_unavailable",
  "sandbox_config_invalid",
  "sandbox_profile_conflict",
  "sandbox_worker_missing",
  // The workspace capability
  "workspace_options_invalid",
  // MCP servers
  "mcp_start_failed",
  "mcp_catalog_too_large",
  "mcp_tool_not_found",
  "mcp_tool_name_collision",
  "mcp_tool_schema_invalid",
  "mcp_url_refused",
  // Child agents
  "child_grant_unknown",
  // Goals
  "goal_settlement_obsolete",
  "goal_conflict",
  "goal_store_locked",
  "goal_store_corrupt",
  "goal_invalid",
  "goal_store_failed",
  "goal_driver_invalid",
  // Task lists
  "task_store_locked",
  "task_store_conflict",
  "task_store_corrupt",
  // Approval adapters
  "approval_aborted",
  "approval_closed",
  // Model providers (ModelProviderError)
  "model_auth",
  "model_rate_limited",
  "model_overloaded",
  "model_context_overflow",
  "model_server_error",
  "model_bad_request",
  "model_unknown",
  "model_stream_malformed",
  "model_network",
  "model_unsupported",
  // The test kit
  "script_exhausted",
] as const;

/** A code a Castellan error can carry; see {@link castellanErrorCodes}. */
export type CastellanErrorCode = (typeof castellanErrorCodes)[number];
