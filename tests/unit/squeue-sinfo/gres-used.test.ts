/**
 * GresUsed of a node without GRES is "gpu:0", as on the oracle (GresTypes=gpu): sinfo -O GresUsed
 * printed "(null)" for n1 where 22.05 prints gpu:0, and prometheus-slurm-exporter's GPU collector
 * splits the text at ":" and reads the count (a "(null)" leaves it nothing to read).
 */
import { describe, expect, it } from "vitest";
import { sinfoMain } from "../../../src/cli/sinfo.ts";
import { formatNodeRecord } from "../../../src/compat/format/scontrol-show-node.ts";
import { node, oracleNodes, oraclePartitions } from "./fixtures.ts";
import { fakePort } from "./golden.ts";

process.env.TZ = "UTC";

describe("GresUsed", () => {
  it("sinfo -N -O shows gpu:0 for a node without GRES and the GPU node's own text (oracle: sinfo -h -N -O NodeList,GresUsed)", async () => {
    const r = await sinfoMain(["-h", "-N", "-p", "debug", "-O", "NodeList:|,GresUsed:|"], fakePort({ nodes: oracleNodes(), partitions: oraclePartitions(), now: 1796214967 }));
    const lines = r.stdout.split("\n").filter(Boolean);
    expect(lines).toContain("n1|gpu:0|");
    expect(lines.some((l) => l.startsWith("n3|gpu:mi300x:"))).toBe(true);
  });

  it("scontrol -d show node says GresUsed=gpu:0 for a node without GRES (oracle: scontrol show node n1 -d)", () => {
    const text = formatNodeRecord(node({ name: "n1", gres: "", gresUsed: "" }), { oneLiner: false, detail: true });
    expect(text).toContain("   GresUsed=gpu:0\n");
  });
});
