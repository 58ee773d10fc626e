import { describe, expect, it } from "vitest";
import {
  compressHostlist,
  expandHostlist,
  hostlistCount,
  hostlistSorted,
  hostlistUniq,
  naturalCompare,
  scontrolShowHostlist,
  scontrolShowHostlistSorted,
  scontrolShowHostnames,
  sortHostnames,
  uniqHostnames,
} from "../../../src/compat/hostlist.ts";
import { goldenLines, haveGoldens } from "./golden.ts";
import { createRng } from "../../../src/lib/rng.ts";

const expand = (e: string): string[] => {
  const r = expandHostlist(e);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe("expandHostlist", () => {
  it.each([
    ["n[1-3,5],gpu[01-02]", ["n1", "n2", "n3", "n5", "gpu01", "gpu02"]],
    ["n1", ["n1"]],
    ["node", ["node"]],
    ["", []],
    ["n[001-003]", ["n001", "n002", "n003"]],
    ["n[08-11]", ["n08", "n09", "n10", "n11"]],
    ["n[9-11]", ["n9", "n10", "n11"]],
    ["n[1,1,2]", ["n1", "n1", "n2"]],
    ["n3,n1,n2,n2", ["n3", "n1", "n2", "n2"]],
    ["n[1-3]-ib", ["n1-ib", "n2-ib", "n3-ib"]],
    ["rack[1-2]n[1-3]", ["rack1n1", "rack1n2", "rack1n3", "rack2n1", "rack2n2", "rack2n3"]],
    ["n1 n2\tn3\nn4", ["n1", "n2", "n3", "n4"]],
    ["n1,,n2,", ["n1", "n2"]],
    ["n[5]", ["n5"]],
    ["[1-2]", ["1", "2"]],
    ["a[1-2]b[3]c", ["a1b3c", "a2b3c"]],
  ])("%s", (expr, names) => {
    expect(expand(expr)).toEqual(names);
  });

  it.each(["n[1-", "n[3-1]", "n[a]", "n[-1]", "n[1-x]", "n[]", "n[1,]", "n[[1]]", "n1]", "n[1-2]]", "n[1-70000]"])(
    "rejects %s",
    (expr) => {
      const r = expandHostlist(expr);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("InvalidHostlist");
        expect(r.error.message).toBe(`Invalid hostlist: ${expr}`);
      }
    },
  );

  it("allows exactly 65536 hosts in one range", () => {
    expect(expand("n[1-65536]")).toHaveLength(65536);
  });

  it("counts hosts", () => {
    expect(hostlistCount("n[1-4,7],gpu[1-2]")).toEqual({ ok: true, value: 7 });
    expect(hostlistCount("n[").ok).toBe(false);
  });
});

// The verified table of hostlist.md: input | hostlist | hostlistsorted | uniq.
const TABLE: readonly (readonly [string, string, string, string])[] = [
  ["n[1-4,7]", "n[1-4,7]", "n[1-4,7]", "n[1-4,7]"],
  ["n3,n1,n2,n2", "n[3,1-2,2]", "n[1-2,2-3]", "n[1-3]"],
  ["n10,n9,n11", "n[10,9,11]", "n[9-11]", "n[9-11]"],
  ["n[1-3],n[2-5]", "n[1-3,2-5]", "n[1-2,2-3,3-5]", "n[1-5]"],
  ["x01,x2,x3", "x[01,2-3]", "x[2-3,01]", "x[2-3,01]"],
  ["n01,n1", "n[01,1]", "n[1,01]", "n[1,01]"],
  ["a[1-2],b,a3", "a[1-2],b,a3", "a[1-3],b", "a[1-3],b"],
  ["node", "node", "node", "node"],
  ["n[1,1,2]", "n[1,1-2]", "n[1,1-2]", "n[1-2]"],
];

describe("compression (hostlist.md verified table)", () => {
  it.each(TABLE)("%s", (input, unsorted, sorted, uniq) => {
    const names = expand(input);
    expect(compressHostlist(names)).toBe(unsorted);
    expect(hostlistSorted(names)).toBe(sorted);
    expect(hostlistUniq(names)).toBe(uniq);
  });

  it("round-trips suffixes and products as hostlist.md shows", () => {
    expect(compressHostlist(expand("n[1-3]-ib"))).toBe("n1-ib,n2-ib,n3-ib");
    expect(compressHostlist(expand("rack[1-2]n[1-3]"))).toBe("rack1n[1-3],rack2n[1-3]");
  });
});

describe("compressHostlist", () => {
  it.each([
    [["n1", "n2", "n3", "n5"], "n[1-3,5]"],
    [[], ""],
    [["n1"], "n1"],
    [["n5", "n7"], "n[5,7]"],
    [["n09", "n10"], "n[09-10]"],
    [["n8", "n09"], "n[8,09]"],
    [["n99", "n100", "n101"], "n[99-101]"],
    [["n001", "n002", "n010"], "n[001-002,010]"],
    [["gpu01", "gpu02", "n1", "n2"], "gpu[01-02],n[1-2]"],
    [["node", "node"], "node,node"],
    [["a", "a1", "a2"], "a,a[1-2]"],
    [["n1", "m2", "n3"], "n1,m2,n3"],
    [["123", "124"], "[123-124]"],
    [["n1234567890123456789"], "n1234567890123456789"],
  ])("%j → %s", (names, text) => {
    expect(compressHostlist(names)).toBe(text);
  });

  it("round-trips expand(compress(x)) for sorted unique lists", () => {
    const names = ["gpu01", "gpu02", "gpu03", "n1", "n2", "n4", "n10", "n11", "x"];
    expect(expand(compressHostlist(names))).toEqual(names);
  });
});

describe("sorting", () => {
  it("orders by natural prefix, plain names first, then width and number", () => {
    expect(sortHostnames(["n10", "n9", "a", "n01", "b2", "n"])).toEqual(["a", "b2", "n", "n9", "n01", "n10"]);
    expect(sortHostnames(["rack10n1", "rack2n1", "rack1n1"])).toEqual(["rack1n1", "rack2n1", "rack10n1"]);
    expect(uniqHostnames(["n2", "n1", "n2"])).toEqual(["n1", "n2"]);
  });

  it("natural compare", () => {
    expect(naturalCompare("rack2n", "rack10n")).toBeLessThan(0);
    expect(naturalCompare("gpu", "n")).toBeLessThan(0);
    expect(naturalCompare("a", "a")).toBe(0);
    expect(naturalCompare("a", "ab")).toBeLessThan(0);
  });
});

describe("scontrol show hostnames|hostlist|hostlistsorted", () => {
  it("prints one name per line / the compressed list", () => {
    expect(scontrolShowHostnames("n[1-3]")).toEqual({ ok: true, value: "n1\nn2\nn3\n" });
    expect(scontrolShowHostnames("")).toEqual({ ok: true, value: "" });
    expect(scontrolShowHostlist("n3,n1,n2,n2")).toEqual({ ok: true, value: "n[3,1-2,2]\n" });
    expect(scontrolShowHostlistSorted("n3,n1,n2,n2")).toEqual({ ok: true, value: "n[1-2,2-3]\n" });
  });

  it("reports bad expressions", () => {
    for (const f of [scontrolShowHostnames, scontrolShowHostlist, scontrolShowHostlistSorted]) {
      const r = f("n[1-");
      expect(r.ok).toBe(false);
    }
  });
});

describe.skipIf(!haveGoldens)("goldens", () => {
  it("sinfo node lists (003, 056)", () => {
    const lists = [...goldenLines("003"), ...goldenLines("056")].slice(1).map((l) => l.split(/\s+/).at(-1));
    expect(lists).toContain(compressHostlist(["n1", "n2", "n3", "n4"]));
    expect(lists).toContain(compressHostlist(["n3", "n4"]));
    expect(lists).toContain(compressHostlist(["n1", "n2"]));
    for (const l of lists) expect(compressHostlist(expand(l as string))).toBe(l);
  });
});

describe("hostlistUniq on generated names", () => {
  // names a cluster has and ones a hand-written split could get wrong: digit-only names, leading
  // zeros, tails longer than a range may hold, non-ASCII digits (not digits to Slurm), empty prefixes
  const name = (rng: ReturnType<typeof createRng>): string => {
    const prefix = rng.pick(["n", "gpu-", "c1-", "", "x", "rack1n", "٣n", "a0b"]);
    const tail = rng.pick(["", String(rng.int(0, 40)), String(rng.int(0, 40)).padStart(rng.int(1, 4), "0"), "1234567890123456", "١٢"]);
    return prefix + tail || "z";
  };
  it("is the sorted, de-duplicated compression, and expands back to the sorted unique names", () => {
    const seed = Number(process.env.SEED ?? 11);
    for (let round = 0; round < 400; round++) {
      const rng = createRng(seed + round);
      const names = Array.from({ length: rng.int(0, 30) }, () => name(rng));
      const text = hostlistUniq(names);
      expect(text, `SEED=${seed + round}`).toBe(compressHostlist(uniqHostnames(names)));
      const back = expandHostlist(text);
      expect(back.ok && back.value, `SEED=${seed + round} ${text}`).toEqual(uniqHostnames(names));
    }
  });
});
