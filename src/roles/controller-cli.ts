/**
 * @module roles/controller-cli
 * `spur controller add ID HOST:PORT[:RAFTPORT]` and `spur controller remove ID [--force]`:
 * change the set of replicated controllers at run time (a Raft membership change on the
 * leader; see docs/ha.md). Root or SpurOperators only. `add` returns once the new replica
 * has caught up and votes; start it first with `spurctld --id ID --join`.
 * Failure policy: the controller's refusal is printed as is, exit 1; nothing is retried
 * except by the usual leader-following of the client (a request that did not reach a leader).
 */
import { parseControllerAddress } from "./conf-file.ts";
import { call, resolveControllerUrls } from "./cli/port.ts";

const USAGE = "usage: spur controller add ID HOST:PORT[:RAFTPORT] | spur controller remove ID [--force]\n";

export interface ControllerChange {
  action: "add" | "remove";
  /** The replica's Raft id, as given. */
  id?: string | undefined;
  /** add: the new replica's HOST:PORT[:RAFTPORT]. */
  address?: string | undefined;
  /** remove: even when fewer than 3 voters would be left (down to 1). */
  force?: boolean | undefined;
}

/** `spur controller add|remove` (flags: admin/controller.ts). */
export async function controllerMain(change: ControllerChange): Promise<number> {
  const { action, address } = change;
  const id = Number(change.id);
  if (change.id === undefined || !Number.isInteger(id) || id <= 0) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (action === "add" && (address === undefined || parseControllerAddress(id, address) === undefined)) {
    process.stderr.write(`spur: error: controller add needs the new replica's HOST:PORT[:RAFTPORT]\n${USAGE}`);
    return 2;
  }
  // Adding waits for the new replica to catch up: allow it more than one request's usual wait.
  process.env.SPUR_CONTROLLER_TIMEOUT_MS ??= "120000";
  const urls = resolveControllerUrls();
  try {
    const res = await call<{ voters?: number[]; learners?: number[] }>(urls[0] as string, "ChangeControllers", {
      action, id, address: address ?? "", force: change.force === true,
    });
    const voters = (res.voters ?? []).slice().sort((a, b) => a - b);
    const learners = (res.learners ?? []).slice().sort((a, b) => a - b);
    process.stdout.write(`controller ${id} ${action === "add" ? "added" : "removed"}; voters ${voters.join(",")}${learners.length > 0 ? `; learners ${learners.join(",")}` : ""}\n`);
    if (action === "add") process.stdout.write(`add ${id}@${address} to SpurControllers= in spur.conf on every host so clients and agents find it\n`);
    else process.stdout.write(`remove ${id}@... from SpurControllers= in spur.conf on every host, then stop that spurctld\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`spur: error: ${(e as Error).message}\n`);
    return 1;
  }
}
