/**
 * @module assert
 * Invariant checks for pure cores. A failed assert is a bug, never user input.
 */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}
