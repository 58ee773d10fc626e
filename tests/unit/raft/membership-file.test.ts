/**
 * @module tests/unit/raft/membership-file
 * The membership file replicas keep beside spur.conf: clients prefer it to spur.conf's
 * SpurControllers=; an older view never replaces a newer one, except a file left over from
 * an earlier cluster (index beyond this replica's log).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { controllerUrls, membershipFile, parsePeerList, readMembershipFile } from "../../../src/roles/conf-file.ts";
import { membershipWriter } from "../../../src/roles/replica-membership.ts";

const quiet = { warn: () => undefined, info: () => undefined };

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "spur-members-"));
  const confFile = join(dir, "spur.conf");
  const text = "ClusterName=t\nSpurControllers=1@h1:6817,2@h2:6817,3@h3:6817\n";
  writeFileSync(confFile, text);
  const conf = parseConf(text);
  if (!conf.ok) throw new Error(conf.error.message);
  return { confFile, conf: conf.value };
}

describe("membership file beside spur.conf", () => {
  it("is what clients use once a replica wrote it", () => {
    const { confFile, conf } = setup();
    expect(controllerUrls(conf, confFile)).toEqual(["http://h1:6817", "http://h2:6817", "http://h3:6817"]);
    membershipWriter(confFile, quiet)(parsePeerList("1@h1:6817:6818,3@h3:6817:6818,4@h4:7000:7001"), 12);
    expect(readMembershipFile(confFile).index).toBe(12);
    expect(controllerUrls(conf, confFile)).toEqual(["http://h1:6817", "http://h3:6817", "http://h4:7000"]);
    expect(controllerUrls(conf)).toEqual(["http://h1:6817", "http://h2:6817", "http://h3:6817"]);
  });

  it("keeps a newer view, but replaces one left by an earlier cluster", () => {
    const { confFile } = setup();
    membershipWriter(confFile, quiet)(parsePeerList("1@h1:1:2,4@h4:1:2"), 50);
    const older = membershipWriter(confFile, quiet);
    older(parsePeerList("1@h1:1:2,2@h2:1:2"), 3);
    expect(readFileSync(membershipFile(confFile), "utf8")).toContain("4@h4:1:2");
    // At start, this replica's log ends at 5: index 50 cannot be from this cluster.
    membershipWriter(confFile, quiet)(parsePeerList("1@h1:1:2,2@h2:1:2"), 0, 5);
    expect(readMembershipFile(confFile).peers.map((p) => p.id)).toEqual([1, 2]);
  });

  it("an unreadable or malformed file falls back to spur.conf", () => {
    const { confFile, conf } = setup();
    writeFileSync(membershipFile(confFile), "SpurControllers=garbage\n");
    expect(controllerUrls(conf, confFile)).toEqual(["http://h1:6817", "http://h2:6817", "http://h3:6817"]);
  });
});
