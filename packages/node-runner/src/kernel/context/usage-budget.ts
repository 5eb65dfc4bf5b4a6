import { CastellanError } from "@castellan/harness";

/** Limits on what one Run may spend. A Run over any of them stops before its next model call. */
export interface UsageBudget {
  readonly maxInputTokens?: number;
  readonly maxOutputTokens?: number;
  readonly maxTotalTokens?: number;
  /** In US dollars; counts only calls whose binding reports a cost. */
  readonly maxCostUsd?: number;
}

/** The Run spent its budget; it stopped between turns, with every tool call settled. */
export class BudgetExceededError extends CastellanError {
  constructor(message: string) {
    super("budget_exceeded", message);
  }
}

/** Throws BudgetExceededError when `spent` has reached any limit of `budget`. */
/** What is left of `budget` after `spent`: each bound reduced, never below zero (a child Run's budget). */
export function remainingBudget(
  budget: UsageBudget,
  spent: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd?: number },
): UsageBudget {
  const left = (limit: number | undefined, used: number) =>
    limit === undefined ? undefined : Math.max(0, limit - used);
  const fields = {
    maxInputTokens: left(budget.maxInputTokens, spent.inputTokens),
    maxOutputTokens: left(budget.maxOutputTokens, spent.outputTokens),
    maxTotalTokens: left(budget.maxTotalTokens, spent.inputTokens + spent.outputTokens),
    maxCostUsd: left(budget.maxCostUsd, spent.costUsd ?? 0),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as UsageBudget;
}

export function checkBudget(
  budget: UsageBudget | undefined,
  spent: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd?: number },
): void {
  if (!budget) return;
  const over = (name: string, used: number, limit: number | undefined) => {
    if (limit !== undefined && used >= limit) {
      throw new BudgetExceededError(
        `The run used ${used} of its ${limit} ${name} budget and stopped before another model call.`,
      );
    }
  };
  over("input-token", spent.inputTokens, budget.maxInputTokens);
  over("output-token", spent.outputTokens, budget.maxOutputTokens);
  over("total-token", spent.inputTokens + spent.outputTokens, budget.maxTotalTokens);
  over("USD", spent.costUsd ?? 0, budget.maxCostUsd);
}
