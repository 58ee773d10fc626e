/**
 * ListNodes with `names`: only those nodes, in node-table order, the partitions as always (what
 * scontrol show node NAME and squeue -w ask); with `withoutNodes`, none (scontrol show partition,
 * show licenses, REST /partitions and /licenses). Without either, every node. Both the JSON fast
 * path and the Connect handler answer from the same function.
 */
import { describe, expect, it } from "vitest";
import { controllerFastJson, type ServiceContext } from "../../../src/ctld/service.ts";
import { cluster } from "../sched/builders.ts";
import { readOnlyController } from "./fake-controller.ts";

function listNodes() {
  const { state } = cluster();
  const controller = readOnlyController(state, 100);
  const sc = { controller, now: () => 100 } as unknown as ServiceContext;
  const handler = controllerFastJson(sc)["/spur.v1.Controller/ListNodes"] as (req: unknown) => { nodes: { name: string }[]; partitions: unknown[]; licenses: unknown[] };
  return { handler, all: [...state.nodes.keys()], parts: state.partitions.length };
}

describe("ListNodes by name", () => {
  it("answers the named nodes in node-table order, leaving out names that are no node", () => {
    const { handler, parts } = listNodes();
    const answer = handler({ names: ["g2", "n3", "nosuch", "n1", "n3"] });
    expect(answer.nodes.map((n) => n.name)).toEqual(["n1", "n3", "g2"]);
    expect(answer.partitions).toHaveLength(parts);
  });

  it("answers no node with withoutNodes, and the partitions and licenses as always", () => {
    const { handler, parts } = listNodes();
    const answer = handler({ withoutNodes: true });
    expect(answer.nodes).toEqual([]);
    expect(answer.partitions).toHaveLength(parts);
    expect(answer.licenses).toEqual(handler({}).licenses);
  });

  it("answers every node without names, or with names that are not strings only", () => {
    const { handler, all } = listNodes();
    expect(handler({}).nodes.map((n) => n.name)).toEqual(all);
    expect(handler({ names: [] }).nodes.map((n) => n.name)).toEqual(all);
    expect(handler(null).nodes.map((n) => n.name)).toEqual(all);
    expect(handler({ names: "n1" }).nodes.map((n) => n.name)).toEqual(all);
  });
});
