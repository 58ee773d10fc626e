/**
 * @module rest/schemas-common
 * Shapes every v0.0.4x response shares: the `meta` block, `errors[]`,
 * `warnings[]`, and the "number with flags" objects ({set, infinite, number})
 * that data_parser uses for values that may be unset or unlimited.
 */
import { arr, bool, int32, int64, named, num, obj, str, strEnum, type Infer } from "./schema.ts";

const noVal = (name: string, n: ReturnType<typeof int32>) =>
  named(name, obj({ set: bool(), infinite: bool(), number: n }));

export const Uint16NoVal = noVal("uint16_no_val_struct", int32());
export const Uint32NoVal = noVal("uint32_no_val_struct", int32());
export const Uint64NoVal = noVal("uint64_no_val_struct", int64());
export const Float64NoVal = named("float64_no_val_struct", obj({ set: bool(), infinite: bool(), number: num() }));
export type NoVal = Infer<typeof Uint32NoVal>;

export const OpenapiMeta = named(
  "openapi_meta",
  obj({
    plugin: obj({ type: str(), name: str(), data_parser: str(), accounting_storage: str() }),
    client: obj({ source: str(), user: str(), group: str() }),
    command: arr(str()),
    slurm: obj({ version: obj({ major: str(), micro: str(), minor: str() }), release: str(), cluster: str() }),
  }),
);

export const OpenapiError = named("openapi_error", obj({ description: str(), error_number: int32(), error: str(), source: str() }));
export const OpenapiWarning = named("openapi_warning", obj({ description: str(), source: str() }));
export const OpenapiErrors = named("openapi_errors", arr(OpenapiError));
export const OpenapiWarnings = named("openapi_warnings", arr(OpenapiWarning));

/** The three members every response object carries. */
export const envelopeProps = { meta: OpenapiMeta, errors: OpenapiErrors, warnings: OpenapiWarnings } as const;
export const OpenapiResp = named("openapi_resp", obj({ ...envelopeProps }));

export type Meta = Infer<typeof OpenapiMeta>;
export type ErrorItem = Infer<typeof OpenapiError>;
export type WarningItem = Infer<typeof OpenapiWarning>;

/** Value builders: unset, unlimited, or a number. */
export const noValue = (): NoVal => ({ set: false, infinite: false, number: 0 });
export const infinite = (): NoVal => ({ set: false, infinite: true, number: 0 });
export const value = (n: number): NoVal => ({ set: true, infinite: false, number: n });
/** 0 means "not set" for most of Spur's counters. */
export const valueOrUnset = (n: number | undefined): NoVal => (n === undefined || n === 0 ? noValue() : value(n));

export const ExitCode = named(
  "process_exit_code_verbose",
  obj({
    status: arr(strEnum(["INVALID", "PENDING", "SUCCESS", "ERROR", "SIGNALED", "CORE_DUMPED"])),
    return_code: Uint32NoVal,
    signal: obj({ id: Uint16NoVal, name: str() }),
  }),
);
export type ExitCodeValue = Infer<typeof ExitCode>;
