/**
 * parseConf(text, { globalsOnly: true }): what a user command reads from spur.conf on every
 * call (roles/cli/client-env.ts). The globals (and every SlurmctldHost=) must be exactly those
 * of the full parse; only the NodeName=/PartitionName= records are left out.
 */
import { describe, expect, it } from "vitest";
import { joinContinuations, parseConf, parseConfLines, scanPairs, splitPairsRe, stripComment } from "../../../src/compat/conf/slurm-conf.ts";
import { createRng } from "../../../src/lib/rng.ts";

const CONF = [
  "# a site's file",
  "ClusterName=site",
  "SlurmctldHost=ctl1(10.0.0.1)",
  "SlurmctldHost=ctl2(10.0.0.2)",
  "ControlPort=6817 SpurTlsCaFile=/etc/spur/ca-%h.pem",
  "NodeName=n[1-1000] CPUs=64 \\",
  "  RealMemory=512000 Gres=gpu:8",
  "  nodename=gpu[1-4] CPUs=8 # lower case too",
  "PartitionName=debug Nodes=ALL Default=YES",
  'SpurAllowPlaintext="yes" # quoted',
  "",
].join("\n");

describe("parseConf globals only", () => {
  it("gives the full parse's globals and controller hosts, without the records", () => {
    const full = parseConf(CONF);
    const globals = parseConf(CONF, { globalsOnly: true });
    if (!full.ok || !globals.ok) throw new Error("both parse");
    expect([...globals.value.globals]).toEqual([...full.value.globals]);
    expect(globals.value.slurmctldHosts).toEqual(full.value.slurmctldHosts);
    expect(full.value.nodes.length).toBe(2);
    expect(globals.value.nodes).toEqual([]);
    expect(globals.value.partitions).toEqual([]);
  });

  it("still refuses a malformed global line, not a malformed record", () => {
    expect(parseConf('ClusterName=x "dangling', { globalsOnly: true }).ok).toBe(false);
    expect(parseConf('NodeName=n1 "dangling', { globalsOnly: true }).ok).toBe(true);
    expect(parseConf('NodeName=n1 "dangling').ok).toBe(false);
  });
});

describe("parseConf globals only: the record lines removed in one pass", () => {
  // parseConf skips the record lines with one regular expression when it can; the line loop
  // (parseConfLines) is the definition: same globals, hosts and errors (line numbers included).
  const PIECES = [
    "NodeName=n[1-4] CPUs=8", "  nodename=gpu1 Gres=gpu:8", "\tPartitionName=p Nodes=ALL", "PARTITIONNAME=x", "NodeName =n1", "NodeNameX=1",
    "#NodeName=n9", "ClusterName=c", "SlurmctldHost=a", "ControlMachine=b", 'Key="a b"', "A=1 B=2", "# NodeName=c", 'NodeName=n1 "dangling',
    'ClusterName=x "dangling', "", "   ", "X=1 # NodeName=z", "Y=2 \\", "  Z=3", "W=1\r", "\u00a0NodeName=nb", "V=1\u2028NodeName=q", "U=1\rNodeName=r",
    "nodename=a \\", "  Gres=gpu:1", "PartitionName=q Nodes=n[1-4] \\", "Key=\u00e9",
  ];

  it("gives the line loop's answer on generated files", () => {
    const seed = Number(process.env.SEED ?? 3);
    let fast = 0;
    let failures = 0;
    for (let round = 0; round < 2000; round++) {
      const rng = createRng(seed + round);
      const lines = Array.from({ length: rng.int(0, 12) }, () => rng.pick(PIECES));
      const text = lines.join(rng.int(0, 3) === 0 ? "\r\n" : "\n") + (rng.int(0, 1) ? "\n" : "");
      const want = parseConfLines(text, { globalsOnly: true });
      const got = parseConf(text, { globalsOnly: true });
      expect(got.ok, `SEED=${seed + round} ${JSON.stringify(text)}`).toBe(want.ok);
      if (got.ok && want.ok) {
        expect([...got.value.globals], `SEED=${seed + round} ${JSON.stringify(text)}`).toEqual([...want.value.globals]);
        expect(got.value.slurmctldHosts, `SEED=${seed + round}`).toEqual(want.value.slurmctldHosts);
      } else if (!got.ok && !want.ok) {
        expect(got.error.message, `SEED=${seed + round} ${JSON.stringify(text)}`).toBe(want.error.message);
        failures++;
      }
      if (!/\\\r?$|\r(?!\n)|[\u2028\u2029]/m.test(text) && /^\s*(nodename|partitionname)=/im.test(text)) fast++;
    }
    // Both paths and both outcomes occur often enough to mean something.
    expect(fast).toBeGreaterThan(300);
    expect(failures).toBeGreaterThan(100);
  });
});

describe("spur.conf lines: the plain scan and the regular expression agree", () => {
  // Every line goes through parseConf; the scan must give exactly the regex's pairs or errors.
  const LINES = [
    "ClusterName=spur", "A=1 B=2\tC=3", 'Key="a b c" Other=x', 'Key="" E=', "Key=abc\"def", 'Key="abc', 'Key="a"b', "a.b=1",
    "1abc=2", "foo bar=1", "K/x_1=v", "Key==v", "Key=v=w", 'ClusterName=x "dangling', "  Lead=1  ", "NodeName=n[1-4] Gres=gpu:a100:8(S:0-1)",
    'Feature="a,b" Weight=1', "Key", "=v", "Key=\"q\"\"r\"", "A=1\u00a0B=2", "A=é B=2",
  ];
  for (const line of LINES) {
    it(JSON.stringify(line), () => {
      const scanned = scanPairs(line);
      if (scanned !== undefined) expect(scanned).toEqual(splitPairsRe(line));
    });
  }
  it("the scan takes the usual lines itself", () => {
    for (const line of ["ClusterName=spur", 'Key="a b c" Other=x', "NodeName=n[1-4] Gres=gpu:a100:8(S:0-1)"]) {
      expect(scanPairs(line)).toBeDefined();
    }
  });

  it("random lines of key, quote, equals, blank and value characters", () => {
    const alphabet = ['A', 'b', '1', '_', '/', '=', '"', " ", "\t", ".", "x", "=", "K", "\u00a0", "\r"];
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 3000; n++) {
      let line = "";
      const len = next() % 14;
      for (let i = 0; i < len; i++) line += alphabet[next() % alphabet.length];
      const scanned = scanPairs(line);
      if (scanned !== undefined) expect(scanned, JSON.stringify(line)).toEqual(splitPairsRe(line));
    }
  });
});

describe("comments", () => {
  /** The definition: the first # with an even number of double quotes before it. */
  const byChar = (line: string): string => {
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      if (line[i] === '"') quoted = !quoted;
      if (line[i] === "#" && !quoted) return line.slice(0, i);
    }
    return line;
  };

  it("end at the first # outside double quotes", () => {
    expect(stripComment('Key="a#b" # c')).toBe('Key="a#b" ');
    expect(stripComment('A="#" B="x#y"#z "#"')).toBe('A="#" B="x#y"');
    expect(stripComment('Key="open # still quoted')).toBe('Key="open # still quoted');
    expect(parseConf('Feature="a#b" # the rest').ok && parseConf('Feature="a#b" # the rest')).toMatchObject({ value: { globals: new Map([["feature", "a#b"]]) } });
  });

  it("random lines of quotes, hashes and text", () => {
    const alphabet = ['"', "#", "a", " ", "="];
    let seed = 11;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 3000; n++) {
      let line = "";
      const len = next() % 12;
      for (let i = 0; i < len; i++) line += alphabet[next() % alphabet.length];
      expect(stripComment(line), JSON.stringify(line)).toBe(byChar(line));
    }
  });
});

describe("logical lines", () => {
  it("join backslash continuations, drop one CR of a CRLF ending, and keep the first line's number", () => {
    expect(joinContinuations("A=1\r\nB=2 \\\r\n  C=3\nD=4\r\r\nE=5 \\")).toEqual([
      { text: "A=1", line: 1 },
      { text: "B=2    C=3", line: 2 },
      { text: "D=4\r", line: 4 },
      { text: "E=5  ", line: 5 },
    ]);
  });
});
