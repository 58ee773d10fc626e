import { describe, expect, it } from "vitest";
import { discoverDevices } from "../../../src/devices/discover.ts";
import { alignColumns, formatDiscover, formatDiscoverJson, suggestedGres } from "../../../src/devices/format-discover.ts";
import { emptyInventory, type DeviceInventory } from "../../../src/devices/inventory.ts";
import { H100_MIG, L40S, MI250X, fixtureRoot, nvidiaTexts } from "./fixtures.ts";

function inventory(layout: string, nvidia: boolean): DeviceInventory {
  const inv = discoverDevices(fixtureRoot(layout), nvidia ? nvidiaTexts(layout) : undefined);
  if (!inv.ok) throw new Error(inv.error.message);
  return inv.value;
}

describe("spurd --discover text", () => {
  it("prints the GPU table, the link matrix, shared files and the suggested Gres", () => {
    const lines = formatDiscover(inventory(MI250X, false)).split("\n");
    expect(lines[0]).toBe("GPU  VENDOR  MODEL   ARCH    PCI BUS ID    NUMA  CPUS            MEMORY     DEVICES                             UNIQUE ID             PARTITION");
    expect(lines[1]).toMatch(/^0    amd     MI250X  gfx90a  0000:c1:00\.0  0     0-63,128-191    65520 MiB  \/dev\/dri\/card1,\/dev\/dri\/renderD128  GPU-[0-9a-f]{16}  -$/);
    expect(lines.slice(10, 13)).toEqual([
      "Links:",
      "      GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7",
      "GPU0  X       XGMIx4  XGMI    XGMI-2  XGMI    XGMI-2  XGMI    XGMI-2",
    ]);
    expect(lines).toContain("Shared device files (amd): /dev/kfd");
    expect(lines).toContain("Suggested: Gres=gpu:mi250x:8");
    expect(lines[lines.length - 1]).toBe("");
  });

  it("lists MIG instances under their GPU", () => {
    const text = formatDiscover(inventory(H100_MIG, true));
    const mig = text.split("\n").filter((l) => l.startsWith("0:"));
    expect(mig).toHaveLength(3);
    expect(mig[0]).toMatch(/^0:0 +MIG 3g\.40gb +60 SM +40448 MiB +\/dev\/nvidia-caps\/nvidia-cap21,\/dev\/nvidia-caps\/nvidia-cap22 +MIG-[0-9a-f-]+ +gi 2 ci 0$/);
    expect(text).toContain("MIG (3 instances)");
    expect(suggestedGres(inventory(H100_MIG, true))).toBe("gpu:3g.40gb:1,gpu:2g.20gb:1,gpu:1g.10gb:1,gpu:h100:7");
  });

  it("says so when nothing was found, with warnings", () => {
    expect(formatDiscover(emptyInventory())).toBe("No GPUs found.\n");
    expect(formatDiscover(inventory(L40S, false))).toBe("No GPUs found.\nwarning: 4 NVIDIA GPU(s) on the PCI bus but no nvidia-smi output; they are not listed\n");
  });

  it("--json is the inventory plus gres", () => {
    const inv = inventory(L40S, true);
    const parsed = JSON.parse(formatDiscoverJson(inv));
    expect(parsed.gres).toBe("gpu:l40s:4");
    expect(parsed.gpus).toEqual(inv.gpus);
    expect(parsed.links.links[0][0]).toBeNull();
    expect(parsed.links.links[0][1].code).toBe("PIX");
  });

  it("aligns columns without trailing blanks", () => {
    expect(alignColumns([["a", "bbb", ""], ["cc", "d", "e"]])).toEqual(["a   bbb", "cc  d    e"]);
  });
});
