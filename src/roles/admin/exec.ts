/**
 * @module roles/admin/exec
 * `spur exec HOST [--user NAME] [--state-dir DIR] -- CMD...`: run CMD on a host of
 * `spur up --netns` (roles/netns-exec.ts).
 */
import type { ParsedArgs } from "citty";
import type { ExecFlags } from "../netns-exec.ts";
import { defineAdminCommand } from "./command.ts";

export const execArgs = {
  host: { type: "positional", required: false, description: "a host of the cluster (its name in spur up's report)" },
  user: { type: "string", alias: "u", valueHint: "NAME", description: "run as this user, as a login would (else as root)" },
  "state-dir": { type: "string", valueHint: "DIR", description: "the cluster's state directory (default: the directory of $SPUR_CONF)" },
} as const;

/** `rawArgs`: the command line after `exec`, for what follows `--`. */
export const execFlagsOf = (a: ParsedArgs<typeof execArgs>, rawArgs: readonly string[]): ExecFlags => ({
  host: a.host, user: a.user, stateDir: a["state-dir"], cmd: rawArgs.includes("--") ? rawArgs.slice(rawArgs.indexOf("--") + 1) : [],
});

export default defineAdminCommand({
  meta: { name: "spur exec", description: "run a command on a host of spur up --netns" },
  args: execArgs,
  rest: { name: "CMD", afterDash: true },
  run: async ({ args, rawArgs }) => (await import("../netns-exec.ts")).execMain(execFlagsOf(args, rawArgs)),
});
