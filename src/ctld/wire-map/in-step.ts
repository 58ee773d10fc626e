/**
 * @module ctld/wire-map/in-step
 * A compile-time check that a state record (sched/model/state-types.ts) and the wire message
 * it maps to have the same fields, each of the same type, optional where the other is. The
 * mappings beside this file are checked with it, so a .proto change the state does not follow
 * (a field added, removed, retyped) stops the build at the mapping, naming the fields:
 *   Type 'true' is not assignable to type '{ fieldsOutOfStep: "newField" }'.
 * Then decide: the state gains the field (a new STATE_TYPES_VERSION, the snapshot's upgrade in
 * ctld/state-snapshot.ts, a command `v` if commands carry it), or the mapping converts it.
 */

/** Whether A and B are the same type (not merely assignable either way). */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** The fields of S and W that are not in step: on one side only, or of another type. */
export type FieldsOutOfStep<S, W> = {
  [K in keyof S | keyof W]-?: K extends keyof S
    ? K extends keyof W
      ? Same<S[K], W[K]> extends true
        ? Same<Pick<S, K>, Pick<W, K>> extends true ? never : K
        : K
      : K
    : K;
}[keyof S | keyof W];

/** `true` when S and W are in step, else an object type naming the fields that are not. */
export type InStep<S, W> = [FieldsOutOfStep<S, W>] extends [never] ? true : { fieldsOutOfStep: FieldsOutOfStep<S, W> };
