/**
 * sshare against the oracle (22.05) for a tree without usage (tests/fixtures/sshare/zero,
 * recorded by record.sh with the tree it names): zero-usage columns (NormUsage, LevelFS inf,
 * TRESRunMins zeros, every user without usage tied at FairShare 1.000000) and -A (only the
 * named accounts' rows, root's only when named, indentation counting the shown ancestors).
 * Spur's sshare runs over a real ClusterState with the same tree and must print the same bytes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sacctmgrMain } from "../../../src/cli/sacctmgr.ts";
import { shownDepths, sshareMain } from "../../../src/cli/sshare.ts";
import type { CliPort, ControllerPort } from "../../../src/net/ctl-port.ts";
import { previewAcct } from "../../../src/sched/acct/apply-acct-command.ts";
import { acctRows } from "../../../src/sched/acct/acct-rows.ts";
import { fairTree } from "../../../src/sched/acct/fair-tree.ts";
import { shareLimitColumns } from "../../../src/sched/acct/share-columns.ts";
import type { AcctRequest } from "../../../src/sched/acct/apply-acct.ts";
import { CONF, ROOT, cluster } from "../sched/builders.ts";

const DIR = join(__dirname, "../../fixtures/sshare/zero");
const TREE = [
  "add account h20a", "add account h20b parent=h20a", "add account h20c", "add user spurtest account=h20a,h20b",
  "add user spurlimit account=h20b", "add user spurtest account=h20c fairshare=5",
];

function port(): CliPort {
  const c = cluster(`${CONF}AccountingStorageTRES=gres/gpu\n`);
  const now = 100;
  const ctl = {
    acctModify: async (req: AcctRequest & { commit: boolean }) => {
      const request = { action: req.action, entity: req.entity, names: req.names, where: req.where, set: req.set };
      if (!req.commit) {
        const p = previewAcct(c.state, ROOT, request);
        return { text: p.text, changed: p.changed };
      }
      const r = c.run({ v: 1, type: "acct", at: now, request, by: ROOT });
      return { text: r.text ?? "", changed: r.ids[0] ?? 0 };
    },
    acctList: async (req: { entity: string; where: Record<string, string> }) => ({
      rows: (acctRows(c.state, req.entity, req.where) as Record<string, string>[]).map((fields) => ({ fields })), cluster: "oracle",
    }),
    getShares: async () => {
      const cols = shareLimitColumns(c.state, now);
      return { rows: fairTree(c.state, now, 0).rows.map((r) => ({ ...r, grpTresMins: "", tresRunMins: "", ...cols.get(r.assocId) })), cluster: "oracle" };
    },
  } as unknown as ControllerPort;
  return {
    ctl, invoker: ROOT, now: () => now, readStdin: async () => "", readFile: async () => undefined,
  } as unknown as CliPort;
}

function recorded(file: string) {
  const text = readFileSync(join(DIR, file), "utf8");
  const first = text.indexOf("\n");
  const command = text.slice(0, first).replace("### command: ", "");
  const [stdout = "", rest = ""] = text.slice(first + 1).split("### stderr\n");
  const [stderr = "", rc = "0"] = rest.split("### rc: ");
  return { file, command, argv: command.split(/\s+/).slice(1), stdout, stderr, exitCode: Number(rc) };
}

describe("sshare prints what the oracle printed for a tree without usage", async () => {
  const p = port();
  for (const line of TREE) expect((await sacctmgrMain(["-i", ...line.split(" ")], p)).exitCode).toBe(0);
  const cases = readdirSync(DIR).filter((f) => /^\d+\.txt$/.test(f)).sort().map(recorded);
  it("holds the recorded outputs", () => expect(cases.length).toBe(12));
  it.each(cases.map((c) => [`${c.file}: ${c.command}`, c] as const))("%s", async (_name, c) => {
    expect(await sshareMain(c.argv, p)).toEqual({ stdout: c.stdout, stderr: c.stderr, exitCode: c.exitCode });
  });

  it("root's row: NormUsage empty and EffectvUsage 1.000000 without usage (oracle, fresh database: root|||0.000000|0||1.000000|...)", async () => {
    const r = await sshareMain(["-P", "-l", "-A", "root"], p);
    expect(r.stdout.split("\n")[1]).toBe("root|||0.000000|0||1.000000||||cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0,gres/gpu=0");
  });

  it("-o ID shows the association ids, and an unknown field is named lower-cased (oracle: sshare -P -o ID, -o Shares)", async () => {
    const ids = (await sshareMain(["-P", "-a", "-o", "Account,ID"], p)).stdout.split("\n").slice(1).filter(Boolean);
    expect(ids.every((l) => /^[a-z0-9 ]+\|\d+$/.test(l))).toBe(true);
    expect(new Set(ids.map((l) => l.split("|")[1])).size).toBe(ids.length);
    expect(await sshareMain(["-o", "Shares"], p)).toEqual({ stdout: "", stderr: 'sshare: error: Invalid field requested: "shares"\n', exitCode: 1 });
  });
});

describe("shownDepths", () => {
  it("counts the shown ancestors of each row", () => {
    // root, a, a/u, b (under a), b/v; a hidden: b and a/u lose a level
    expect(shownDepths([0, 1, 2, 2, 3], [true, false, true, true, true])).toEqual([0, 1, 1, 1, 2]);
    expect(shownDepths([0, 1, 2, 1], [false, true, true, true])).toEqual([0, 0, 1, 0]);
  });
});
