/**
 * The PMI server of one node (compat/pmi/pmi-node.ts), message by message. Expected replies are
 * the Slurm 22.05 oracle's (mpi/pmi2 plugin, `srun --mpi=pmi2 -N2 -n4`, probed with a shell client
 * on PMI_FD), with the step's own job id; a fence completes only once every local rank is in it
 * and srun answered the round.
 */
import { describe, expect, it } from "vitest";
import { PmiNode, type PmiEffect } from "../../../src/compat/pmi/pmi-node.ts";
import { parseV1, parseV2 } from "../../../src/compat/pmi/wire.ts";

const node = () => new PmiNode({ kvsName: "253.0", size: 4, localRanks: [0, 1], mapping: "(vector,(0,2,2))" });
const v1 = (n: PmiNode, rank: number, line: string) => n.receive(rank, parseV1(line) ?? { cmd: "?", attrs: new Map() });
const v2 = (n: PmiNode, rank: number, body: string) => n.receive(rank, parseV2(body) ?? { cmd: "?", attrs: new Map() });
const texts = (effects: PmiEffect[]) => effects.map((e) => (e.kind === "reply" ? e.text : e.kind));

describe("PMI-1 (MPICH's default client)", () => {
  it("answers as Slurm's plugin does", () => {
    const n = node();
    expect(texts(v1(n, 0, "cmd=init pmi_version=1 pmi_subversion=1"))).toEqual(["cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"]);
    expect(texts(v1(n, 0, "cmd=get_maxes"))).toEqual(["cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n"]);
    expect(texts(v1(n, 0, "cmd=get_appnum"))).toEqual(["cmd=appnum rc=0 appnum=-1\n"]);
    expect(texts(v1(n, 0, "cmd=get_my_kvsname"))).toEqual(["cmd=my_kvsname rc=0 kvsname=253.0\n"]);
    expect(texts(v1(n, 0, "cmd=get_universe_size"))).toEqual(["cmd=universe_size rc=0 size=4\n"]);
    expect(texts(v1(n, 0, "cmd=get kvsname=253.0 key=PMI_process_mapping"))).toEqual(["cmd=get_result rc=0 value=(vector,(0,2,2))\n"]);
    expect(texts(v1(n, 0, "cmd=put kvsname=253.0 key=k0 value=v0"))).toEqual(["cmd=put_result rc=0\n"]);
    expect(texts(v1(n, 0, "cmd=get kvsname=253.0 key=nokey"))).toEqual(["cmd=get_result rc=1\n"]);
    expect(texts(v1(n, 0, "cmd=finalize"))).toEqual(["cmd=finalize_ack rc=0\n"]);
  });

  it("a barrier waits for every local rank, then for srun's round, and brings the other nodes' puts", () => {
    const n = node();
    v1(n, 0, "cmd=put kvsname=253.0 key=k0 value=v0");
    expect(v1(n, 0, "cmd=barrier_in")).toEqual([]);
    expect(v1(n, 1, "cmd=barrier_in")).toEqual([{ kind: "fence", round: 0, puts: { k0: "v0" } }]);
    expect(n.fenceDone(1, {})).toEqual([]); // not the open round
    expect(texts(n.fenceDone(0, { k0: "v0", k2: "v2" }))).toEqual(["cmd=barrier_out rc=0\n", "cmd=barrier_out rc=0\n"]);
    expect(texts(v1(n, 1, "cmd=get kvsname=253.0 key=k2"))).toEqual(["cmd=get_result rc=0 value=v2\n"]);
    // the next round carries only what was put since
    v1(n, 1, "cmd=put kvsname=253.0 key=k1 value=again");
    v1(n, 0, "cmd=barrier_in");
    expect(v1(n, 1, "cmd=barrier_in")).toEqual([{ kind: "fence", round: 1, puts: { k1: "again" } }]);
    expect(texts(n.fenceFailed(1))).toEqual(["cmd=barrier_out rc=-1\n", "cmd=barrier_out rc=-1\n"]);
  });

  it("refuses puts beyond the step's KVS limit on the node", () => {
    const n = node();
    const big = "x".repeat(1024 * 1024);
    for (let i = 0; i < 15; i++) expect(texts(v1(n, 0, `cmd=put kvsname=253.0 key=k${i} value=${big}`))).toEqual(["cmd=put_result rc=0\n"]);
    expect(texts(v1(n, 0, `cmd=put kvsname=253.0 key=k99 value=${big}`))).toEqual(["cmd=put_result rc=-1\n"]);
  });

  it("abort asks the shell to end the step", () => {
    expect(v1(node(), 1, "cmd=abort exitcode=7")).toEqual([{ kind: "abort", rank: 1, exitCode: 7, message: "" }]);
  });
});

describe("PMI-2", () => {
  const started = () => {
    const n = node();
    expect(texts(v1(n, 0, "cmd=init pmi_version=2 pmi_subversion=0"))).toEqual(["cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n"]);
    expect(n.wireOf(0)).toBe(2);
    expect(n.wireOf(1)).toBe(1);
    return n;
  };

  it("answers in length-prefixed frames as Slurm's plugin does", () => {
    const n = started();
    expect(texts(v2(n, 0, "cmd=fullinit;pmijobid=253.0;pmirank=0;threaded=FALSE;"))).toEqual([
      "114   cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;size=4;appnum=-1;debugged=FALSE;pmiverbose=FALSE;",
    ]);
    expect(texts(v2(n, 0, "cmd=job-getid;"))).toEqual(["40    cmd=job-getid-response;rc=0;jobid=253.0;"]);
    expect(texts(v2(n, 0, "cmd=info-getjobattr;key=PMI_process_mapping;"))).toEqual(["68    cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,2,2));"]);
    expect(texts(v2(n, 0, "cmd=info-getjobattr;key=universeSize;"))).toEqual(["53    cmd=info-getjobattr-response;rc=0;found=TRUE;value=4;"]);
    expect(texts(v2(n, 0, "cmd=kvs-put;key=k0;value=v0;"))).toEqual(["26    cmd=kvs-put-response;rc=0;"]);
    expect(texts(v2(n, 0, "cmd=kvs-get;jobid=253.0;srcid=-1;key=k0;"))).toEqual(["46    cmd=kvs-get-response;rc=0;found=TRUE;value=v0;"]);
    expect(texts(v2(n, 0, "cmd=kvs-get;jobid=253.0;srcid=-1;key=nokey;"))).toEqual(["38    cmd=kvs-get-response;rc=0;found=FALSE;"]);
    expect(texts(v2(n, 0, "cmd=finalize;"))).toEqual(["27    cmd=finalize-response;rc=0;"]);
  });

  it("node attributes: a get that waits is answered by the put", () => {
    const n = started();
    v1(n, 1, "cmd=init pmi_version=2 pmi_subversion=0");
    expect(v2(n, 1, "cmd=info-getnodeattr;key=na;wait=TRUE;")).toEqual([]);
    expect(texts(v2(n, 0, "cmd=info-putnodeattr;key=na;value=nv;"))).toEqual([
      "35    cmd=info-putnodeattr-response;rc=0;",
      "55    cmd=info-getnodeattr-response;rc=0;found=TRUE;value=nv;",
    ]);
  });

  it("PMI-1 and PMI-2 tasks of one node share a fence", () => {
    const n = started();
    expect(v2(n, 0, "cmd=kvs-fence;")).toEqual([]);
    expect(v1(n, 1, "cmd=barrier_in")).toEqual([{ kind: "fence", round: 0, puts: {} }]);
    expect(texts(n.fenceDone(0, {}))).toEqual(["28    cmd=kvs-fence-response;rc=0;", "cmd=barrier_out rc=0\n"]);
  });
});
