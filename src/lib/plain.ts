/**
 * @module plain
 * Plain-object views of generated protobuf messages: the same fields without the
 * `$typeName` brand, so domain code and the JSON wire form can share one shape
 * (proto3 JSON with implicit fields emitted equals this shape when a message has
 * no 64-bit, enum or bytes fields; see src/net/proto/spur/v1/types.proto).
 */
import type { Message } from "@bufbuild/protobuf";

export type Plain<T> = T extends Message
  ? { [K in keyof T as K extends "$typeName" | "$unknown" ? never : K]: Plain<T[K]> }
  : T extends readonly (infer U)[]
    ? Plain<U>[]
    : T extends { [key: string]: infer V }
      ? T extends Uint8Array
        ? T
        : { [key: string]: Plain<V> }
      : T;
