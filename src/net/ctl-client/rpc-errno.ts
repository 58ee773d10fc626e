/**
 * @module net/ctl-client/rpc-errno
 * Slurm's error number of a controller rejection, from the x-slurm-errno header the
 * controller sets (ctld/service-context.ts rejectionError); 0 when absent or malformed.
 */
import { SLURM_ERRNO_HEADER } from "../../compat/slurm-errors.ts";

export function errnoOf(res: Response): number {
  const n = Number(res.headers.get(SLURM_ERRNO_HEADER) ?? "");
  return Number.isInteger(n) && n > 0 ? n : 0;
}
