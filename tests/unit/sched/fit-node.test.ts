/**
 * fitJob's node choice for CPU jobs: a partly free node early in the order must
 * not push a job past its node count when a later node could hold it.
 */
import { describe, expect, it } from "vitest";
import { fitJob, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import type { ResourceRequest } from "../../../src/sched/plan/request.ts";
import { req, view } from "./fit-fixtures.ts";



describe("fitJob over partly free nodes", () => {
  const partly = view("n1", { freeCpus: 2, idle: false });

  it("puts a one-node job on the later node that holds it whole", () => {
    expect(fitJob(req({ ntasks: 4 }), [partly, view("n2")], "now")?.map((a) => [a.node, a.tasks])).toEqual([["n2", 4]]);
  });

  it("keeps a two-node job within two nodes", () => {
    const alloc = fitJob(req({ ntasks: 8, nodesMin: 2, nodesMax: 2 }), [partly, view("n2"), view("n3")], "now");
    expect(alloc?.map((a) => [a.node, a.tasks])).toEqual([["n2", 4], ["n3", 4]]);
  });

  it("still spreads a job over more nodes where its node range allows", () => {
    const alloc = fitJob(req({ ntasks: 6, nodesMin: 1, nodesMax: 2 }), [partly, view("n2")], "now");
    expect(alloc?.map((a) => [a.node, a.tasks])).toEqual([["n1", 2], ["n2", 4]]);
  });

  it("finds that a job could ever fit on a big node behind smaller ones (submission check)", () => {
    const small = view("n1", { cpus: 2, freeCpus: 2 });
    expect(fitJob(req({ ntasks: 4 }), [small, view("n2")], "ever")?.map((a) => a.node)).toEqual(["n2"]);
  });
});
