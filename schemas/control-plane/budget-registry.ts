/**
 * The budgets of the control plane, as the fold (control-plane-fold.ts) keeps them: by id, and by
 * what they apply to (scope and scope id), which admission looks up on every request
 * (`forScope`: two map lookups, no allocation). What a BudgetSet means, and which ones are ignored,
 * is decided by the fold; this only keeps the records.
 */
import type { BudgetRecord, BudgetScope } from './control-plane-records.ts';

const NO_BUDGETS: ReadonlyArray<BudgetRecord> = Object.freeze([]);

/** Budgets by id and by scope (see the module doc). */
export class BudgetRegistry {
  private readonly byId = new Map<string, BudgetRecord>();
  private readonly byScope = new Map<BudgetScope, Map<string, ReadonlyArray<BudgetRecord>>>();
  private snapshot: ReadonlyArray<BudgetRecord> | undefined;

  /** Sets a budget (a later one with the same id replaces it, and leaves its former scope). */
  set(budget: BudgetRecord): void {
    const existing = this.byId.get(budget.budgetId);
    if (existing) this.unindex(existing);
    this.byId.set(budget.budgetId, budget);
    let scoped = this.byScope.get(budget.scope);
    if (!scoped) this.byScope.set(budget.scope, (scoped = new Map<string, ReadonlyArray<BudgetRecord>>()));
    scoped.set(budget.scopeId, [...(scoped.get(budget.scopeId) ?? NO_BUDGETS), budget]);
    this.snapshot = undefined;
  }

  /** Removes a budget. @returns false when it is unknown */
  remove(budgetId: string): boolean {
    const existing = this.byId.get(budgetId);
    if (!existing) return false;
    this.unindex(existing);
    this.byId.delete(budgetId);
    this.snapshot = undefined;
    return true;
  }

  budget(budgetId: string): BudgetRecord | undefined {
    return this.byId.get(budgetId);
  }

  /** Every budget, in the order first set. */
  list(): ReadonlyArray<BudgetRecord> {
    return (this.snapshot ??= [...this.byId.values()]);
  }

  /** The budgets on `scope` `scopeId` (e.g. `team`, `team_…`), in the order set; a shared empty array when none. */
  forScope(scope: BudgetScope, scopeId: string): ReadonlyArray<BudgetRecord> {
    return this.byScope.get(scope)?.get(scopeId) ?? NO_BUDGETS;
  }

  private unindex(budget: BudgetRecord): void {
    const scoped = this.byScope.get(budget.scope);
    const rest = (scoped?.get(budget.scopeId) ?? NO_BUDGETS).filter((b) => b.budgetId !== budget.budgetId);
    if (rest.length > 0) scoped!.set(budget.scopeId, rest);
    else scoped?.delete(budget.scopeId);
  }
}
