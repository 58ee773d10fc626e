/**
 * @module rest/ctl-errors
 * Controller (Connect) errors → RestError, keeping the controller's wording.
 */
import { RpcError } from "../ctl-port.ts";
import { RestError } from "./errors.ts";

export async function ctlCall<T>(source: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw toRestError(e, source);
  }
}

export function toRestError(e: unknown, source: string): RestError {
  if (e instanceof RestError) return e;
  if (!(e instanceof RpcError)) return new RestError("Internal", String((e as Error)?.message ?? e), source);
  switch (e.code) {
    case "unavailable":
      return new RestError("Unavailable", e.message, source);
    case "permission_denied":
      return new RestError("AccessDenied", e.message, source, e.message, e.errno || undefined);
    case "unauthenticated":
      return new RestError("AuthRequired", e.message, source);
    case "not_found":
      return new RestError("InvalidJobId", e.message, source, e.message, e.errno || undefined);
    default:
      // the controller's typed rejection carries Slurm's number (x-slurm-errno): slurmrestd reports it as error_number
      return new RestError("Rejected", e.message, source, e.message, e.errno || undefined);
  }
}
