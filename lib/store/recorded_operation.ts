/**
 * An atomic operation written down before a store commits it: its checks and writes are
 * recorded, and replayed on a store's own operation when it commits. The lazy store
 * (`lazy_store.ts`) records until the store is open; the group commit (`group_commit.ts`) records
 * so that several operations can be committed as one.
 *
 * @module
 */
import type { AtomicCheck, AtomicOperation, KvCommitResult, KvKey, KvSetOptions } from "./store.ts";

/** One recorded step of an atomic operation. */
export type RecordedStep =
  | { kind: "check"; check: AtomicCheck }
  | { kind: "set"; key: KvKey; value: unknown; options?: KvSetOptions }
  | { kind: "delete"; key: KvKey };

/**
 * Creates an operation that records its steps and, at each `commit()`, hands a copy of them to
 * `commit` (so that it may be committed again, e.g. by `retry`).
 *
 * @param commit Commits the recorded steps.
 * @param copyValue Copies a value as `set` is called, for a store that would copy it then
 * (`structuredClone`); without it the value is read when the steps are replayed.
 * @returns The operation.
 */
export function recordOperation(
  commit: (steps: readonly RecordedStep[]) => Promise<KvCommitResult>,
  copyValue?: (value: unknown) => unknown,
): AtomicOperation {
  const steps: RecordedStep[] = [];
  return {
    check(...checks) {
      for (const check of checks) steps.push({ kind: "check", check });
      return this;
    },
    set(key, value, options) {
      steps.push({ kind: "set", key, value: copyValue ? copyValue(value) : value, options });
      return this;
    },
    delete(key) {
      steps.push({ kind: "delete", key });
      return this;
    },
    commit: () => commit([...steps]),
  };
}

/**
 * Replays recorded steps on an operation of a store.
 *
 * @param operation The store's operation.
 * @param steps The steps, in order.
 * @returns The operation, to commit.
 */
export function replaySteps(
  operation: AtomicOperation,
  steps: readonly RecordedStep[],
): AtomicOperation {
  for (const step of steps) {
    if (step.kind === "check") operation.check(step.check);
    else if (step.kind === "set") operation.set(step.key, step.value, step.options);
    else operation.delete(step.key);
  }
  return operation;
}
