/**
 * `spur CMD --help` is generated from the command's declarations (roles/admin/usage.ts):
 * the usage line with its operands, the description, each flag as getopt spells it with
 * its default, a group's commands. It used to be a hand-kept text that could drift from
 * the flags each command parsed.
 */
import { describe, expect, it } from "vitest";
import { spurCommand, ROLES_FOOTER } from "../../../src/roles/admin/commands.ts";
import { usageText } from "../../../src/roles/admin/usage.ts";
import type { AdminCommand } from "../../../src/roles/admin/command.ts";
import { line } from "./admin-line.ts";

const usageOf = async (...path: string[]): Promise<string> => {
  const l = await line(...path, "--help");
  if (l.kind !== "help") throw new Error(`spur ${path.join(" ")} --help: ${l.kind}`);
  return usageText(l.cmd as AdminCommand);
};

describe("spur subcommand usage", () => {
  it("gives up's flags, each with its value's name and default, -d beside --detach", async () => {
    const u = await usageOf("up");
    expect(u.startsWith("Usage: spur up [options]\nStart a local cluster (spurctld + N spurd + spurrestd).\n\nOptions:\n")).toBe(true);
    expect(u).toMatch(/\n  -d, --detach {2,}return once the cluster is up/);
    expect(u).toMatch(/\n {6}--state-dir DIR {2,}where the configuration, state and logs go \(default: \/tmp\/spur\)\n/);
    expect(u).toMatch(/--controllers N {2,}replicated spurctld \(Raft\): 3 or 5 \(default: 1\)/);
    expect(u).toContain("--slurm-conf DIR|FILE");
    expect(u).not.toContain("\x1b[");
  });
  it("gives down one flag, and operands in the usage line", async () => {
    expect(await usageOf("down")).toBe("Usage: spur down [options]\nStop a cluster of spur up.\n\nOptions:\n      --state-dir DIR  its state directory (default: /tmp/spur)\n");
    expect((await usageOf("exec")).split("\n")[0]).toBe("Usage: spur exec [options] HOST -- CMD...");
    expect((await usageOf("check")).split("\n")[0]).toBe("Usage: spur check [options] [DIR|FILE...]");
    expect((await usageOf("controller", "add")).split("\n")[0]).toBe("Usage: spur controller add ID ADDRESS");
  });
  it("lists a group's commands, and the root's with the roles after them", async () => {
    expect(await usageOf("net")).toBe([
      "Usage: spur net COMMAND", "WireGuard overlay for multi-site clusters (docs/overlay.md).", "", "Commands:",
      "  keygen  on a node: make its key unless it exists; print the public half",
      "  init    write each node's wg-quick config and plan.json",
      "  apply   bring the interface up with ip and wg (kernel module, else wireguard-go)",
      "", `Try "spur net COMMAND --help" for a command's options.`, "",
    ].join("\n"));
    const root = await usageText(spurCommand, ROLES_FOOTER);
    expect(root).toMatch(/^Usage: spur COMMAND\n/);
    for (const cmd of ["up", "down", "demo", "init", "authd", "exec", "controller", "install-links", "check", "import-slurm", "net", "systemd-units", "tls-cert", "sim", "cdi", "version", "help"]) {
      expect(root, cmd).toMatch(new RegExp(`\\n  ${cmd} +\\S`));
    }
    expect(root.endsWith(ROLES_FOOTER)).toBe(true);
  });
});
