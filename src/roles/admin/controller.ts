/**
 * @module roles/admin/controller
 * `spur controller add ID HOST:PORT[:RAFTPORT]` and `spur controller remove ID [--force]`:
 * replicated controllers added or removed at run time (roles/controller-cli.ts, docs/ha.md).
 */
import type { ControllerChange } from "../controller-cli.ts";
import { defineAdminCommand } from "./command.ts";

const id = { type: "positional", required: false, valueHint: "ID", description: "the replica's Raft id" } as const;

export const addArgs = {
  id,
  address: { type: "positional", required: false, description: "HOST:PORT[:RAFTPORT] of the new replica (started first with spurctld --id ID --join)" },
} as const;

export const removeArgs = {
  id,
  force: { type: "boolean", description: "even when fewer than 3 voters would be left (down to 1)" },
} as const;

const change = async (c: ControllerChange): Promise<number> => (await import("../controller-cli.ts")).controllerMain(c);

export default defineAdminCommand({
  meta: { name: "spur controller", description: "add or remove a replicated controller at run time" },
  subCommands: {
    add: defineAdminCommand({
      meta: { name: "spur controller add", description: "add a controller (it catches up, then votes)" },
      args: addArgs,
      run: ({ args }) => change({ action: "add", id: args.id, address: args.address }),
    }),
    remove: defineAdminCommand({
      meta: { name: "spur controller remove", description: "remove a controller" },
      args: removeArgs,
      run: ({ args }) => change({ action: "remove", id: args.id, force: args.force }),
    }),
  },
});
