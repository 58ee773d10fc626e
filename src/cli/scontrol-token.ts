/**
 * @module cli/scontrol-token
 * `scontrol token [lifespan=SECONDS] [username=NAME]`: asks spurctld for an
 * HS256 JWT (auth/jwt) and prints it as Slurm does, `SLURM_JWT=<token>`, ready
 * for `export $(scontrol token)`. Only root and operators may name another user.
 */
import { RpcError, type CliPort } from "../net/ctl-port.ts";
import { outcome, type Outcome } from "./scontrol-jobs.ts";

export async function tokenCommand(port: CliPort, args: readonly string[]): Promise<Outcome> {
  let username = "";
  let lifespanSec = 0;
  for (const arg of args) {
    const eq = arg.indexOf("=");
    const key = (eq < 0 ? arg : arg.slice(0, eq)).toLowerCase();
    const val = eq < 0 ? "" : arg.slice(eq + 1);
    if (key === "lifespan" && /^[1-9][0-9]{0,9}$/.test(val)) lifespanSec = Number(val);
    else if (key === "lifespan" && val.toLowerCase() === "infinite") lifespanSec = 0xffffffff;
    else if (key === "username" && val !== "") username = val;
    else return outcome("", `Invalid parameter: ${arg}\n`, true);
  }
  if (port.ctl.issueToken === undefined) return outcome("", "scontrol: error: token issuance is not available\n", true);
  try {
    const r = await port.ctl.issueToken({ username, lifespanSec });
    return outcome(`SLURM_JWT=${r.token}\n`);
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    return outcome("", `Unable to fetch token: ${e.message}\n`, true);
  }
}
