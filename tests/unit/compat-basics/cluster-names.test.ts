/** -M/--clusters against the site's clusters (oracle 22.05: sbatch/squeue -M bogus, differential seed 12464). */
import { describe, expect, it } from "vitest";
import { checkClusters } from "../../../src/compat/cluster-names.ts";

const REACH = (typed: string) => `'${typed}' can't be reached now, or it is an invalid entry for --cluster.  Use 'sacctmgr list clusters' to see available clusters.`;

describe("-M checked against the known clusters", () => {
  it("a known name, in any case, or all: nothing said", () => {
    for (const typed of ["oracle", "ORACLE", "all", "bogus,all"]) expect(checkClusters(typed, ["oracle"])).toEqual({ errors: [], reachable: true });
  });

  it("an unknown name among known ones: its error line, the command goes on", () => {
    expect(checkClusters("bogus,oracle,foo", ["oracle"])).toEqual({
      errors: ["No cluster 'bogus' known by database.", "No cluster 'foo' known by database."], reachable: true,
    });
  });

  it("no known name: each one's line, then the list as typed can't be reached", () => {
    expect(checkClusters("bogus,foo", ["oracle"])).toEqual({
      errors: ["No cluster 'bogus' known by database.", "No cluster 'foo' known by database.", REACH("bogus,foo")], reachable: false,
    });
  });
});
