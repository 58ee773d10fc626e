/**
 * Gres= / sinfo %G with socket affinity: "(S:0-1)" after each GPU item whose cores
 * are known, the registered text unchanged without Cores= (the oracle's case).
 */
import { describe, expect, it } from "vitest";
import { gresWithSockets } from "../../../src/compat/format/gres-sockets.ts";

const node = { gres: "gpu:mi300x:8", gpuCount: 8, cpus: 64, sockets: 2 };

describe("GRES socket affinity", () => {
  it("adds the sockets of the GPUs when their cores are known", () => {
    const cpus = [..."0000"].map(() => "0-31").concat([..."1111"].map(() => "32-63")).join(";");
    expect(gresWithSockets({ ...node, gpuCpus: cpus })).toBe("gpu:mi300x:8(S:0-1)");
    expect(gresWithSockets({ ...node, gpuCpus: Array(8).fill("32-63").join(";") })).toBe("gpu:mi300x:8(S:1)");
  });

  it("keeps the registered text without core locality", () => {
    expect(gresWithSockets(node)).toBe("gpu:mi300x:8");
    expect(gresWithSockets({ ...node, gpuCpus: Array(8).fill("").join(";") })).toBe("gpu:mi300x:8");
    expect(gresWithSockets({ gres: "", gpuCount: 0, cpus: 4, sockets: 1 })).toBe("");
  });

  it("gives each type of a mixed node its own sockets, other GRES untouched", () => {
    const mixed = { gres: "gpu:1g.10gb:2,gpu:h100:2,nic:1", gpuCount: 4, cpus: 64, sockets: 2, gpuCpus: "0-31;0-31;0-31;32-63" };
    expect(gresWithSockets(mixed)).toBe("gpu:1g.10gb:2(S:0),gpu:h100:2(S:0-1),nic:1");
  });
});
